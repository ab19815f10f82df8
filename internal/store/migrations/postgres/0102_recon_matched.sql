-- PostgreSQL's form of migrations/sqlite/0102_recon_matched.sql (same name, same tables and columns).
-- Issue 15: a run's matched rows, nearly all of its rows (960,033 of a
-- million-call month), are kept apart from its exceptions: clustered by
-- run and the order the check found them in, so that storing one appends
-- to one B-tree and keeps up no index; and without what their call holds
-- already (its time, externalRef, operation and orderid) or what is equal
-- in a match (the statement's amount is the call's). Rows of runs stored
-- before stay in recon_matches; the reports read both.
CREATE TABLE recon_matched (
    run_id       BIGINT NOT NULL,     -- recon_runs.id (deleted with the run's other rows)
    seq          BIGINT NOT NULL,     -- the order the check found it in, within the run
    call_id      BIGINT NOT NULL,     -- calls.id: its ts, external_ref and operation are the row's
    svc_order_id TEXT COLLATE "C" NOT NULL,
    amount       TEXT COLLATE "C" NOT NULL,        -- the call's amount, the record's txnChargedValue
    PRIMARY KEY (run_id, seq)
);
