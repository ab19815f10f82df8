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

	stmts sync.Map // query → *sql.Stmt prepared on the database (prepared)

	// debits are the pool debits of the bulk rows the transaction being
	// written records (debit), by run: stored once, at its end
	// (storeDebits). Only the writer leading a batch touches them.
	debits map[string]*runDebit
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

	err := b.commit(context.WithoutCancel(ctx), batch)
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

// commit runs the batch's writes in one transaction. One that PostgreSQL
// aborted for a deadlock with another's (two workers' batches claiming the
// same rows in another order) is run again, whole (retryAborted): it left
// nothing, and each write's function starts from nothing.
func (b *Batch) commit(ctx context.Context, batch []*batchWrite) error {
	return b.db.retryAborted(func() error {
		return b.db.Write(ctx, func(tx *sql.Tx) error {
			clear(b.debits)
			for _, o := range batch {
				if err := o.fn(ctx, tx); err != nil {
					return err
				}
			}
			return b.storeDebits(ctx, tx)
		})
	})
}

// prepared returns the statements of queries, each prepared on the
// database once and kept: Tx.StmtContext then runs it on a transaction's
// connection, prepared there once, not parsed again at every write (SQLite
// parses a statement given as text each time). It may take a connection
// of the pool: call it outside a transaction.
func (b *Batch) prepared(ctx context.Context, queries ...string) ([]*sql.Stmt, error) {
	out := make([]*sql.Stmt, len(queries))
	for i, q := range queries {
		if s, ok := b.stmts.Load(q); ok {
			out[i] = s.(*sql.Stmt)
			continue
		}
		s, err := b.db.PrepareContext(ctx, q)
		if err != nil {
			return nil, err
		}
		if prev, loaded := b.stmts.LoadOrStore(q, s); loaded {
			s.Close()
			s = prev.(*sql.Stmt)
		}
		out[i] = s
	}
	return out, nil
}

// txStmt is q as a statement of tx when prepared has kept it, else nil.
func (b *Batch) txStmt(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	if s, ok := b.stmts.Load(q); ok {
		return tx.StmtContext(ctx, s.(*sql.Stmt))
	}
	return nil
}

// exec runs q in tx: its kept statement (prepared), or its text.
func (b *Batch) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	if s := b.txStmt(ctx, tx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, q, args...)
}

// queryRow is exec for a query of one row.
func (b *Batch) queryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) *sql.Row {
	if s := b.txStmt(ctx, tx, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, q, args...)
}
