-- PostgreSQL's form of migrations/sqlite/0070_bulk_leases.sql (same name, same tables and columns).
-- bulkrun: the process that holds a bulk run. One holder per run (a second
-- process on the same run is refused and told who holds it); the holder
-- renews heartbeat while it works and deletes its row when it stops. A
-- lease whose holder is gone (its pid no longer runs on the same host, or
-- its heartbeat is older than a time-out) is taken over. holder is unique
-- per process and lease (host:pid:random), so several holders of one
-- process (tests) are told apart.
CREATE TABLE bulk_leases (
    run_id    TEXT COLLATE "C" PRIMARY KEY REFERENCES bulk_runs(id),
    holder    TEXT COLLATE "C" NOT NULL,
    host      TEXT COLLATE "C" NOT NULL,
    pid       BIGINT NOT NULL,
    since     TEXT COLLATE "C" NOT NULL,
    heartbeat TEXT COLLATE "C" NOT NULL
);
