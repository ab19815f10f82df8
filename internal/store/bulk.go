package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Bulk run states (bulk_runs.state).
const (
	BulkRunning = "running" // a process is working on it, or died doing so
	BulkStopped = "stopped" // interrupted or stopped; resumable
	BulkDone    = "done"    // every row was sent (some may still be pending)
)

// Bulk row states (bulk_rows.state). A row of the input with no journal row
// was not sent (yet).
const (
	BulkSending = "sending" // journaled before the call; outcome not recorded yet
	BulkSuccess = "success"
	BulkFailed  = "failed"
	BulkPending = "pending" // outcome unknown: looked up, never re-sent blindly
	BulkUnsent  = "unsent"  // returned to unsent: the service never executed it
	// BulkQueued is a row of a shared run (PostgreSQL) seeded before any
	// claim (SeedBulkRows): unsent, never claimed. The journal's readers
	// (EachBulkRow, EachBulkRowState …) do not show queued rows: a row
	// with no journal row and a queued row are the same to them.
	BulkQueued = "queued"
)

// BulkRun is one bulk run of an input file (bulk_runs).
type BulkRun struct {
	ID          string
	Op          string
	InputPath   string
	InputSHA256 string
	Settings    string // JSON, the run's options as its owner encodes them
	TotalRows   int
	State       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// BulkRow is one journal row of a bulk run (bulk_rows).
type BulkRow struct {
	Line       int
	Ref        string
	State      string
	StatusCode string
	Status     string
	OrderID    string
	PoolAmount string
	Response   []byte // redacted envelope JSON
	Error      string
	SentAt     time.Time
	Attempts   int    // times journaled 'sending'; above 1 after a return to unsent
	Worker     string // the worker that claimed the row ("" for a run held by one process)
}

// UnfinishedBulkRunError is CreateBulkRun's refusal of a run of an
// operation over an input whose unfinished run (another process created it
// a moment before) exists: that run is to be continued, not doubled.
type UnfinishedBulkRunError struct {
	ID string // the unfinished run
}

func (e *UnfinishedBulkRunError) Error() string {
	return fmt.Sprintf("run %s of this file and operation is unfinished", e.ID)
}

// CreateBulkRun stores a new run, created and updated at r.CreatedAt, and,
// when lease is not nil, its lease, in one transaction. A taken id is an
// error; an unfinished run (not BulkDone) of the same operation and input
// SHA-256 is an *UnfinishedBulkRunError. Runs are created one at a time
// across processes (under the dialect's lock), so two
// processes starting the same file at once make one run.
func (db *DB) CreateBulkRun(ctx context.Context, r BulkRun, lease *BulkLease) error {
	at := FormatTime(r.CreatedAt)
	return db.Write(ctx, func(tx *sql.Tx) error {
		if err := db.dialect.lock(ctx, tx, bulkCreateLock); err != nil {
			return fmt.Errorf("create bulk run %s: %w", r.ID, err)
		}
		var other string
		err := tx.QueryRowContext(ctx, `SELECT id FROM bulk_runs WHERE op = ? AND input_sha256 = ? AND state != ? LIMIT 1`,
			r.Op, r.InputSHA256, BulkDone).Scan(&other)
		switch {
		case err == nil:
			return &UnfinishedBulkRunError{ID: other}
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("create bulk run %s: %w", r.ID, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO bulk_runs (id, op, input_path, input_sha256, settings, total_rows, state, created_at, updated_at,
				seq, debited, debit_max)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(max(seq), 0) + 1 FROM bulk_runs), '0', '0')`,
			r.ID, r.Op, r.InputPath, r.InputSHA256, r.Settings, r.TotalRows, r.State, at, at)
		if err != nil {
			return fmt.Errorf("create bulk run %s: %w", r.ID, err)
		}
		if lease != nil {
			lease.RunID = r.ID
			return db.putBulkLease(ctx, tx, *lease)
		}
		return nil
	})
}

// BulkRunExists reports whether a run has this id.
func (db *DB) BulkRunExists(ctx context.Context, id string) (bool, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM bulk_runs WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up bulk run id %s: %w", id, err)
	}
	return n > 0, nil
}

const bulkRunColumns = `id, op, input_path, input_sha256, settings, total_rows, state, created_at, updated_at`

func scanBulkRun(row interface{ Scan(...any) error }) (*BulkRun, error) {
	var r BulkRun
	var created, updated string
	if err := row.Scan(&r.ID, &r.Op, &r.InputPath, &r.InputSHA256, &r.Settings, &r.TotalRows, &r.State, &created, &updated); err != nil {
		return nil, err
	}
	var err error
	if r.CreatedAt, err = time.Parse(TimeLayout, created); err != nil {
		return nil, fmt.Errorf("bulk run %s: created_at: %w", r.ID, err)
	}
	if r.UpdatedAt, err = time.Parse(TimeLayout, updated); err != nil {
		return nil, fmt.Errorf("bulk run %s: updated_at: %w", r.ID, err)
	}
	return &r, nil
}

// oneBulkRun returns the run the query selects, or nil when there is none.
func (db *DB) oneBulkRun(ctx context.Context, where string, args ...any) (*BulkRun, error) {
	r, err := scanBulkRun(db.QueryRowContext(ctx, `SELECT `+bulkRunColumns+` FROM bulk_runs `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

// BulkRun returns the run with this id, or nil when there is none.
func (db *DB) BulkRun(ctx context.Context, id string) (*BulkRun, error) {
	r, err := db.oneBulkRun(ctx, `WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("load bulk run %s: %w", id, err)
	}
	return r, nil
}

// LatestBulkRun returns the newest run of op over an input with this
// SHA-256, or nil when there is none.
func (db *DB) LatestBulkRun(ctx context.Context, op, sha string) (*BulkRun, error) {
	r, err := db.oneBulkRun(ctx, `WHERE op = ? AND input_sha256 = ? ORDER BY created_at DESC, seq DESC LIMIT 1`, op, sha)
	if err != nil {
		return nil, fmt.Errorf("find bulk run of this file: %w", err)
	}
	return r, nil
}

// LatestBulkRunOfPath returns the newest run of op whose input had this
// path, whatever its content then, or nil when there is none.
func (db *DB) LatestBulkRunOfPath(ctx context.Context, op, path string) (*BulkRun, error) {
	r, err := db.oneBulkRun(ctx, `WHERE op = ? AND input_path = ? ORDER BY created_at DESC, seq DESC LIMIT 1`, op, path)
	if err != nil {
		return nil, fmt.Errorf("find bulk run of this file: %w", err)
	}
	return r, nil
}

// BulkRuns lists at most limit runs, the newest first.
func (db *DB) BulkRuns(ctx context.Context, limit int) ([]BulkRun, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+bulkRunColumns+` FROM bulk_runs ORDER BY created_at DESC, seq DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list bulk runs: %w", err)
	}
	defer rows.Close()
	var out []BulkRun
	for rows.Next() {
		r, err := scanBulkRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list bulk runs: %w", err)
		}
		out = append(out, *r)
	}
	return out, rows.Err()
}

// SetBulkRunState records a run's state, updated at at.
func (db *DB) SetBulkRunState(ctx context.Context, id, state string, at time.Time) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE bulk_runs SET state = ?, updated_at = ? WHERE id = ?`, state, FormatTime(at), id)
		return err
	})
}

