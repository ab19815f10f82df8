-- Issue 15: the check reads the period's calls and statement records as
-- ordered streams, one index range per pool account (calls_ts: pool
-- account, time) and per linked account (records_time), and looks up by
-- key only what is far apart in time. The covering indexes of 0020 go:
-- they doubled the rows they covered.
DROP INDEX IF EXISTS calls_check;
DROP INDEX IF EXISTS records_check;

-- Calls are kept unique by (ts, line_hash) rather than line_hash alone: the
-- same line always has the same time, and an import, whose lines come in
-- time order, then adds to the end of the index instead of to random
-- pages. A call keeps the fields the checks and the reports read; the line
-- itself is kept for audit (reconcile calls show) by reference into its
-- file (line_source, line_offset, line_length; checked by line_hash) or,
-- for a line read from no file, redacted in call_blocks (line_block).
-- request and response stay for the calls stored before (and response for
-- transaction-status look-ups, which the check reads).
CREATE TABLE calls_new (
    id             INTEGER PRIMARY KEY,
    line_hash      TEXT NOT NULL,        -- sha256 hex of the JSON line; re-imports add nothing
    source         TEXT NOT NULL,        -- file name, '-' for stdin, 'svcrecon' for own calls
    source_line    INTEGER NOT NULL DEFAULT 0,
    at             TEXT NOT NULL DEFAULT '', -- the line's "at", as logged
    ts             TEXT NOT NULL,        -- ordering time, IST 'YYYY-MM-DD HH:MM:SS': the envelope timestamp, else "at"
    operation      TEXT NOT NULL DEFAULT '',
    method         TEXT NOT NULL DEFAULT '',
    path           TEXT NOT NULL DEFAULT '',
    external_ref   TEXT NOT NULL DEFAULT '',
    http_status    INTEGER NOT NULL DEFAULT 0,
    latency_ms     INTEGER NOT NULL DEFAULT 0,
    error          TEXT NOT NULL DEFAULT '',
    statuscode     TEXT NOT NULL DEFAULT '',
    actcode        TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT '',
    svc_uuid       TEXT NOT NULL DEFAULT '',
    orderid        TEXT NOT NULL DEFAULT '',
    outcome        TEXT NOT NULL,        -- 'success', 'failed', 'pending'
    pool_account   TEXT NOT NULL DEFAULT '',
    pool_shape     TEXT NOT NULL DEFAULT '', -- 'A', 'B', 'data', '' (no pool)
    pool_mode      TEXT NOT NULL DEFAULT '',
    pool_opening   TEXT NOT NULL DEFAULT '',
    pool_amount    TEXT NOT NULL DEFAULT '',
    pool_closing   TEXT NOT NULL DEFAULT '',
    request        TEXT,                 -- redacted JSON (calls stored before issue 15)
    response       TEXT,                 -- redacted JSON (idem; and transaction-status look-ups)
    imported_at    TEXT NOT NULL,
    line_source    INTEGER,              -- call_sources.id: the line is in that file
    line_block     INTEGER,              -- call_blocks.id: the line is kept in the database
    line_offset    INTEGER NOT NULL DEFAULT 0, -- where the line starts (in the decompressed file or block)
    line_length    INTEGER NOT NULL DEFAULT 0,
    UNIQUE (ts, line_hash)
);
INSERT INTO calls_new (id, line_hash, source, source_line, at, ts, operation, method, path, external_ref,
    http_status, latency_ms, error, statuscode, actcode, status, svc_uuid, orderid, outcome, pool_account,
    pool_shape, pool_mode, pool_opening, pool_amount, pool_closing, request, response, imported_at)
SELECT id, line_hash, source, source_line, at, ts, operation, method, path, external_ref,
    http_status, latency_ms, error, statuscode, actcode, status, svc_uuid, orderid, outcome, pool_account,
    pool_shape, pool_mode, pool_opening, pool_amount, pool_closing, request, response, imported_at
