package bulk

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Journal is where bulk keeps its runs (bulk_runs) and their journal rows
// (bulk_rows). *store.DB implements it.
//
// StepBulkRows and UnclaimBulkRow return only once their write is
// committed (they may share the commit with other rows' writes): a row is
// 'sending' in the database before its call.
type Journal interface {
	CreateBulkRun(ctx context.Context, r store.BulkRun, lease *store.BulkLease) error
	BulkRunExists(ctx context.Context, id string) (bool, error)
	BulkRun(ctx context.Context, id string) (*store.BulkRun, error)
	LatestBulkRun(ctx context.Context, op, sha string) (*store.BulkRun, error)
	LatestBulkRunOfPath(ctx context.Context, op, path string) (*store.BulkRun, error)
	BulkRuns(ctx context.Context, limit int) ([]store.BulkRun, error)
	SetBulkRunState(ctx context.Context, id, state string, at time.Time) error
	ReopenBulkRun(ctx context.Context, id string, at time.Time) error
	SetBulkRunSettings(ctx context.Context, id, settings string, at time.Time) error

	PendSendingBulkRows(ctx context.Context, runID, reason string) (int, error)
	EachBulkRowState(ctx context.Context, runID string, fn func(state, poolAmount string) error) error
	EachBulkRow(ctx context.Context, runID string, fn func(store.BulkRow) error) error
	EachBulkRowToCheck(ctx context.Context, runID string, sendingBefore time.Time, fn func(store.BulkRow) error) error
	UnclaimBulkRow(ctx context.Context, runID string, line int) error
	StepBulkRows(ctx context.Context, runID string, s store.BulkStep) (recorded bool, attempt int, err error)
	CheckedBulkRow(ctx context.Context, runID string, line int, state string, at time.Time) error
	ResolveBulkRow(ctx context.Context, runID, from string, r store.BulkRow, at time.Time) error

	// Shared runs (several workers, PostgreSQL): see store.DB and Runner.Lease.
	SeedBulkRows(ctx context.Context, runID string, rows []store.BulkSeed) (int, error)
	BulkRowsJournaled(ctx context.Context, runID string) (int, error)
	ClaimBulkRows(ctx context.Context, c store.BulkClaim) ([]store.BulkClaimed, string, error)
	ReturnBulkRows(ctx context.Context, runID, worker string, lines []int) error
	BulkWorkerRows(ctx context.Context, runID string, fn func(worker, state string, n int) error) error
}

var _ Journal = (*store.DB)(nil)

// Run states (bulk_runs.state).
const (
	RunRunning = store.BulkRunning // a process is working on it, or died doing so
	RunStopped = store.BulkStopped // interrupted, stopped by --max-debit or an error; resumable
	RunDone    = store.BulkDone    // every row was sent (some may still be pending)
)

// Row states (bulk_rows.state). A row of the file with no journal row was
// not sent (yet): OutcomeUnsent in the results.
const (
	StateSending = store.BulkSending // journaled before the call; outcome not recorded yet
	StateSuccess = store.BulkSuccess
	StateFailed  = store.BulkFailed
	StatePending = store.BulkPending // outcome unknown: resolve with Recheck, never re-send blindly
	// StateUnsent is a row Recheck returned to unsent: the transaction-status
	// look-up said the service never executed it (svcapi.TxnNotFound). The
	// next Execute sends it again with the same externalRef. Its journal row
	// stays as the audit trail (attempts, statuscode SNA, error).
	StateUnsent = store.BulkUnsent
)

// OutcomeUnsent is the results outcome of a row that was never sent.
const OutcomeUnsent = StateUnsent

// Settings are the options a run was started with, kept in
// bulk_runs.settings so that a resume behaves the same. The --set values of
// sensitive fields are stored as redact.Marker (Sets.Withheld): a process
// that sends the run's rows must be given them again (Sets.Restore).
type Settings struct {
	Sets        Sets    `json:"set,omitempty"`
	MaxDebit    string  `json:"maxDebit,omitempty"` // exact decimal; "" for no limit
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	Out         string  `json:"out,omitempty"`
	XLSX        bool    `json:"xlsx,omitempty"`
}

// encode returns the settings as stored for a run of op: the --set values
// of its sensitive fields redacted.
func (s Settings) encode(opName string) (string, error) {
	op, ok := svcapi.Lookup(opName)
	if !ok {
		op = &svcapi.Operation{Name: opName} // sensitive by name only
	}
	s.Sets = s.Sets.redacted(op)
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("encode run settings: %w", err)
	}
	return string(b), nil
}

