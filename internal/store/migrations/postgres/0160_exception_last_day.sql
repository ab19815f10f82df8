-- PostgreSQL's form of migrations/sqlite/0160_exception_last_day.sql.
ALTER TABLE exceptions ADD COLUMN last_day TEXT COLLATE "C" NOT NULL DEFAULT '';
