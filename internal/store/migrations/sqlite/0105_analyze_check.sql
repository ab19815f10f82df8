-- Issue 25: the check's statistics refreshed for a role that does not own
-- the tables is PostgreSQL's matter (migrations/postgres/0105_analyze_check.sql:
-- a function that runs ANALYZE as the owner). SQLite plans the store's
-- queries without statistics: nothing to do but keep the two dialects'
-- migrations of one name each.
SELECT 1;
