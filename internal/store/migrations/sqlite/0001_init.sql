-- svcrecon schema. Amounts are exact decimal text (shopspring/decimal
-- String()), never REAL. Service timestamps are kept as the service sends
-- them: 'YYYY-MM-DD HH:MM:SS' in IST, which sorts as text. svcrecon's own
-- timestamps (synced_at, started_at …) are RFC 3339 UTC (store.FormatTime).

-- Records of the plain statement (kind 'statement') and the collect-order
-- statement (kind 'orders'), upserted by svc_order_id.
CREATE TABLE records (
    kind                    TEXT NOT NULL CHECK (kind IN ('statement', 'orders')),
    account                 TEXT NOT NULL,           -- linked account number walked
    svc_order_id            TEXT NOT NULL,           -- svcOrderId, or 'hash:<hex>' when the service sent none
    txn_date_time           TEXT NOT NULL,           -- YYYY-MM-DD HH:MM:SS, IST
    txn_date                TEXT NOT NULL,           -- YYYY-MM-DD of txn_date_time
    status                  TEXT NOT NULL DEFAULT '',
    client_order_id         TEXT NOT NULL DEFAULT '',
    transaction_id          TEXT NOT NULL DEFAULT '',
    product_code            TEXT NOT NULL DEFAULT '',
    product_name            TEXT NOT NULL DEFAULT '',
    sub_product_code        TEXT NOT NULL DEFAULT '',
    sub_product_name        TEXT NOT NULL DEFAULT '',
    txn_mode                TEXT NOT NULL DEFAULT '', -- DR debit, CR credit
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
    reversal_svc_order_id   TEXT NOT NULL DEFAULT '', -- statement only
    closing_balance         TEXT NOT NULL DEFAULT '', -- statement only; as sent, may be masked
    settlement_svc_order_id TEXT NOT NULL DEFAULT '', -- orders only; '' = unsettled
    first_synced_at         TEXT NOT NULL,
    last_synced_at          TEXT NOT NULL,
    PRIMARY KEY (kind, account, svc_order_id)
) WITHOUT ROWID;
CREATE INDEX records_time ON records (kind, account, txn_date_time);
CREATE INDEX records_client_order ON records (client_order_id);
CREATE INDEX records_reversal ON records (reversal_svc_order_id) WHERE reversal_svc_order_id <> '';

-- Checkpoints of the page walkers: one row per kind, account and day window.
CREATE TABLE sync_windows (
    kind           TEXT NOT NULL,       -- 'statement' or 'orders'
    account        TEXT NOT NULL,
    day            TEXT NOT NULL,       -- YYYY-MM-DD
    state          TEXT NOT NULL,       -- 'walking', 'done', 'mismatch', 'failed'
    next_page      INTEGER NOT NULL DEFAULT 1,
    total_records  INTEGER,             -- meta.totalRecords last seen
    stored_records INTEGER,             -- records of the day in the table after the walk
    walks          INTEGER NOT NULL DEFAULT 0,
    error          TEXT NOT NULL DEFAULT '',
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (kind, account, day)
) WITHOUT ROWID;

CREATE TABLE sync_runs (
    id             INTEGER PRIMARY KEY,
    kinds          TEXT NOT NULL,       -- 'statement,orders'
    account        TEXT NOT NULL,
    date_from      TEXT NOT NULL,
    date_to        TEXT NOT NULL,
    started_at     TEXT NOT NULL,
    finished_at    TEXT,
    state          TEXT NOT NULL,       -- 'running', 'ok', 'partial', 'failed'
    records_new    INTEGER NOT NULL DEFAULT 0,
    records_updated INTEGER NOT NULL DEFAULT 0,
    pages          INTEGER NOT NULL DEFAULT 0,
    windows        INTEGER NOT NULL DEFAULT 0,
    windows_failed INTEGER NOT NULL DEFAULT 0,
    retries        INTEGER NOT NULL DEFAULT 0,
    error          TEXT NOT NULL DEFAULT ''
);