// ReopenBulkRun marks a run in state BulkDone BulkStopped (rows are to be
// sent again), updated at at. A run in another state is left alone.
func (db *DB) ReopenBulkRun(ctx context.Context, id string, at time.Time) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE bulk_runs SET state = ?, updated_at = ? WHERE id = ? AND state = ?`,
			BulkStopped, FormatTime(at), id, BulkDone)
		return err
	})
}

// SetBulkRunSettings stores a run's settings (JSON), updated at at.
func (db *DB) SetBulkRunSettings(ctx context.Context, id, settings string, at time.Time) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE bulk_runs SET settings = ?, updated_at = ? WHERE id = ?`, settings, FormatTime(at), id)
		return err
	})
}

// PendSendingBulkRows turns a run's rows left BulkSending (by a process
// that died during their call) into BulkPending with error reason, and
// returns how many there were.
func (db *DB) PendSendingBulkRows(ctx context.Context, runID, reason string) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bulk_rows SET state = ?, error = ? WHERE run_id = ? AND state = ?`,
			BulkPending, reason, runID, BulkSending)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// EachBulkRowState calls fn with the state and pool amount of each journal
// row of the run, in no particular order.
func (db *DB) EachBulkRowState(ctx context.Context, runID string, fn func(state, poolAmount string) error) error {
	rows, err := db.QueryContext(ctx, `SELECT state, pool_amount FROM bulk_rows WHERE run_id = ? AND state <> ?`, runID, BulkQueued)
	if err != nil {
		return fmt.Errorf("count rows of bulk run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var state, amount string
		if err := rows.Scan(&state, &amount); err != nil {
			return fmt.Errorf("count rows of bulk run %s: %w", runID, err)
		}
		if err := fn(state, amount); err != nil {
			return err
		}
	}
	return rows.Err()
}

// EachBulkRow calls fn for each journal row of the run in line order.
func (db *DB) EachBulkRow(ctx context.Context, runID string, fn func(BulkRow) error) error {
	return db.eachBulkRow(ctx, runID, "", fn)
}

// EachBulkRowToCheck calls fn, in line order, for each journal row of the
// run that waits for a transaction-status look-up: every BulkPending row,
// and every BulkSending row sent before sendingBefore (its process died).
func (db *DB) EachBulkRowToCheck(ctx context.Context, runID string, sendingBefore time.Time, fn func(BulkRow) error) error {
	return db.eachBulkRow(ctx, runID, " AND (state = ? OR state = ? AND sent_at < ?)", fn,
		BulkPending, BulkSending, FormatTime(sendingBefore))
}

func (db *DB) eachBulkRow(ctx context.Context, runID string, where string, fn func(BulkRow) error, args ...any) error {
	q := `SELECT line, external_ref, state, statuscode, status, orderid, pool_amount, response, error, sent_at, attempts, worker
		FROM bulk_rows WHERE run_id = ? AND state <> ?` + where + ` ORDER BY line`
	rows, err := db.QueryContext(ctx, q, append([]any{runID, BulkQueued}, args...)...)
	if err != nil {
		return fmt.Errorf("read journal of bulk run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var e BulkRow
		var resp sql.NullString
		var sent string
		if err := rows.Scan(&e.Line, &e.Ref, &e.State, &e.StatusCode, &e.Status, &e.OrderID, &e.PoolAmount, &resp, &e.Error, &sent, &e.Attempts, &e.Worker); err != nil {
			return fmt.Errorf("read journal of bulk run %s: %w", runID, err)
		}
		if resp.Valid {
			e.Response = []byte(resp.String)
		}
		if e.SentAt, err = time.Parse(TimeLayout, sent); err != nil {
			return fmt.Errorf("read journal of bulk run %s: line %d: sent_at: %w", runID, e.Line, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// The row writes of a run being sent (ClaimBulkRow, UnclaimBulkRow,
// FinishBulkRow, StepBulkRows) are committed in batches shared by every
// caller (group commit, see Batch): each returns once its write is
// committed.

// ClaimBulkRow journals a row as BulkSending, sent at at, before its call:
// a new journal row, or a row returned to BulkUnsent (or seeded
// BulkQueued) with the same externalRef (its attempts count goes up). It returns the row's attempt
// number (1 for a first call), or 0 when the row is journaled already in
// another state (another process claimed it).
func (db *DB) ClaimBulkRow(ctx context.Context, runID string, line int, ref string, at time.Time) (int, error) {
	_, attempt, err := db.StepBulkRows(ctx, runID, BulkStep{Next: &BulkNext{Line: line, Ref: ref}, At: at})
	return attempt, err
}

// reclaimRowSQL journals row ?5 of run ?4 as state ?1 sent at ?2, attempts
// one up, when it is in state ?6 or ?7 with externalRef ?3.
const reclaimRowSQL = `UPDATE bulk_rows SET state = ?, sent_at = ?, attempts = attempts + 1, done_at = NULL
	WHERE external_ref = ? AND run_id = ? AND line = ? AND state IN (?, ?)
	RETURNING attempts`

// claimRowSQL is the INSERT of a new journal row; a row journaled already
// is left as it is (an INSERT OR IGNORE on SQLite, which needs no
// statement journal, unlike an upsert).
func (db *DB) claimRowSQL() string {
	return db.dialect.insertIgnore("bulk_rows", "run_id, line, external_ref, state, sent_at, attempts", "(?, ?, ?, ?, ?, 1)")
}

// claimBulkRow is ClaimBulkRow in tx: a new row (attempt 1), else a row
// returned to unsent or seeded queued with the same externalRef.
func (db *DB) claimBulkRow(ctx context.Context, tx *sql.Tx, runID string, next BulkNext, at string) (int, error) {
	res, err := db.journal.exec(ctx, tx, db.claimRowSQL(), runID, next.Line, next.Ref, BulkSending, at)
	if err != nil {
		return 0, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return int(n), err
	}
	var attempt int
	err = db.journal.queryRow(ctx, tx, reclaimRowSQL, BulkSending, at, next.Ref, runID, next.Line, BulkUnsent, BulkQueued).Scan(&attempt)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return attempt, err
}

// UnclaimBulkRow undoes ClaimBulkRow for a request that never left: a first
// attempt's journal row is deleted, a re-send goes back to BulkUnsent.
func (db *DB) UnclaimBulkRow(ctx context.Context, runID string, line int) error {
	return db.journal.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM bulk_rows WHERE run_id = ? AND line = ? AND state = ? AND attempts = 1`,
			runID, line, BulkSending)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE bulk_rows SET state = ?, attempts = attempts - 1 WHERE run_id = ? AND line = ? AND state = ?`,
			BulkUnsent, runID, line, BulkSending)
		return err
	})
}

// FinishBulkRow records the outcome of row r.Line's call (state,
// statuscode, status, order id, pool amount, response, error), done at at.
func (db *DB) FinishBulkRow(ctx context.Context, runID string, r BulkRow, at time.Time) error {
	_, _, err := db.StepBulkRows(ctx, runID, BulkStep{Done: &r, At: at})
	return err
}

// finishRowSQL records the outcome of a row's call; finishClaimedRowSQL
// while the row is in state ?11 and its worker's, ?12.
const (
	finishRowSQL = `UPDATE bulk_rows SET state = ?, statuscode = ?, status = ?, orderid = ?, pool_amount = ?,
	response = ?, error = ?, done_at = ? WHERE run_id = ? AND line = ?`
	finishClaimedRowSQL = finishRowSQL + ` AND state = ? AND worker = ?`
)

// finishBulkRow records the outcome r of a row's call, done at at: while
// the row is worker's and 'sending' when worker is not "" (a worker of a
// shared run), else in any state. It returns whether the row was
// recorded.
func (db *DB) finishBulkRow(ctx context.Context, tx *sql.Tx, runID, worker string, r BulkRow, at string) (bool, error) {
	var resp any
	if r.Response != nil {
		resp = string(r.Response)
	}
	q := finishRowSQL
	args := []any{r.State, r.StatusCode, r.Status, r.OrderID, r.PoolAmount, resp, r.Error, at, runID, r.Line}
	if worker != "" {
		q = finishClaimedRowSQL
		args = append(args, BulkSending, worker)
	}
	res, err := db.journal.exec(ctx, tx, q, args...)
	if err != nil {
		return false, err
	}
	if worker != "" {
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return false, err
		}
	}
	if r.State == BulkSuccess {
		db.journal.debit(runID, r.PoolAmount)
	}
	return true, nil
}

// BulkStep is what a sender journals in one transaction between two of its
// calls (StepBulkRows): the outcome of the row it called, with the calls
// table's records of that call, and the claim of the next row it calls —
// one commit, shared with other senders', instead of three.
type BulkStep struct {
	Done *BulkRow // the outcome of row Done.Line's call (FinishBulkRow), or nil
	// Worker, for a worker of a shared run, records Done only while the
	// row is still its own and 'sending' (FinishClaimedBulkRow).
	Worker string
	Calls  *DeferredCalls // the records of Done's call that DeferCalls kept, or nil
	Next   *BulkNext      // the row to journal 'sending' before its call (ClaimBulkRow), or nil
	At     time.Time      // when Done ended and Next is sent
}

// BulkNext is a row to claim: its line and externalRef.
type BulkNext struct {
	Line int
	Ref  string
}

// StepBulkRows journals s in one transaction (shared with other writers',
// see Batch) and returns once it is committed: whether s.Done was recorded
// (false when it was no longer s.Worker's), and s.Next's attempt number
// (ClaimBulkRow's). The calls are inserted whether or not Done was
// recorded: the call was made.
func (db *DB) StepBulkRows(ctx context.Context, runID string, s BulkStep) (recorded bool, attempt int, err error) {
	at := FormatTime(s.At)
	if _, err := db.journal.prepared(ctx, append(db.keptCallSQL(), db.claimRowSQL(), reclaimRowSQL, finishRowSQL,
		finishClaimedRowSQL, db.debitsSQL(), addDebitSQL)...); err != nil {
		return false, 0, err
	}
	if s.Calls != nil {
		s.Calls.made() // here, not in the shared transaction
	}
	var stored []*recon.LineBlock
	err = db.journal.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		recorded, attempt = false, 0
		for _, b := range stored {
			b.ID = 0 // stored by an attempt the database aborted (Batch.commit runs it again)
		}
		stored = nil
		if s.Calls != nil {
			if stored, err = s.Calls.insert(ctx, db, tx); err != nil {
				return fmt.Errorf("record the call in the calls table: %w", err)
			}
		}
		if s.Done != nil {
			if recorded, err = db.finishBulkRow(ctx, tx, runID, s.Worker, *s.Done, at); err != nil {
				return err
			}
		}
		if s.Next != nil {
			attempt, err = db.claimBulkRow(ctx, tx, runID, *s.Next, at)
		}
		return err
	})
	if err != nil {
		for _, b := range stored {
			b.ID = 0 // rolled back
		}
	} else if s.Calls != nil {
		s.Calls.committed(db)
	}
	return recorded, attempt, err
}

// DeferredCalls are the calls table's records of one call made under
// DeferCalls, kept (Defer) instead of written, for the journal write of
// that call's outcome to make and insert in its own transaction
// (BulkStep.Calls). It is safe for concurrent use.
type DeferredCalls struct {
	mu    sync.Mutex
	at    time.Time
	later []func() ([]recon.Call, []ImportError)
	calls []recon.Call
	bad   []ImportError
}

type deferredKey struct{}

// DeferCalls returns a context under which the recorder of the calls table
// (calllog.Recorder) keeps a call's records in the DeferredCalls returned
// instead of writing them.
func DeferCalls(ctx context.Context) (context.Context, *DeferredCalls) {
	d := &DeferredCalls{}
	return context.WithValue(ctx, deferredKey{}, d), d
}

// DeferredCallsOf returns the DeferredCalls of a context made by
// DeferCalls, or nil.
func DeferredCallsOf(ctx context.Context) *DeferredCalls {
	d, _ := ctx.Value(deferredKey{}).(*DeferredCalls)
	return d
}

// Defer keeps fn, which returns calls and bad lines as InsertCalls
// would store them, imported at at. The journal write that stores them
// calls it (once) before its transaction, on its own goroutine: the
// records are made off the path of the caller's next call.
func (d *DeferredCalls) Defer(at time.Time, fn func() ([]recon.Call, []ImportError)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at = at
	d.later = append(d.later, fn)
}

// made makes the records kept by Defer.
func (d *DeferredCalls) made() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, fn := range d.later {
		calls, bad := fn()
		d.calls = append(d.calls, calls...)
		d.bad = append(d.bad, bad...)
	}
	d.later = nil
}

// insert stores the kept calls in tx (made first).
func (d *DeferredCalls) insert(ctx context.Context, db *DB, tx *sql.Tx) ([]*recon.LineBlock, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.calls) == 0 && len(d.bad) == 0 {
		return nil, nil
	}
	_, stored, err := db.insertCalls(ctx, tx, FormatTime(d.at), d.calls, d.bad)
	return stored, err
}

// committed tells db the kept calls are committed (knowAccounts).
func (d *DeferredCalls) committed(db *DB) {
	d.mu.Lock()
	defer d.mu.Unlock()
	db.knowAccounts(d.calls)
}

// CheckedBulkRow records a failed look-up of a row still in state: its
// checked_at becomes at.
func (db *DB) CheckedBulkRow(ctx context.Context, runID string, line int, state string, at time.Time) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE bulk_rows SET checked_at = ? WHERE run_id = ? AND line = ? AND state = ?`,
			FormatTime(at), runID, line, state)
		return err
	})
}

