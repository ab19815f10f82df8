-- PostgreSQL's form of migrations/sqlite/0080_sync_recheck.sql (same name, same tables and columns).
-- Every sync checks the days it already holds (issue 13): the last days of
-- its range are walked again in full, older ones are probed with one small
-- request and walked again when the service's count changed. A sync run
-- records how many held days it probed, how many it walked again and how
-- many records those walks found that were not held (late postings).
ALTER TABLE sync_runs ADD COLUMN days_probed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sync_runs ADD COLUMN days_rewalked BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sync_runs ADD COLUMN records_late BIGINT NOT NULL DEFAULT 0;
