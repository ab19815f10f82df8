-- Suggested pairs (never a match): an unmatched call and an unmatched
-- statement record that are probably the same debit. Both rows carry the
-- explanation; '' = no suggestion.
ALTER TABLE recon_matches ADD COLUMN suggested_pair TEXT NOT NULL DEFAULT '';
