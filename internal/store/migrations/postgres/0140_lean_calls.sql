-- PostgreSQL's form of migrations/sqlite/0140_lean_calls.sql (same name, same tables and columns).
-- Issue 28: the calls lose their covering index calls_ts; the check reads
-- the period's calls in time order through the index that keeps them
-- unique, (ts, line_hash), and the pool accounts a period's calls name
-- from call_accounts, by day, which every insert of calls keeps up.
DROP INDEX IF EXISTS calls_ts;
-- The calls that did not succeed, by time, now with what the load stage
-- reads of them (outcome, externalRef): it never reads their rows, which
-- lie one in forty among the successful ones (the 10M-call month read
-- most of its calls table for them).
DROP INDEX IF EXISTS calls_open;
CREATE INDEX calls_open ON calls (ts, outcome, external_ref) WHERE outcome <> 'success';
CREATE TABLE call_accounts (
    account TEXT COLLATE "C" NOT NULL,  -- calls.pool_account of a call with a pool entry
    day     TEXT COLLATE "C" NOT NULL,  -- YYYY-MM-DD of its ts
    PRIMARY KEY (account, day)
);
INSERT INTO call_accounts (account, day)
    SELECT DISTINCT pool_account, substr(ts, 1, 10) FROM calls WHERE pool_account <> '' AND pool_shape <> ''
    ON CONFLICT DO NOTHING;
