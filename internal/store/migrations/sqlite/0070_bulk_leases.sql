-- bulkrun: the process that holds a bulk run. One holder per run (a second
-- process on the same run is refused and told who holds it); the holder
-- renews heartbeat while it works and deletes its row when it stops. A
-- lease whose holder is gone (its pid no longer runs on the same host, or
-- its heartbeat is older than a time-out) is taken over. holder is unique
-- per process and lease (host:pid:random), so several holders of one
-- process (tests) are told apart.
CREATE TABLE bulk_leases (
    run_id    TEXT PRIMARY KEY REFERENCES bulk_runs(id),
    holder    TEXT NOT NULL,
    host      TEXT NOT NULL,
    pid       INTEGER NOT NULL,
    since     TEXT NOT NULL,
    heartbeat TEXT NOT NULL
);