// ResolveBulkRow records the answer of a look-up of row r.Line, if the row
// is still in state from: its state, statuscode, status, order id, pool
// amount and error become r's, checked at at (and done at at when the new
// state is BulkSuccess or BulkFailed).
func (db *DB) ResolveBulkRow(ctx context.Context, runID, from string, r BulkRow, at time.Time) error {
	checked := FormatTime(at)
	return db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bulk_rows SET state = ?, statuscode = ?, status = ?, orderid = ?, pool_amount = ?,
			error = ?, checked_at = ?, done_at = CASE WHEN ? IN (?, ?) THEN ? ELSE done_at END
			WHERE run_id = ? AND line = ? AND state = ?`,
			r.State, r.StatusCode, r.Status, r.OrderID, r.PoolAmount, r.Error, checked, r.State, BulkSuccess, BulkFailed, checked,
			runID, r.Line, from)
		if err != nil || r.State != BulkSuccess {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		return db.addDebit(ctx, tx, runID, r.PoolAmount)
	})
}

// BulkLease is the lease of the process holding a bulk run (bulk_leases):
// who (Holder, unique per process and lease; Host and PID, to tell a dead
// holder on this host), since when, and its last heartbeat. Times are the
// database's clock: Since and Heartbeat are written as the database's time
// when zero, and Now is the database's time when the lease was read, so
// that a heartbeat's age never depends on a host's clock.
type BulkLease struct {
	RunID     string
	Holder    string
	Host      string
	PID       int
	Since     time.Time
	Heartbeat time.Time
	Now       time.Time // the database's clock when read (zero for a lease not read from the database)
}

// stamp is t as a time argument of a lease's write: "" (the database's
// clock, clockOr) when t is zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return FormatTime(t)
}

// clockOr is the SQL of a time argument written by stamp: the argument, or
// the database's clock when it is "".
func (db *DB) clockOr() string { return `COALESCE(NULLIF(?, ''), ` + db.dialect.now() + `)` }

func (db *DB) putBulkLease(ctx context.Context, tx *sql.Tx, l BulkLease) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO bulk_leases (run_id, holder, host, pid, since, heartbeat)
		VALUES (?, ?, ?, ?, `+db.clockOr()+`, `+db.clockOr()+`)
		ON CONFLICT (run_id) DO UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,
			since = excluded.since, heartbeat = excluded.heartbeat`,
		l.RunID, l.Holder, l.Host, l.PID, stamp(l.Since), stamp(l.Heartbeat))
	if err != nil {
		return fmt.Errorf("take lease of bulk run %s: %w", l.RunID, err)
	}
	return nil
}