// now is clock's time, or time.Now's when clock is nil: the default of the
// Now options.
func now(clock func() time.Time) time.Time {
	if clock != nil {
		return clock()
	}
	return time.Now()
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

// runOf decodes a stored run; nil stays nil.
func runOf(r *store.BulkRun) (*Run, error) {
	if r == nil {
		return nil, nil
	}
	run := &Run{ID: r.ID, Op: r.Op, InputPath: r.InputPath, InputSHA256: r.InputSHA256, TotalRows: r.TotalRows,
		State: r.State, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if err := json.Unmarshal([]byte(r.Settings), &run.Settings); err != nil {
		return nil, fmt.Errorf("bulk run %s: settings: %w", r.ID, err)
	}
	return run, nil
}

// ErrRunNotFound is returned for an unknown run id.
var ErrRunNotFound = errors.New("no such bulk run")

// runAlphabet has no 0/O, 1/I/L or U, so ids read back unambiguously.
const runAlphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewRunID returns a random 5-character alphanumeric run id.
func NewRunID() string {
	b := make([]byte, 5)
	rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = runAlphabet[int(b[i])%len(runAlphabet)]
	}
	return string(b)
}

// CreateRun stores a new run in state running, created at r.CreatedAt
// (time.Now when zero). A taken id is an error, and so is an unfinished run
// of the same operation and input (*store.UnfinishedBulkRunError).
func CreateRun(ctx context.Context, db Journal, r *Run) error {
	return createRun(ctx, db, r, nil)
}

// createRun is CreateRun, storing lease with the run when not nil.
func createRun(ctx context.Context, db Journal, r *Run, lease *store.BulkLease) error {
	settings, err := r.Settings.encode(r.Op)
	if err != nil {
		return err
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now(nil)
	}
	r.UpdatedAt = r.CreatedAt
	r.State = RunRunning
	return db.CreateBulkRun(ctx, store.BulkRun{ID: r.ID, Op: r.Op, InputPath: r.InputPath, InputSHA256: r.InputSHA256,
		Settings: settings, TotalRows: r.TotalRows, State: r.State, CreatedAt: r.CreatedAt}, lease)
}

// UniqueRunID returns a NewRunID not used in db yet.
func UniqueRunID(ctx context.Context, db Journal) (string, error) {
	return uniqueRunID(ctx, db, NewRunID)
}

func uniqueRunID(ctx context.Context, db Journal, newID func() string) (string, error) {
	for range 20 {
		id := newID()
		taken, err := db.BulkRunExists(ctx, id)
		if err != nil {
			return "", fmt.Errorf("pick run id: %w", err)
		}
		if !taken {
			return id, nil
		}
	}
	return "", errors.New("pick run id: no free id after 20 tries")
}

// LoadRun returns the run with this id, or an error matching ErrRunNotFound.
func LoadRun(ctx context.Context, db Journal, id string) (*Run, error) {
	r, err := db.BulkRun(ctx, id)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("bulk run %q: %w", id, ErrRunNotFound)
	}
	return runOf(r)
}

// LatestRun returns the newest run of op over an input with this SHA-256,
// or nil when there is none.
func LatestRun(ctx context.Context, db Journal, op, sha string) (*Run, error) {
	r, err := db.LatestBulkRun(ctx, op, sha)
	if err != nil {
		return nil, err
	}
	return runOf(r)
}

// LatestRunOfPath returns the newest run of op whose input file had this
// (absolute) path, whatever its content then, or nil.
func LatestRunOfPath(ctx context.Context, db Journal, op, path string) (*Run, error) {
	r, err := db.LatestBulkRunOfPath(ctx, op, path)
	if err != nil {
		return nil, err
	}
	return runOf(r)
}

