-- PostgreSQL's form of migrations/sqlite/0130_match_groups.sql (same name, same tables and columns).
-- Groups matched as one (issue 27): a call and the records it was posted
-- as, or the calls one record settled, whose parts sum to the whole. Each
-- row of a group carries its id ('' = none).
ALTER TABLE recon_matches ADD COLUMN group_id TEXT COLLATE "C" NOT NULL DEFAULT '';