func scanBulkLease(row interface{ Scan(...any) error }) (*BulkLease, error) {
	var l BulkLease
	var since, beat, now string
	if err := row.Scan(&l.RunID, &l.Holder, &l.Host, &l.PID, &since, &beat, &now); err != nil {
		return nil, err
	}
	// A time that does not parse stays zero: such a lease is older than any
	// time-out.
	l.Since, _ = time.Parse(TimeLayout, since)
	l.Heartbeat, _ = time.Parse(TimeLayout, beat)
	l.Now, _ = time.Parse(TimeLayout, now)
	return &l, nil
}

// leaseColumns are the columns scanBulkLease reads from bulk_leases or
// bulk_workers: the lease's, and the database's clock.
func (db *DB) leaseColumns(holder string) string {
	return `run_id, ` + holder + `, host, pid, since, heartbeat, ` + db.dialect.now()
}

// AcquireBulkLease takes the lease of run l.RunID for l.Holder (since
// l.Since, heartbeat l.Heartbeat; the database's clock where zero), in one
// write transaction. When another
// holder has it, stale is asked about that lease: true takes it over.
// acquired says whether l holds the lease now; other is the lease of the
// other holder (the one refusing l, or the one taken over), nil when there
// was none. A lease of l.Holder itself is renewed.
func (db *DB) AcquireBulkLease(ctx context.Context, l BulkLease, stale func(BulkLease) bool) (acquired bool, other *BulkLease, err error) {
	err = db.Write(ctx, func(tx *sql.Tx) error {
		acquired, other = false, nil
		cur, err := scanBulkLease(tx.QueryRowContext(ctx, `SELECT `+db.leaseColumns("holder")+` FROM bulk_leases WHERE run_id = ?`, l.RunID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("read lease of bulk run %s: %w", l.RunID, err)
		case cur.Holder == l.Holder:
			l.Since = cur.Since
		default:
			other = cur
			if !stale(*cur) {
				return nil
			}
		}
		acquired = true
		return db.putBulkLease(ctx, tx, l)
	})
	return acquired, other, err
}

// RenewBulkLease records holder's heartbeat on run runID at at (the
// database's clock when zero); false when holder holds that lease no more
// (it was taken over).
func (db *DB) RenewBulkLease(ctx context.Context, runID, holder string, at time.Time) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bulk_leases SET heartbeat = `+db.clockOr()+` WHERE run_id = ? AND holder = ?`,
			stamp(at), runID, holder)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("renew lease of bulk run %s: %w", runID, err)
	}
	return n == 1, nil
}

// ReleaseBulkLease gives up holder's lease on run runID (nothing when
// another holder has it).
func (db *DB) ReleaseBulkLease(ctx context.Context, runID, holder string) error {
	err := db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM bulk_leases WHERE run_id = ? AND holder = ?`, runID, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("release lease of bulk run %s: %w", runID, err)
	}
	return nil
}

// BulkRunLease returns the lease of run runID, or nil when no process
// holds it.
func (db *DB) BulkRunLease(ctx context.Context, runID string) (*BulkLease, error) {
	l, err := scanBulkLease(db.QueryRowContext(ctx, `SELECT `+db.leaseColumns("holder")+` FROM bulk_leases WHERE run_id = ?`, runID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lease of bulk run %s: %w", runID, err)
	}
	return l, nil
}
