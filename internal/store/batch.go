package store

import (
	"context"
	"database/sql"
	"sync"
)

// DefaultBatchMax bounds the writes a Batch commits in one transaction when
// NewBatch is given no bound.
const DefaultBatchMax = 256

// Batch commits writes in shared transactions (group commit): many
// goroutines hand it one write each, and each Do returns only once the
// transaction holding its write is committed (or rolled back), so a caller
// may rely on its write being durable, yet 32 writers share a commit
// instead of queueing for one each.
//
// It needs no goroutine of its own: the first writer to find the batch idle
// leads, committing the queue's head (its own write first) while later
// writers queue; when it is done it hands the lead to the oldest queued
// writer. A batch's writes commit or fail together: one failing write rolls
// the whole transaction back and every Do of that batch returns its error.
//
// Writes run under context.WithoutCancel: once queued, a write is committed
// whatever happens to its caller's context.
type Batch struct {
	db  *DB
	max int

	mu      sync.Mutex
	queue   []*batchWrite
	leading bool // a writer is committing; queued writers wait for it
}

type batchWrite struct {
	fn   func(ctx context.Context, tx *sql.Tx) error
	done chan batchResult // one message: the commit's error, or the lead
}

type batchResult struct {
	err  error
	lead bool
}

// NewBatch returns a Batch that commits through db.Write, at most max
// writes per transaction (DefaultBatchMax when max < 1).
func NewBatch(db *DB, max int) *Batch {
	if max < 1 {
		max = DefaultBatchMax
	}
	return &Batch{db: db, max: max}
}

// Do runs fn in a transaction shared with other writers' and returns when
// that transaction is committed: nil, or the transaction's error.
func (b *Batch) Do(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	w := &batchWrite{fn: fn, done: make(chan batchResult, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, w)
	lead := !b.leading
	b.leading = true
	b.mu.Unlock()
	if !lead {
		r := <-w.done
		if !r.lead {
			return r.err
		}
	}
	// w is the head of the queue: commit it with the writes behind it.
	b.mu.Lock()
	n := min(len(b.queue), b.max)
	batch := make([]*batchWrite, n)
	copy(batch, b.queue)
	b.queue = append(b.queue[:0], b.queue[n:]...)
	b.mu.Unlock()

	wctx := context.WithoutCancel(ctx)
	err := b.db.Write(wctx, func(tx *sql.Tx) error {
		for _, o := range batch {
			if err := o.fn(wctx, tx); err != nil {
				return err
			}
		}
		return nil
	})
	for _, o := range batch[1:] {
		o.done <- batchResult{err: err}
	}
	b.mu.Lock()
	if len(b.queue) > 0 {
		b.queue[0].done <- batchResult{lead: true}
	} else {
		b.leading = false
	}
	b.mu.Unlock()
	return err
}
