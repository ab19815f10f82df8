-- Every sync checks the days it already holds (issue 13): the last days of
-- its range are walked again in full, older ones are probed with one small
-- request and walked again when the service's count changed. A sync run
-- records how many held days it probed, how many it walked again and how
-- many records those walks found that were not held (late postings).
ALTER TABLE sync_runs ADD COLUMN days_probed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sync_runs ADD COLUMN days_rewalked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sync_runs ADD COLUMN records_late INTEGER NOT NULL DEFAULT 0;
