-- bulkrun: how many times a row was journaled 'sending' (claimed for a
-- call). A row the transaction-status look-up proved never executed by the
-- service (SNA) goes back to state 'unsent' and is sent again, with the
-- same externalRef, by the next resume; attempts keeps count, so an
-- attempts above 1 is the audit trail of those re-sends.
ALTER TABLE bulk_rows ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
