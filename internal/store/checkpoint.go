package store

import (
	"context"
	"sync/atomic"
)

// A SQLite writer in WAL mode copies the log back into the database file
// itself (the auto-checkpoint: every 1000 pages, inside the commit that
// passes them), so a long load spends a tenth of its one writer's time
// copying pages while the decoders wait for it. After a bulk commit (an
// import's batch of calls, a sync's pages of records) the store asks for a
// PASSIVE checkpoint on a goroutine of its own instead: it copies what is
// committed while the writer goes on, so the writer's own checkpoint finds
// the log copied already (or the checkpoint lock held, and returns at
// once) and the log still starts over from its beginning once copied.
// Checkpoints never block a writer or a reader, and SQLite takes a
// checkpoint that runs beside another as busy, not as an error.

// checkpointer runs one checkpoint at a time, and one more when asked
// while one runs.
type checkpointer struct {
	running, again atomic.Bool
	// ran, when set (tests), is told of each checkpoint's pages: those in
	// the log and those copied from it.
	ran func(log, copied int)
}

// checkpointAside asks for a checkpoint of the log beside the writer
// (SQLite; nothing on PostgreSQL). It returns at once.
func (db *DB) checkpointAside() {
	if _, ok := db.dialect.(sqliteDialect); !ok {
		return
	}
	c := &db.ckpt
	c.again.Store(true)
	if !c.running.CompareAndSwap(false, true) {
		return
	}
	go func() {
		for {
			for c.again.Swap(false) {
				// Its error (a closed database) leaves the copy to the
				// writer, as without it.
				var busy, log, copied int
				err := db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied)
				if err == nil && c.ran != nil {
					c.ran(log, copied)
				}
			}
			c.running.Store(false)
			if !c.again.Load() || !c.running.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}
