-- PostgreSQL's form of migrations/sqlite/0150_line_hash_bytes.sql (same name, same tables and columns).
-- Issue 28: a call's line hash (calls.line_hash, the SHA-256 of its line)
-- is stored as its 32 bytes (bytea), not as 64 hex digits; the store
-- converts at its boundary (store's hashes.go). Lowercase hex sorts as its
-- bytes do, so an ORDER BY line_hash (the evidence's digest of kept calls)
-- is unchanged. The table is rewritten and the indexes that hold the
-- column (the unique (ts, line_hash), calls_kept) are built again.
ALTER TABLE calls ALTER COLUMN line_hash TYPE bytea USING decode(line_hash, 'hex');
