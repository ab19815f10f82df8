package statement

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
)

// maxBatchRows bounds the records of one write transaction.
const maxBatchRows = 20000

// job is one unit of work for the writer: the records of a page and/or a
// checkpoint update, applied in the same transaction. done, when set, is
// called after the transaction committed (or failed).
type job struct {
	kind  string
	rows  []row
	apply func(w *writeTx) error
	done  func(error)
}

// writeTx is a write transaction with its prepared statements.
type writeTx struct {
	ctx            context.Context
	tx             *sql.Tx
	account, now   string
	insert, same   *sql.Stmt
	update, window *sql.Stmt
	count          *sql.Stmt
	args           []any
	newN, updN     int
}

var (
	insertSQL = fmt.Sprintf(`INSERT INTO records (kind, account, svc_order_id, %s, first_synced_at, last_synced_at)
		VALUES (?, ?, ?%s, ?, ?) ON CONFLICT (kind, account, svc_order_id) DO NOTHING`,
		strings.Join(dataColumns, ", "), strings.Repeat(", ?", nData))
	sameSQL = fmt.Sprintf(`UPDATE records SET last_synced_at = ? WHERE kind = ? AND account = ? AND svc_order_id = ? AND %s`,
		strings.Join(dataColumns, " = ? AND ")+" = ?")
	updateSQL = fmt.Sprintf(`UPDATE records SET %s, last_synced_at = ? WHERE kind = ? AND account = ? AND svc_order_id = ?`,
		strings.Join(dataColumns, " = ?, ")+" = ?")
	windowSQL = `INSERT INTO sync_windows (kind, account, day, state, next_page, total_records, stored_records, walks, error, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (kind, account, day) DO UPDATE SET state = excluded.state, next_page = excluded.next_page,
			total_records = excluded.total_records, stored_records = excluded.stored_records,
			walks = excluded.walks, error = excluded.error, updated_at = excluded.updated_at`
	// countSQL counts the records of one day through the records_time index.
	countSQL = `SELECT count(*) FROM records WHERE kind = ? AND account = ? AND txn_date_time >= ? AND txn_date_time < ?`
)

// upsert stores one record and counts it as new, updated or unchanged:
// an insert that conflicts is followed by an update of last_synced_at that
// matches only identical content, and only then by a full update.
func (w *writeTx) upsert(kind string, r *row) error {
	a := w.args[:0]
	a = append(a, kind, w.account, r.id)
	for i := range r.vals {
		a = append(a, r.vals[i])
	}
	a = append(a, w.now, w.now)
	res, err := w.insert.ExecContext(w.ctx, a...)
	if err != nil {
		return fmt.Errorf("insert record %s: %w", r.id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		w.newN++
		w.args = a
		return nil
	}
	a = append(a[:0], w.now, kind, w.account, r.id)
	for i := range r.vals {
		a = append(a, r.vals[i])
	}
	res, err = w.same.ExecContext(w.ctx, a...)
	if err != nil {
		return fmt.Errorf("touch record %s: %w", r.id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		w.args = a
		return nil
	}
	a = a[:0]
	for i := range r.vals {
		a = append(a, r.vals[i])
	}
	a = append(a, w.now, kind, w.account, r.id)
	if _, err := w.update.ExecContext(w.ctx, a...); err != nil {
		return fmt.Errorf("update record %s: %w", r.id, err)
	}
	w.updN++
	w.args = a
	return nil
}

// checkpoint writes the state of a window.
func (w *writeTx) checkpoint(kind, day, state string, nextPage int, total, stored *int64, walks int, errText string) error {
	_, err := w.window.ExecContext(w.ctx, kind, w.account, day, state, nextPage, nullInt(total), nullInt(stored), walks, errText, w.now)
	if err != nil {
		return fmt.Errorf("checkpoint %s window %s: %w", kind, day, err)
	}
	return nil
}

// stored counts the records of kind on day.
func (w *writeTx) stored(kind, day string) (int64, error) {
	d, err := time.ParseInLocation(time.DateOnly, day, time.UTC)
	if err != nil {
		return 0, err
	}
	var n int64
	next := d.AddDate(0, 0, 1).Format(time.DateOnly)
	if err := w.count.QueryRowContext(w.ctx, kind, w.account, day, next).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s records of %s: %w", kind, day, err)
	}
	return n, nil
}

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// writer is the one goroutine that writes to the database during a Sync.
type writer struct {
	db      *store.DB
	account string
	now     func() time.Time
	jobs    chan job
	newN    int
	updN    int
}

// run applies jobs until the channel is closed, batching the jobs waiting
// into one transaction. It writes with a context that is not cancelled, so
// that pages already fetched when a run is interrupted are kept. After a
// failure it keeps draining (failing every job) and returns the first error.
func (wr *writer) run(ctx context.Context, onErr func(error)) error {
	ctx = context.WithoutCancel(ctx)
	var failed error
	batch := make([]job, 0, 64)
	for j := range wr.jobs {
		batch = append(batch[:0], j)
		rows := len(j.rows)
	more:
		for rows < maxBatchRows {
			select {
			case j, ok := <-wr.jobs:
				if !ok {
					break more
				}
				batch = append(batch, j)
				rows += len(j.rows)
			default:
				break more
			}
		}
		err := failed
		if err == nil {
			err = wr.commit(ctx, batch)
			if err != nil {
				failed = fmt.Errorf("write: %w", err)
				err = failed
				onErr(failed)
			}
		}
		for _, j := range batch {
			if j.done != nil {
				j.done(err)
			}
		}
	}
	return failed
}

func (wr *writer) commit(ctx context.Context, batch []job) error {
	var newN, updN int
	err := wr.db.Write(ctx, func(tx *sql.Tx) error {
		w := &writeTx{ctx: ctx, tx: tx, account: wr.account, now: store.FormatTime(wr.now()), args: make([]any, 0, nData+6)}
		var err error
		prep := func(q string) *sql.Stmt {
			if err != nil {
				return nil
			}
			var s *sql.Stmt
			s, err = tx.PrepareContext(ctx, q)
			return s
		}
		w.insert, w.same, w.update, w.window, w.count = prep(insertSQL), prep(sameSQL), prep(updateSQL), prep(windowSQL), prep(countSQL)
		defer func() {
			for _, s := range []*sql.Stmt{w.insert, w.same, w.update, w.window, w.count} {
				if s != nil {
					s.Close()
				}
			}
		}()
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		for _, j := range batch {
			for i := range j.rows {
				if err := w.upsert(j.kind, &j.rows[i]); err != nil {
					return err
				}
			}
			if j.apply != nil {
				if err := j.apply(w); err != nil {
					return err
				}
			}
		}
		newN, updN = w.newN, w.updN
		return nil
	})
	if err != nil {
		return err
	}
	wr.newN += newN
	wr.updN += updN
	return nil
}
