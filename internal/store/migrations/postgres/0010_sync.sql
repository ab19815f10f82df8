-- PostgreSQL's form of migrations/sqlite/0010_sync.sql (same name, same tables and columns).
-- Biller syncs remember the newest updatedDate they saw, so that the next
-- incremental sync of the same scope asks only for billers updated after it.
ALTER TABLE biller_syncs ADD COLUMN max_updated TEXT COLLATE "C" NOT NULL DEFAULT '';
