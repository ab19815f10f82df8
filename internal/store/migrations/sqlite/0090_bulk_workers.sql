-- bulkrun workers on many hosts (issue 16). On PostgreSQL several
-- processes work on one run at once: the run's rows are seeded as
-- 'queued' journal rows, and each worker claims a few at a time (SELECT
-- … FOR UPDATE SKIP LOCKED), marking them 'sending' with its id in the
-- same transaction as its heartbeat. A worker whose heartbeat stopped (or
-- whose pid is gone from its host) is reaped: its 'sending' rows become
-- pending, for the transaction-status look-up. SQLite keeps one holder per
-- run (bulk_leases) and never seeds.

-- Creation order of runs, for ties of created_at (SQLite's rowid did that;
-- PostgreSQL has none). Runs created before this migration are numbered
-- by created_at, then id.
ALTER TABLE bulk_runs ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE bulk_runs SET seq = (SELECT count(*) FROM bulk_runs b
    WHERE b.created_at < bulk_runs.created_at OR b.created_at = bulk_runs.created_at AND b.id <= bulk_runs.id);

-- The run's pool debits so far (sum of its successful rows' pool amounts,
-- exact decimal text), its largest single debit and how many rows debited,
-- kept with every success in the same transaction: --max-debit's shared
-- reservation reads them. '' = not known yet (runs created before this
-- migration): counted from the rows when first needed.
ALTER TABLE bulk_runs ADD COLUMN debited TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_runs ADD COLUMN debit_max TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_runs ADD COLUMN debit_rows INTEGER NOT NULL DEFAULT 0;

-- The worker that claimed the row ('' for a run held by one process).
ALTER TABLE bulk_rows ADD COLUMN worker TEXT NOT NULL DEFAULT '';
CREATE INDEX bulk_rows_state ON bulk_rows (run_id, state, line);

-- The workers of a shared run: one row per worker while it works on the
-- run, its heartbeat renewed with each claim and every few seconds.
CREATE TABLE bulk_workers (
    run_id    TEXT NOT NULL REFERENCES bulk_runs(id),
    worker    TEXT NOT NULL,            -- host:pid:random
    host      TEXT NOT NULL,
    pid       INTEGER NOT NULL,
    since     TEXT NOT NULL,
    heartbeat TEXT NOT NULL,
    PRIMARY KEY (run_id, worker)
);