FROM calls ORDER BY id;
DROP TABLE calls;
ALTER TABLE calls_new RENAME TO calls;
-- The calls copied keep their ids, and new ids go on after them (rowids do by themselves).
-- The check's stream of calls, by pool account and time, covering what it
-- reads (it never reads the table's rows).
CREATE INDEX calls_ts ON calls (pool_account, ts, id, operation, external_ref, orderid, outcome, pool_shape,
    pool_opening, pool_amount, pool_closing);
CREATE INDEX calls_ref ON calls (external_ref);
CREATE INDEX calls_orderid ON calls (orderid);
-- The few calls that did not succeed (pending ones are resolved, failed
-- ones may be linked by externalRef), by time.
CREATE INDEX calls_open ON calls (ts) WHERE outcome <> 'success';

-- Records get a rowid (id): an insert appends to the table instead of
-- splitting the wide rows of a key-ordered one, and each index entry
-- points at a row with 8 bytes instead of repeating the key.
CREATE TABLE records_new (
    id                      INTEGER PRIMARY KEY,
    kind                    TEXT NOT NULL CHECK (kind IN ('statement', 'orders')),
    account                 TEXT NOT NULL,
    svc_order_id            TEXT NOT NULL,
    txn_date_time           TEXT NOT NULL,
    txn_date                TEXT NOT NULL,
    status                  TEXT NOT NULL DEFAULT '',
    client_order_id         TEXT NOT NULL DEFAULT '',
    transaction_id          TEXT NOT NULL DEFAULT '',
    product_code            TEXT NOT NULL DEFAULT '',
    product_name            TEXT NOT NULL DEFAULT '',
    sub_product_code        TEXT NOT NULL DEFAULT '',
    sub_product_name        TEXT NOT NULL DEFAULT '',
    txn_mode                TEXT NOT NULL DEFAULT '',
    txn_charged_value       TEXT NOT NULL,
    order_value             TEXT NOT NULL DEFAULT '',
    convenience_fee         TEXT NOT NULL DEFAULT '',
    txn_surcharge           TEXT NOT NULL DEFAULT '',
    txn_cashback            TEXT NOT NULL DEFAULT '',
    txn_tds                 TEXT NOT NULL DEFAULT '',
    narration_value0        TEXT NOT NULL DEFAULT '',
    narration_value1        TEXT NOT NULL DEFAULT '',
    narration_value2        TEXT NOT NULL DEFAULT '',
    narration_value3        TEXT NOT NULL DEFAULT '',
    narration_value4        TEXT NOT NULL DEFAULT '',
    narration_value5        TEXT NOT NULL DEFAULT '',
    narration_value6        TEXT NOT NULL DEFAULT '',
    narration_value7        TEXT NOT NULL DEFAULT '',
    narration_value8        TEXT NOT NULL DEFAULT '',
    narration_value9        TEXT NOT NULL DEFAULT '',
    response_code           TEXT NOT NULL DEFAULT '',
    response_msg            TEXT NOT NULL DEFAULT '',
    reversal_svc_order_id   TEXT NOT NULL DEFAULT '',
    closing_balance         TEXT NOT NULL DEFAULT '',
    settlement_svc_order_id TEXT NOT NULL DEFAULT '',
    first_synced_at         TEXT NOT NULL,
    last_synced_at          TEXT NOT NULL,
    UNIQUE (kind, account, svc_order_id)
);
INSERT INTO records_new (kind, account, svc_order_id, txn_date_time, txn_date, status, client_order_id,
    transaction_id, product_code, product_name, sub_product_code, sub_product_name, txn_mode,
    txn_charged_value, order_value, convenience_fee, txn_surcharge, txn_cashback, txn_tds,
    narration_value0, narration_value1, narration_value2, narration_value3, narration_value4,
    narration_value5, narration_value6, narration_value7, narration_value8, narration_value9,
    response_code, response_msg, reversal_svc_order_id, closing_balance, settlement_svc_order_id,
    first_synced_at, last_synced_at)
SELECT kind, account, svc_order_id, txn_date_time, txn_date, status, client_order_id,
    transaction_id, product_code, product_name, sub_product_code, sub_product_name, txn_mode,
    txn_charged_value, order_value, convenience_fee, txn_surcharge, txn_cashback, txn_tds,
    narration_value0, narration_value1, narration_value2, narration_value3, narration_value4,
    narration_value5, narration_value6, narration_value7, narration_value8, narration_value9,
    response_code, response_msg, reversal_svc_order_id, closing_balance, settlement_svc_order_id,
    first_synced_at, last_synced_at
FROM records ORDER BY txn_date_time, kind, account, svc_order_id;
DROP TABLE records;
ALTER TABLE records_new RENAME TO records;
-- By account and time (the check's and the export's order; a day's count).
CREATE INDEX records_time ON records (kind, account, txn_date_time, svc_order_id);
CREATE INDEX records_client_order ON records (client_order_id);
CREATE INDEX records_svc_order ON records (svc_order_id);
CREATE INDEX records_reversal ON records (reversal_svc_order_id) WHERE reversal_svc_order_id <> '';
