-- PostgreSQL's form of migrations/sqlite/0050_suggested_pairs.sql (same name, same tables and columns).
-- Suggested pairs (never a match): an unmatched call and an unmatched
-- statement record that are probably the same debit. Both rows carry the
-- explanation; '' = no suggestion.
ALTER TABLE recon_matches ADD COLUMN suggested_pair TEXT COLLATE "C" NOT NULL DEFAULT '';
