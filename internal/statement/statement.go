// Package statement walks the service's paged reports into the database
// (through the Store and BillerStore it declares, which *store.DB
// implements): the statement (spec 4.4), the collect-order statement (4.3)
// and the biller list (4.5). Records are recon.Records.
//
// Statement and collect-order periods are split into IST day windows. Each
// window is walked page by page until a page is empty, short, or past
// meta.totalPages (an answer that is not a well-formed page is a fault of
// the page, never the window's end: svcapi.ErrNotPage); its records are upserted by svcOrderId (a hash of the
// record when it has none), and its checkpoint (sync_windows) is written in
// the same transaction as each page's records, so a killed run resumes at
// the next page. After a walk the stored records of the day are compared
// with meta.totalRecords and the window is walked again while they differ
// (bounded). Windows are fetched concurrently; every write goes through one
// writer goroutine in batched transactions.
//
// A walk is never trusted alone: a service posts records into a day after
// the day was walked. Every Sync walks again the last RecheckDays days of
// its period that it already holds, and probes each older held day with one
// page of one record, walking it again when meta.totalRecords differs from
// the records held.
package statement

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Window states (the sync_windows.state column).
const (
	StateWalking  = "walking"
	StateDone     = "done"
	StateMismatch = "mismatch"
	StateFailed   = "failed"
)

// Log attribute keys.
const (
	LogKind   = "kind"
	LogDay    = "day"
	LogPage   = "page"
	LogWalk   = "walk"
	LogStored = "stored"
	LogTotal  = "totalRecords"
)

// ErrIncomplete is wrapped by the error of Sync when a window failed or its
// stored count still differs from the service's total, and by SyncBillers
// when a full walk could not be trusted.
var ErrIncomplete = errors.New("sync incomplete")

// Fetcher fetches one page of the statement or, with IsOrder, of the
// collect-order statement. *svcapi.Client satisfies it.
type Fetcher interface {
	Statement(ctx context.Context, req svcapi.StatementRequest) (*svcapi.StatementPage, error)
}

// BillerFetcher fetches one page of the biller list. *svcapi.Client
// satisfies it.
type BillerFetcher interface {
	Billers(ctx context.Context, req svcapi.BillersRequest) (*svcapi.BillerPage, error)
}

var (
	_ Fetcher       = (*svcapi.Client)(nil)
	_ BillerFetcher = (*svcapi.Client)(nil)
)

// Store keeps what Sync walks: records, window checkpoints and the sync
// runs. *store.DB implements it.
type Store interface {
	// WriteRecords stores pages (records upserted, then their window's
	// checkpoint) in one transaction; it returns records inserted and
	// records whose content changed.
	WriteRecords(ctx context.Context, at time.Time, pages []store.RecordPage) (newN, updN int, err error)
	// RecordWriters is how many WriteRecords (of different windows) gain
	// from running at once.
	RecordWriters() int
	// SyncWindows returns the checkpoints of the account's windows from
	// day from to day to (YYYY-MM-DD, inclusive).
	SyncWindows(ctx context.Context, account, from, to string) ([]store.SyncWindow, error)
	// StartSyncRun records a run as running (closing the account's runs
	// left running as failed) and returns its id.
	StartSyncRun(ctx context.Context, account string, kinds []recon.Kind, from, to string, at time.Time) (int64, error)
	// FinishSyncRun records the end of run id.
	FinishSyncRun(ctx context.Context, id int64, at time.Time, r store.SyncRunResult) error
	// DayCounts returns the records stored per kind and day of the
	// account from day from to day to (YYYY-MM-DD, inclusive).
	DayCounts(ctx context.Context, account, from, to string) (map[store.DayKey]int64, error)
}

// DefaultRecheckDays is how many held days at the end of a period every
// Sync walks again in full unless Options.RecheckDays says otherwise.
const DefaultRecheckDays = 7

// BillerStore keeps the biller list and its syncs. *store.DB implements it.
type BillerStore interface {
	// LastBillerSync returns the newest updatedDate the last successful
	// sync of the category's scope saw ("" none).
	LastBillerSync(ctx context.Context, category string) (string, error)
	// StartBillerSync records a sync as running and returns its id.
	StartBillerSync(ctx context.Context, mode, category, updatedAfter string, at time.Time) (int64, error)
	// StoreBillers writes the billers seen in one transaction, recording
	// each change; with markRemoved, billers of the category not seen are
	// marked removed.
	StoreBillers(ctx context.Context, syncID int64, at time.Time, seen []store.Biller, markRemoved bool, category string) (store.BillerChanges, error)
	// FinishBillerSync records the end of sync id.
	FinishBillerSync(ctx context.Context, id int64, at time.Time, r store.BillerSyncResult) error
}

// Options configure Sync.
type Options struct {
	DB       Store
	Client   Fetcher
	Account  string       // linked account number
	From, To time.Time    // IST dates, inclusive
	Kinds    []recon.Kind // recon.Statement, recon.Orders; default both (recon.Kinds)

	Concurrency int  // windows fetched at once; default 4
	PageSize    int  // records per page requested; default 500
	Refresh     bool // walk every window again, held or not (no probes)
	MaxWalks    int  // walks of a window per run while its count differs; default 3
	// RecheckDays is how many days at the end of the period are walked
	// again in full when they are held already (a late field change, such
	// as a reversal mark, changes no count). Older held days are probed.
	// 0 means DefaultRecheckDays; negative, none.
	RecheckDays int

	// BankProfileID is sent with the plain statement (spec 4.4); default
	// "0". The collect-order statement always sends "0".
	BankProfileID string
	// Calls, when set, also receives the client's call records (register it
	// with the client's Recorders) so that Summary.Retries can be counted.
	Calls *CallCounter
	// DayEnded, when set, is called with each window whose walk ended
	// (done, or still differing from the service's count) once its records
	// are committed: evidence.DayKeeper digests the day beside the sync.
	// It must not block.
	DayEnded func(k recon.Kind, day string)

	Log      *slog.Logger
	Progress io.Writer        // nil: no progress output
	Now      func() time.Time // the clock: today's window is always walked; default time.Now
}

