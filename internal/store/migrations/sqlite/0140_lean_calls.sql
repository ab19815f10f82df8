-- Issue 28: the calls lose their covering index calls_ts (pool account,
-- time and what the check reads: 143 MB of a million-call month, and a
-- fifth of the import's writing). The check reads the period's calls in
-- time order through the index that keeps them unique, (ts, line_hash),
-- and the rows it points at; the pool accounts the calls of a period name
-- are kept by day in call_accounts, which every insert of calls keeps up.
DROP INDEX IF EXISTS calls_ts;
-- The calls that did not succeed, by time, now with what the load stage
-- reads of them (outcome, externalRef): it never reads their rows, which
-- lie one in forty among the successful ones (the 10M-call month read
-- most of its calls table for them).
DROP INDEX IF EXISTS calls_open;
CREATE INDEX calls_open ON calls (ts, outcome, external_ref) WHERE outcome <> 'success';
CREATE TABLE call_accounts (
    account TEXT NOT NULL,              -- calls.pool_account of a call with a pool entry
    day     TEXT NOT NULL,              -- YYYY-MM-DD of its ts
    PRIMARY KEY (account, day)
) WITHOUT ROWID;
INSERT OR IGNORE INTO call_accounts (account, day)
    SELECT DISTINCT pool_account, substr(ts, 1, 10) FROM calls WHERE pool_account <> '' AND pool_shape <> '';