-- Billers (never deleted: removed = 1 when a full sync no longer lists one).
CREATE TABLE billers (
    biller_id        TEXT PRIMARY KEY,
    biller_name      TEXT NOT NULL DEFAULT '',
    category_key     TEXT NOT NULL DEFAULT '',
    type             TEXT NOT NULL DEFAULT '',
    category_name    TEXT NOT NULL DEFAULT '',
    coverage_city    TEXT NOT NULL DEFAULT '',
    coverage_state   TEXT NOT NULL DEFAULT '',
    coverage_pincode TEXT NOT NULL DEFAULT '',
    updated_date     TEXT NOT NULL DEFAULT '',
    biller_status    TEXT NOT NULL DEFAULT '',
    is_available     INTEGER NOT NULL DEFAULT 0,
    removed          INTEGER NOT NULL DEFAULT 0,
    removed_at       TEXT,
    first_seen_at    TEXT NOT NULL,
    last_seen_at     TEXT NOT NULL
);

CREATE TABLE biller_syncs (
    id            INTEGER PRIMARY KEY,
    mode          TEXT NOT NULL,        -- 'incremental' or 'full'
    category      TEXT NOT NULL DEFAULT '',
    updated_after TEXT NOT NULL DEFAULT '', -- filters.updatedAfterDate sent
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    state         TEXT NOT NULL,        -- 'running', 'ok', 'failed'
    seen          INTEGER NOT NULL DEFAULT 0,
    added         INTEGER NOT NULL DEFAULT 0,
    changed       INTEGER NOT NULL DEFAULT 0,
    removed       INTEGER NOT NULL DEFAULT 0,
    error         TEXT NOT NULL DEFAULT ''
);

CREATE TABLE biller_changes (
    id        INTEGER PRIMARY KEY,
    sync_id   INTEGER NOT NULL REFERENCES biller_syncs(id),
    biller_id TEXT NOT NULL,
    change    TEXT NOT NULL,            -- 'added', 'changed', 'removed'
    fields    TEXT NOT NULL DEFAULT '', -- JSON {"billerName":["old","new"], …} for 'changed'
    at        TEXT NOT NULL
);
CREATE INDEX biller_changes_sync ON biller_changes (sync_id);

-- The call log: every call svcrecon made and every line imported.
CREATE TABLE calls (
    id             INTEGER PRIMARY KEY,
    line_hash      TEXT NOT NULL UNIQUE, -- sha256 hex of the JSON line; re-imports add nothing
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
    request        TEXT,                 -- redacted JSON
    response       TEXT,                 -- redacted JSON
    imported_at    TEXT NOT NULL
);
CREATE INDEX calls_ts ON calls (pool_account, ts);
CREATE INDEX calls_ref ON calls (external_ref);
CREATE INDEX calls_orderid ON calls (orderid);

CREATE TABLE import_errors (
    id          INTEGER PRIMARY KEY,
    source      TEXT NOT NULL,
    line        INTEGER NOT NULL,
    reason      TEXT NOT NULL,           -- never the line itself: it may hold secrets
    imported_at TEXT NOT NULL
);

-- Reconciliation runs. Re-running a period supersedes the previous run of
-- that period: its result rows are deleted, its summary kept for comparison.
CREATE TABLE recon_runs (
    id            INTEGER PRIMARY KEY,
    period_from   TEXT NOT NULL,
    period_to     TEXT NOT NULL,
    as_of         TEXT NOT NULL,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    state         TEXT NOT NULL,         -- 'running', 'ok', 'failed'
    superseded_by INTEGER,
    summary       TEXT NOT NULL DEFAULT '{}' -- JSON summary (counts and exact amounts as strings)
);
CREATE INDEX recon_runs_period ON recon_runs (period_from, period_to);