// Summary says what a Sync did.
type Summary struct {
	RunID         int64 // the sync_runs row
	New, Updated  int   // records inserted, records whose content changed
	Pages         int   // pages fetched (probes not counted)
	Windows       int   // windows this run walked or failed to probe, ended: done, mismatch or failed
	WindowsFailed int   // windows failed or still mismatching
	WindowsLeft   int   // windows not ended when the run was interrupted
	Retries       int   // HTTP attempts beyond the first (needs Options.Calls)
	// Probed counts the held days probed; Unchanged those whose count was
	// unchanged (not walked). Rewalked counts the held days walked again
	// (the RecheckDays, the probed days that changed, every one with
	// Refresh) and Late the records those walks found that were not held.
	Probed, Unchanged, Rewalked, Late int
	Problems                          []WindowProblem
	Elapsed                           time.Duration
}

// WindowProblem is a window that failed or whose stored count still
// differs from the service's meta.totalRecords.
type WindowProblem struct {
	Kind   recon.Kind
	Day    string // YYYY-MM-DD
	State  string // StateFailed or StateMismatch
	Page   int    // page being fetched when it failed
	Stored int64  // mismatch: records of the day stored
	Total  int64  // mismatch: meta.totalRecords
	Err    string // failed: the error; mismatch: why, when the counts agree (tally)
}

func (p WindowProblem) String() string {
	if p.State == StateMismatch {
		s := fmt.Sprintf("%s window %s: %d records stored, the service says %d", p.Kind, p.Day, p.Stored, p.Total)
		if p.Err != "" {
			s += "; " + p.Err
		}
		return s
	}
	return fmt.Sprintf("%s window %s failed at page %d: %s", p.Kind, p.Day, p.Page, redact.Text(p.Err))
}

// Line is a one-line summary: records new/updated, windows walked, held
// days probed and walked again with the records found late, pages,
// retries, time.
func (s Summary) Line() string {
	left := ""
	if s.WindowsLeft > 0 {
		left = fmt.Sprintf(", %d left for the next run", s.WindowsLeft)
	}
	return fmt.Sprintf("records: %d new, %d updated; windows: %d ok, %d failed%s; held days: %d probed (%d unchanged), %d walked again, %d records found late; pages: %d; retries: %d; time: %s",
		s.New, s.Updated, s.Windows-s.WindowsFailed, s.WindowsFailed, left, s.Probed, s.Unchanged, s.Rewalked, s.Late,
		s.Pages, s.Retries, s.Elapsed.Round(time.Millisecond))
}

// CallCounter counts the client's HTTP attempts of the report operations.
// Register it among the client's Recorders (svcapi.Config.Recorders) and
// pass it in Options.Calls / BillerOptions.Calls; the difference between
// attempts and pages requested is the number of retries.
type CallCounter struct{ n atomic.Int64 }

// Record counts one attempt of statement, collectOrders or billers.
func (c *CallCounter) Record(_ context.Context, rec *svcapi.CallRecord) error {
	switch rec.Operation {
	case svcapi.OpStatement, svcapi.OpCollectOrders, svcapi.OpBillers:
		c.n.Add(1)
	}
	return nil
}

// Attempts returns the attempts counted so far.
func (c *CallCounter) Attempts() int64 {
	if c == nil {
		return 0
	}
	return c.n.Load()
}

var _ svcapi.Recorder = (*CallCounter)(nil)

// day is an IST calendar date.
func day(t time.Time) time.Time {
	y, m, d := t.In(recon.IST).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, recon.IST)
}

func (o *Options) defaults() error {
	if o.DB == nil || o.Client == nil {
		return errors.New("sync: DB and Client are required")
	}
	if strings.TrimSpace(o.Account) == "" {
		return errors.New("sync: no account number (SVC_ACCOUNT)")
	}
	if o.From.IsZero() || o.To.IsZero() {
		return errors.New("sync: no period")
	}
	o.From, o.To = day(o.From), day(o.To)
	if o.To.Before(o.From) {
		return fmt.Errorf("sync: period ends %s before it starts %s", o.To.Format(recon.DateLayout), o.From.Format(recon.DateLayout))
	}
	if len(o.Kinds) == 0 {
		o.Kinds = append([]recon.Kind(nil), recon.Kinds...)
	}
	seen := map[recon.Kind]bool{}
	for _, k := range o.Kinds {
		if _, err := recon.ParseKind(string(k)); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
		if seen[k] {
			return fmt.Errorf("sync: kind %q given twice", k)
		}
		seen[k] = true
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.PageSize <= 0 {
		o.PageSize = 500
	}
	if o.MaxWalks <= 0 {
		o.MaxWalks = 3
	}
	if o.RecheckDays == 0 {
		o.RecheckDays = DefaultRecheckDays
	}
	if o.BankProfileID == "" {
		o.BankProfileID = "0"
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}
