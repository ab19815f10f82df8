-- Issue 26: the evidence of a run, and exceptions that live from night to
-- night.
--
-- The call-log files as read: the path as given to the import, the
-- SHA-256 of the file's bytes (compressed ones for .gz: what sha256sum
-- prints), its size and non-blank lines, and the first and last call time
-- (ts) it holds. '' / 0: imported before this migration, or not read to
-- the end.
ALTER TABLE call_sources ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE call_sources ADD COLUMN sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE call_sources ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE call_sources ADD COLUMN lines INTEGER NOT NULL DEFAULT 0;
ALTER TABLE call_sources ADD COLUMN first_ts TEXT NOT NULL DEFAULT '';
ALTER TABLE call_sources ADD COLUMN last_ts TEXT NOT NULL DEFAULT '';
CREATE INDEX call_sources_ts ON call_sources (last_ts, first_ts);
-- The calls whose lines are kept in the database (standard input,
-- svcrecon's own calls), by source and time: their digest in a manifest.
CREATE INDEX calls_kept ON calls (source, ts, line_hash) WHERE line_block IS NOT NULL;

-- Coverage declared by hand: the call logs imported hold every call up to
-- the end of day through (import-calls --complete-through, run
-- --complete-through; run --sandbox for the sandbox's whole history).
CREATE TABLE call_coverage (
    id          INTEGER PRIMARY KEY,
    through     TEXT NOT NULL,          -- YYYY-MM-DD (IST)
    declared_at TEXT NOT NULL,          -- RFC 3339 UTC
    source      TEXT NOT NULL DEFAULT '' -- the command that declared it
);

-- The manifest of each reconciliation run: its JSON as last written
-- (manifest.json; the export adds its section), the digest of its core
-- (without export) and the last evidence event when it was recorded.
CREATE TABLE manifests (
    run_id      INTEGER PRIMARY KEY,    -- recon_runs.id
    period_from TEXT NOT NULL,
    period_to   TEXT NOT NULL,
    digest      TEXT NOT NULL,          -- sha256 hex of the canonical manifest
    verdict     TEXT NOT NULL,
    head_seq    INTEGER NOT NULL DEFAULT 0, -- evidence_events.seq after the run's evidence
    head_hash   TEXT NOT NULL DEFAULT '', -- and its hash
    created_at  TEXT NOT NULL,          -- RFC 3339 UTC
    json        TEXT NOT NULL
);
CREATE INDEX manifests_period ON manifests (period_from, period_to);

-- Exceptions across runs: one per kind and natural key (id EX-…).
-- first/last: the first and the last run that found it (its time, id and
-- period); status open, explained, written-off or resolved.
CREATE TABLE exceptions (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    day         TEXT NOT NULL,          -- YYYY-MM-DD (IST) of the finding
    status      TEXT NOT NULL,
    assignee    TEXT NOT NULL DEFAULT '',
    note        TEXT NOT NULL DEFAULT '', -- the last decision's note
    amount      TEXT NOT NULL DEFAULT '', -- exact decimal text
    detail      TEXT NOT NULL DEFAULT '', -- what the finding says, in a line
    first_seen  TEXT NOT NULL,          -- RFC 3339 UTC
    first_run   INTEGER NOT NULL,
    first_to    TEXT NOT NULL,          -- the last day of that run's period
    last_seen   TEXT NOT NULL,
    last_run    INTEGER NOT NULL,
    last_from   TEXT NOT NULL,
    last_to     TEXT NOT NULL,
    UNIQUE (kind, key)
);
CREATE INDEX exceptions_status ON exceptions (status, day);

-- Which exceptions each run found.
CREATE TABLE exception_sightings (
    run_id       INTEGER NOT NULL,
    exception_id TEXT NOT NULL,
    PRIMARY KEY (run_id, exception_id)
);

-- The append-only history of exceptions and sign-offs: never updated or
-- deleted. Each row carries the hash of the one before it (prev_hash) and
-- its own: hash = sha256(prev_hash || the canonical event), so that an
-- edited, deleted or inserted row breaks the chain (reconcile verify).
CREATE TABLE evidence_events (
    seq          INTEGER PRIMARY KEY,   -- 1, 2, 3 … in order of appending
    exception_id TEXT,                  -- NULL for a sign-off
    run_id       INTEGER,               -- the run it came from or concerns
    at           TEXT NOT NULL,         -- RFC 3339 UTC, milliseconds
    actor        TEXT NOT NULL,         -- who: a login name, or svcrecon
    action       TEXT NOT NULL,         -- seen, resolved, reopened, explained, written-off, assigned, note, signoff-preparer, signoff-approver
    note         TEXT NOT NULL DEFAULT '',
    data         TEXT NOT NULL DEFAULT '', -- assigned: the assignee; sign-off: the manifest digest
    prev_hash    TEXT NOT NULL,
    hash         TEXT NOT NULL
);
CREATE INDEX evidence_events_exception ON evidence_events (exception_id, seq);
CREATE INDEX evidence_events_run ON evidence_events (run_id, action);

-- The digest of a day's records of one kind (a manifest's statementDay or
-- ordersDay input) and their totals per account (JSON), as of the day's
-- version: WriteRecords moves day_versions.version on in the transaction
-- that inserts or changes a record of the day, so a digest kept for an
-- older version is not used (a night digests again only the days written
-- since, and a digest computed while a sync wrote the day is never
-- trusted). reconcile verify always digests the records themselves.
CREATE TABLE day_versions (
    kind    TEXT NOT NULL,
    day     TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (kind, day)
);
CREATE TABLE day_digests (
    kind    TEXT NOT NULL,
    day     TEXT NOT NULL,
    version INTEGER NOT NULL,       -- day_versions.version when it was computed (0: none yet)
    sha256  TEXT NOT NULL,
    records INTEGER NOT NULL,
    totals  TEXT NOT NULL,
    PRIMARY KEY (kind, day)
);
