-- PostgreSQL's form of migrations/sqlite/0091_job_fires.sql (same name, same tables and columns).
-- Schedulers on many hosts (issue 16): several `reconcile schedule`
-- daemons on one database run each job once per fire time. The first to
-- insert the (job, fire time) row runs it; the others see the row and do
-- nothing. A daemon that dies holding a fire time only loses that fire:
-- the next fire time is claimed by a live one, which takes the job's lease
-- over (leases).
CREATE TABLE job_fires (
    job        TEXT COLLATE "C" NOT NULL,
    fire_at    TEXT COLLATE "C" NOT NULL,           -- the scheduled time, RFC 3339 UTC (store.FormatTime)
    holder     TEXT COLLATE "C" NOT NULL,           -- host:pid:random of the daemon that took it
    host       TEXT COLLATE "C" NOT NULL,
    claimed_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (job, fire_at)
);

-- The host that ran (or skipped) each job run, and its fire time ('' for
-- a manual run).
ALTER TABLE job_runs ADD COLUMN host TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE job_runs ADD COLUMN fire_at TEXT COLLATE "C" NOT NULL DEFAULT '';
