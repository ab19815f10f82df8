-- Field-level differences (issue 27): a call and the statement record it
-- is linked to by key that disagree on a field, one row per field.
CREATE TABLE recon_differences (
    run_id          INTEGER NOT NULL REFERENCES recon_runs(id) ON DELETE CASCADE,
    call_id         INTEGER,                  -- calls.id
    svc_order_id    TEXT NOT NULL DEFAULT '', -- the record's
    external_ref    TEXT NOT NULL DEFAULT '',
    operation       TEXT NOT NULL DEFAULT '',
    ts              TEXT NOT NULL DEFAULT '', -- the call's time
    field           TEXT NOT NULL,            -- amount, product, status, time
    call_value      TEXT NOT NULL DEFAULT '',
    statement_value TEXT NOT NULL DEFAULT '',
    difference      TEXT NOT NULL DEFAULT '', -- amount: call − statement; time: record − call
    note            TEXT NOT NULL DEFAULT ''
);
CREATE INDEX recon_differences_run ON recon_differences (run_id);
