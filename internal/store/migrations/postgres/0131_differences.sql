-- PostgreSQL's form of migrations/sqlite/0131_differences.sql (same name, same tables and columns).
-- Field-level differences (issue 27): a call and the statement record it
-- is linked to by key that disagree on a field, one row per field.
CREATE TABLE recon_differences (
    run_id          BIGINT NOT NULL REFERENCES recon_runs(id) ON DELETE CASCADE,
    call_id         BIGINT,                            -- calls.id
    svc_order_id    TEXT COLLATE "C" NOT NULL DEFAULT '', -- the record's
    external_ref    TEXT COLLATE "C" NOT NULL DEFAULT '',
    operation       TEXT COLLATE "C" NOT NULL DEFAULT '',
    ts              TEXT COLLATE "C" NOT NULL DEFAULT '', -- the call's time
    field           TEXT COLLATE "C" NOT NULL,            -- amount, product, status, time
    call_value      TEXT COLLATE "C" NOT NULL DEFAULT '',
    statement_value TEXT COLLATE "C" NOT NULL DEFAULT '',
    difference      TEXT COLLATE "C" NOT NULL DEFAULT '', -- amount: call − statement; time: record − call
    note            TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX recon_differences_run ON recon_differences (run_id);
