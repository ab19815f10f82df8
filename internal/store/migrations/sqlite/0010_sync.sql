-- Biller syncs remember the newest updatedDate they saw, so that the next
-- incremental sync of the same scope asks only for billers updated after it.
ALTER TABLE biller_syncs ADD COLUMN max_updated TEXT NOT NULL DEFAULT '';