// Runs lists the newest runs first, at most limit.
func Runs(ctx context.Context, db Journal, limit int) ([]*Run, error) {
	rs, err := db.BulkRuns(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*Run, 0, len(rs))
	for i := range rs {
		r, err := runOf(&rs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// updateSettings stores a run's settings (a resume may change concurrency,
// rate, --max-debit and the outputs), updated at at.
func updateSettings(ctx context.Context, db Journal, run *Run, at time.Time) error {
	id := run.ID
	settings, err := run.Settings.encode(run.Op)
	if err != nil {
		return err
	}
	if err := db.SetBulkRunSettings(ctx, id, settings, at); err != nil {
		return fmt.Errorf("bulk run %s: store settings: %w", id, err)
	}
	return nil
}

// ReasonDiedSending is the error recorded on a row that was found 'sending'
// when its run resumed.
const ReasonDiedSending = "the process stopped during the call; outcome unknown, resolve with bulkrun recheck"

// recoverSending turns the rows left 'sending' by a process that died into
// 'pending'. It returns how many there were.
func recoverSending(ctx context.Context, db Journal, runID string) (int, error) {
	n, err := db.PendSendingBulkRows(ctx, runID, ReasonDiedSending)
	if err != nil {
		return 0, fmt.Errorf("bulk run %s: mark interrupted rows pending: %w", runID, err)
	}
	return n, nil
}

// Counts are the rows of a run per state, and its pool debits, as every
// view shows them (bulkrun run's last line, status, the run list, recheck
// and settle): CountRows is the one function that counts them.
type Counts struct {
	Total   int // rows in the input
	Success int
	Failed  int
	// Pending are the rows whose outcome is unknown: state pending, and
	// state sending (Sending, included here), whose call is in flight or
	// whose process died during it.
	Pending  int
	Sending  int             // of Pending, rows journaled 'sending'
	Unsent   int             // rows to send: never journaled, or returned to unsent by Recheck
	Returned int             // of Unsent, rows Recheck returned to unsent (not executed by the service)
	Debit    decimal.Decimal // confirmed: the sum of the pool debits of successful rows
	// MaxDebit is the largest single debit: the expected debit of a call
	// whose debit is not known yet (the pending rows').
	MaxDebit  decimal.Decimal
	DebitRows int // successful rows with a pool debit
}

// Journaled is the number of rows sent or being sent: rows with a journal
// row, except those Recheck returned to unsent.
func (c Counts) Journaled() int { return c.Success + c.Failed + c.Pending }

// PendingDebit is what the pending rows may have cost, each at the
// expected debit (MaxDebit); known is false when pending rows have no
// expected debit yet (no row of the run has debited).
func (c Counts) PendingDebit() (d decimal.Decimal, known bool) {
	return c.MaxDebit.Mul(decimal.NewFromInt(int64(c.Pending))), c.Pending == 0 || c.DebitRows > 0
}

// Debits is the run's pool debits in words: "D confirmed", and, when rows
// are pending, "+ P pending (N rows at E)" or "+ N rows pending of unknown
// debit". The confirmed part is exact; the pending part is counted at the
// expected debit of one call until recheck resolves the rows.
func (c Counts) Debits() string {
	s := c.Debit.StringFixed(2) + " confirmed"
	if c.Pending == 0 {
		return s
	}
	p, known := c.PendingDebit()
	if !known {
		return fmt.Sprintf("%s + %d rows pending of unknown debit", s, c.Pending)
	}
	return fmt.Sprintf("%s + %s pending (%d rows at %s)", s, p.StringFixed(2), c.Pending, c.MaxDebit.StringFixed(2))
}

// String is the counts in one line: "N rows: S success, F failed, P
// pending, U unsent; pool debits D confirmed[ + P pending (N rows at E)]".
func (c Counts) String() string {
	return fmt.Sprintf("%d rows: %d success, %d failed, %d pending, %d unsent; pool debits %s",
		c.Total, c.Success, c.Failed, c.Pending, c.Unsent, c.Debits())
}

// CountRows counts a run's rows per state and sums its debits.
func CountRows(ctx context.Context, db Journal, run *Run) (Counts, error) {
	c := Counts{Total: run.TotalRows}
	err := db.EachBulkRowState(ctx, run.ID, func(state, amount string) error {
		switch state {
		case StateSending:
			c.Sending++
			c.Pending++
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
			// A debit that does not parse is left out of the sums, as
			// the results show it as written.
			if d, err := decimal.NewFromString(amount); err == nil {
				c.Debit = c.Debit.Add(d)
				c.DebitRows++
				if d.GreaterThan(c.MaxDebit) {
					c.MaxDebit = d
				}
			}
		}
		return nil
	})
	c.Unsent = c.Total - c.Journaled()
	return c, err
}

// Entry is one journal row (bulk_rows).
type Entry = store.BulkRow

// entries calls fn for each journal row of the run in line order.
func entries(ctx context.Context, db Journal, runID string, fn func(Entry) error) error {
	return db.EachBulkRow(ctx, runID, fn)
}
