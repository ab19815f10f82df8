package bulk

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/store"
)

// Run states (bulk_runs.state).
const (
	RunRunning = "running" // a process is working on it, or died doing so
	RunStopped = "stopped" // interrupted, stopped by --max-debit or an error; resumable
	RunDone    = "done"    // every row was sent (some may still be pending)
)

// Row states (bulk_rows.state). A row of the file with no journal row was
// not sent (yet): OutcomeUnsent in the results.
const (
	StateSending = "sending" // journaled before the call; outcome not recorded yet
	StateSuccess = "success"
	StateFailed  = "failed"
	StatePending = "pending" // outcome unknown: resolve with Recheck, never re-send blindly
	// StateUnsent is a row Recheck returned to unsent: the transaction-status
	// look-up said the service never executed it (svcapi.TxnNotFound). The
	// next Execute sends it again with the same externalRef. Its journal row
	// stays as the audit trail (attempts, statuscode SNA, error).
	StateUnsent = OutcomeUnsent
)

// OutcomeUnsent is the results outcome of a row that was never sent.
const OutcomeUnsent = "unsent"

// Settings are the options a run was started with, kept in
// bulk_runs.settings so that a resume behaves the same.
type Settings struct {
	Sets        Sets    `json:"set,omitempty"`
	MaxDebit    string  `json:"maxDebit,omitempty"` // exact decimal; "" for no limit
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	Out         string  `json:"out,omitempty"`
	XLSX        bool    `json:"xlsx,omitempty"`
}

// Run is one bulk run of an input file (bulk_runs).
type Run struct {
	ID          string
	Op          string
	InputPath   string
	InputSHA256 string
	Settings    Settings
	TotalRows   int
	State       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// ErrRunNotFound is returned for an unknown run id.
var ErrRunNotFound = errors.New("no such bulk run")

// runAlphabet has no 0/O, 1/I/L or U, so ids read back unambiguously.
const runAlphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewRunID returns a random 5-character alphanumeric run id.
func NewRunID() string {
	b := make([]byte, 5)
	rand.Read(b)
	for i := range b {
		b[i] = runAlphabet[int(b[i])%len(runAlphabet)]
	}
	return string(b)
}

// CreateRun stores a new run in state running. A taken id is an error.
func CreateRun(ctx context.Context, db *store.DB, r *Run) error {
	settings, err := json.Marshal(r.Settings)
	if err != nil {
		return err
	}
	now := store.FormatTime(time.Now())
	r.State = RunRunning
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO bulk_runs (id, op, input_path, input_sha256, settings, total_rows, state, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.Op, r.InputPath, r.InputSHA256, string(settings), r.TotalRows, r.State, now, now)
		if err != nil {
			return fmt.Errorf("create bulk run %s: %w", r.ID, err)
		}
		return nil
	})
}

// UniqueRunID returns a NewRunID not used in db yet.
func UniqueRunID(ctx context.Context, db *store.DB) (string, error) {
	for range 20 {
		id := NewRunID()
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM bulk_runs WHERE id = ?`, id).Scan(&n); err != nil {
			return "", fmt.Errorf("pick run id: %w", err)
		}
		if n == 0 {
			return id, nil
		}
	}
	return "", errors.New("pick run id: no free id after 20 tries")
}

const runColumns = `id, op, input_path, input_sha256, settings, total_rows, state, created_at, updated_at`

func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var settings, created, updated string
	if err := row.Scan(&r.ID, &r.Op, &r.InputPath, &r.InputSHA256, &settings, &r.TotalRows, &r.State, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(settings), &r.Settings); err != nil {
		return nil, fmt.Errorf("bulk run %s: settings: %w", r.ID, err)
	}
	r.CreatedAt, _ = time.Parse(store.TimeLayout, created)
	r.UpdatedAt, _ = time.Parse(store.TimeLayout, updated)
	return &r, nil
}

// LoadRun returns the run with this id, or an error matching ErrRunNotFound.
func LoadRun(ctx context.Context, db *store.DB, id string) (*Run, error) {
	r, err := scanRun(db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM bulk_runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("bulk run %q: %w", id, ErrRunNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load bulk run %s: %w", id, err)
	}
	return r, nil
}

// LatestRun returns the newest run of op over an input with this SHA-256,
// or nil when there is none.
func LatestRun(ctx context.Context, db *store.DB, op, sha string) (*Run, error) {
	r, err := scanRun(db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM bulk_runs
		WHERE op = ? AND input_sha256 = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`, op, sha))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find bulk run of this file: %w", err)
	}
	return r, nil
}

