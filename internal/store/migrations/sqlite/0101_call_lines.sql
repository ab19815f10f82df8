-- Issue 15: where the lines of the calls are kept (see 0100): the files
-- they were imported from, and the blocks of redacted lines read from no
-- file (standard input, svcrecon's own calls), deflate-compressed.
CREATE TABLE call_sources (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL,          -- absolute path when imported
    size        INTEGER NOT NULL,       -- bytes, when imported
    mod_time    TEXT NOT NULL,          -- RFC 3339 UTC, when imported
    gzip        INTEGER NOT NULL DEFAULT 0, -- 1: offsets are in the decompressed stream
    imported_at TEXT NOT NULL
);
CREATE INDEX call_sources_path ON call_sources (path);
CREATE TABLE call_blocks (
    id   INTEGER PRIMARY KEY,
    data BLOB NOT NULL                  -- redacted lines, one a line, deflate
);