CREATE TABLE recon_breaks (
    run_id        INTEGER NOT NULL REFERENCES recon_runs(id) ON DELETE CASCADE,
    pool_account  TEXT NOT NULL,
    kind          TEXT NOT NULL,         -- 'arithmetic', 'gap', 'explainedGap'
    call_id       INTEGER,               -- the call whose pool object or opening breaks
    prev_call_id  INTEGER,               -- for gaps: the previous call of the chain
    ts            TEXT NOT NULL,
    external_ref  TEXT NOT NULL DEFAULT '',
    expected      TEXT NOT NULL,         -- arithmetic: opening − amount; gap: previous closing
    actual        TEXT NOT NULL,         -- arithmetic: closing; gap: this opening
    delta         TEXT NOT NULL,         -- expected − actual (money the pool lost unaccounted when positive)
    explained_by  TEXT NOT NULL DEFAULT '', -- comma-separated svcOrderIds for explainedGap
    note          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX recon_breaks_run ON recon_breaks (run_id);

CREATE TABLE recon_matches (
    run_id           INTEGER NOT NULL REFERENCES recon_runs(id) ON DELETE CASCADE,
    outcome          TEXT NOT NULL,      -- matched, amountMismatch, callOnly, statementOnly, duplicateDebit, pending, reversed
    call_id          INTEGER,
    svc_order_id     TEXT NOT NULL DEFAULT '',
    external_ref     TEXT NOT NULL DEFAULT '',
    operation        TEXT NOT NULL DEFAULT '',
    ts               TEXT NOT NULL DEFAULT '',
    call_amount      TEXT NOT NULL DEFAULT '',
    statement_amount TEXT NOT NULL DEFAULT '',
    delta            TEXT NOT NULL DEFAULT '', -- call_amount − statement_amount
    note             TEXT NOT NULL DEFAULT ''
);
CREATE INDEX recon_matches_run ON recon_matches (run_id, outcome);

CREATE TABLE recon_reversals (
    run_id                 INTEGER NOT NULL REFERENCES recon_runs(id) ON DELETE CASCADE,
    svc_order_id           TEXT NOT NULL,  -- the reversed record
    reversal_svc_order_id  TEXT NOT NULL,
    txn_date_time          TEXT NOT NULL,
    amount                 TEXT NOT NULL,
    reversal_found         INTEGER NOT NULL, -- 1 when the reversal record was synced
    reversal_txn_date_time TEXT NOT NULL DEFAULT '',
    reversal_amount        TEXT NOT NULL DEFAULT '',
    note                   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX recon_reversals_run ON recon_reversals (run_id);

CREATE TABLE recon_unsettled (
    run_id          INTEGER NOT NULL REFERENCES recon_runs(id) ON DELETE CASCADE,
    svc_order_id    TEXT NOT NULL,
    client_order_id TEXT NOT NULL DEFAULT '',
    txn_date_time   TEXT NOT NULL,
    amount          TEXT NOT NULL,
    age_days        INTEGER NOT NULL,
    age_bucket      TEXT NOT NULL        -- '0-1', '2-3', '4-7', '8-30', '>30'
);
CREATE INDEX recon_unsettled_run ON recon_unsettled (run_id);

-- Bulk runs: the journal that makes every row be called at most once.
CREATE TABLE bulk_runs (
    id           TEXT PRIMARY KEY,      -- short alphanumeric run id
    op           TEXT NOT NULL,
    input_path   TEXT NOT NULL,
    input_sha256 TEXT NOT NULL,
    settings     TEXT NOT NULL DEFAULT '{}', -- JSON: --set values, max-debit, concurrency, rate, out
    total_rows   INTEGER NOT NULL,
    state        TEXT NOT NULL,         -- 'running', 'stopped', 'done'
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX bulk_runs_input ON bulk_runs (input_sha256, op);

CREATE TABLE bulk_rows (
    run_id       TEXT NOT NULL REFERENCES bulk_runs(id),
    line         INTEGER NOT NULL,      -- line number in the input file
    external_ref TEXT NOT NULL,
    state        TEXT NOT NULL,         -- 'sending', 'success', 'failed', 'pending'
    statuscode   TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL DEFAULT '',
    orderid      TEXT NOT NULL DEFAULT '',
    pool_amount  TEXT NOT NULL DEFAULT '',
    response     TEXT,                  -- redacted envelope JSON
    error        TEXT NOT NULL DEFAULT '',
    sent_at      TEXT NOT NULL,
    done_at      TEXT,
    checked_at   TEXT,                  -- last txnStatus look-up
    PRIMARY KEY (run_id, line),
    UNIQUE (run_id, external_ref)
);

-- Scheduled and manual job runs, and the lease that keeps two processes
-- from running one job on one database at once.
CREATE TABLE job_runs (
    id          INTEGER PRIMARY KEY,
    job         TEXT NOT NULL,
    trigger     TEXT NOT NULL DEFAULT '', -- 'schedule', 'manual', 'cli'
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    outcome     TEXT NOT NULL,          -- 'running', 'ok', 'failed', 'skipped', 'cancelled', 'panic'
    summary     TEXT NOT NULL DEFAULT '',
    error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX job_runs_job ON job_runs (job, started_at);

CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,
    acquired_at TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