// LatestRunOfPath returns the newest run of op whose input file had this
// (absolute) path, whatever its content then, or nil.
func LatestRunOfPath(ctx context.Context, db *store.DB, op, path string) (*Run, error) {
	r, err := scanRun(db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM bulk_runs
		WHERE op = ? AND input_path = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`, op, path))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find bulk run of this file: %w", err)
	}
	return r, nil
}

// Runs lists the newest runs first.
func Runs(ctx context.Context, db *store.DB, limit int) ([]*Run, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+runColumns+` FROM bulk_runs ORDER BY created_at DESC, rowid DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list bulk runs: %w", err)
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SetState records a run's state.
func SetState(ctx context.Context, db *store.DB, id, state string) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE bulk_runs SET state = ?, updated_at = ? WHERE id = ?`,
			state, store.FormatTime(time.Now()), id)
		return err
	})
}

// UpdateSettings stores a run's settings (a resume may change concurrency,
// rate, --max-debit and the outputs).
func UpdateSettings(ctx context.Context, db *store.DB, id string, s Settings) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE bulk_runs SET settings = ?, updated_at = ? WHERE id = ?`,
			string(b), store.FormatTime(time.Now()), id)
		return err
	})
}

// ReasonDiedSending is the error recorded on a row that was found 'sending'
// when its run resumed.
const ReasonDiedSending = "the process stopped during the call; outcome unknown, resolve with bulkrun recheck"

// recoverSending turns the rows left 'sending' by a process that died into
// 'pending'. It returns how many there were.
func recoverSending(ctx context.Context, db *store.DB, runID string) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bulk_rows SET state = ?, error = ? WHERE run_id = ? AND state = ?`,
			StatePending, ReasonDiedSending, runID, StateSending)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bulk run %s: mark interrupted rows pending: %w", runID, err)
	}
	return int(n), nil
}

// Counts are the rows of a run per state, and its pool debits.
type Counts struct {
	Total    int // rows in the input
	Sending  int
	Success  int
	Failed   int
	Pending  int
	Unsent   int             // rows to send: never journaled, or returned to unsent by Recheck
	Returned int             // of Unsent, rows Recheck returned to unsent (not executed by the service)
	Debit    decimal.Decimal // sum of the pool amounts of successful rows
	MaxDebit decimal.Decimal // the largest single debit
}

// Journaled is the number of rows sent or being sent: rows with a journal
// row, except those Recheck returned to unsent.
func (c Counts) Journaled() int { return c.Sending + c.Success + c.Failed + c.Pending }

// CountRows counts a run's rows per state and sums its debits.
func CountRows(ctx context.Context, db *store.DB, run *Run) (Counts, error) {
	c := Counts{Total: run.TotalRows}
	rows, err := db.QueryContext(ctx, `SELECT state, pool_amount FROM bulk_rows WHERE run_id = ?`, run.ID)
	if err != nil {
		return c, fmt.Errorf("count rows of bulk run %s: %w", run.ID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var state, amount string
		if err := rows.Scan(&state, &amount); err != nil {
			return c, err
		}
		switch state {
		case StateSending:
			c.Sending++
		case StateSuccess:
			c.Success++
		case StateFailed:
			c.Failed++
		case StatePending:
			c.Pending++
		case StateUnsent:
			c.Returned++
		}
		if state == StateSuccess && amount != "" {
			if d, err := decimal.NewFromString(amount); err == nil {
				c.Debit = c.Debit.Add(d)
				if d.GreaterThan(c.MaxDebit) {
					c.MaxDebit = d
				}
			}
		}
	}
	c.Unsent = c.Total - c.Journaled()
	return c, rows.Err()
}

// Entry is one journal row (bulk_rows).
type Entry struct {
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
	Attempts   int // times journaled 'sending'; above 1 after Recheck returned it to unsent
}

// entries calls fn for each journal row of the run in line order.
func entries(ctx context.Context, db *store.DB, runID string, where string, fn func(Entry) error, args ...any) error {
	q := `SELECT line, external_ref, state, statuscode, status, orderid, pool_amount, response, error, sent_at, attempts
		FROM bulk_rows WHERE run_id = ?` + where + ` ORDER BY line`
	rows, err := db.QueryContext(ctx, q, append([]any{runID}, args...)...)
	if err != nil {
		return fmt.Errorf("read journal of bulk run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var e Entry
		var resp sql.NullString
		var sent string
		if err := rows.Scan(&e.Line, &e.Ref, &e.State, &e.StatusCode, &e.Status, &e.OrderID, &e.PoolAmount, &resp, &e.Error, &sent, &e.Attempts); err != nil {
			return err
		}
		if resp.Valid {
			e.Response = []byte(resp.String)
		}
		e.SentAt, _ = time.Parse(store.TimeLayout, sent)
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Entries returns a run's journal rows in line order.
func Entries(ctx context.Context, db *store.DB, runID string) ([]Entry, error) {
	var out []Entry
	err := entries(ctx, db, runID, "", func(e Entry) error { out = append(out, e); return nil })
	return out, err
}
