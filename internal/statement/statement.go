// Package statement walks the service's paged reports into SQLite: the
// statement (spec 4.4), the collect-order statement (4.3) and the biller
// list (4.5).
//
// Statement and collect-order periods are split into IST day windows. Each
// window is walked page by page until a page is empty, short, or past
// meta.totalPages; its records are upserted by svcOrderId (a hash of the
// record when it has none), and its checkpoint (sync_windows) is written in
// the same transaction as each page's records, so a killed run resumes at
// the next page. After a walk the stored records of the day are compared
// with meta.totalRecords and the window is walked again while they differ
// (bounded). Windows are fetched concurrently; every write goes through one
// writer goroutine in batched transactions.
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

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Kinds of statement records (the records.kind column).
const (
	KindStatement = "statement" // plain statement (spec 4.4)
	KindOrders    = "orders"    // collect-order statement (spec 4.3)
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

// Options configure Sync.
type Options struct {
	DB       *store.DB
	Client   Fetcher
	Account  string    // linked account number
	From, To time.Time // IST dates, inclusive
	Kinds    []string  // KindStatement, KindOrders; default both

	Concurrency int  // windows fetched at once; default 4
	PageSize    int  // records per page requested; default 500
	Refresh     bool // walk windows already done again
	MaxWalks    int  // walks of a window per run while its count differs; default 3

	// BankProfileID is sent with the plain statement (spec 4.4); default
	// "0". The collect-order statement always sends "0".
	BankProfileID string
	// Calls, when set, also receives the client's call records (register it
	// with the client's Recorders) so that Summary.Retries can be counted.
	Calls *CallCounter

	Log      *slog.Logger
	Progress io.Writer // nil: no progress output
	Now      func() time.Time
}

// Summary says what a Sync did.
type Summary struct {
	RunID          int64 // the sync_runs row
	New, Updated   int   // records inserted, records whose content changed
	Pages          int   // pages fetched
	Windows        int   // windows this run ended: done, mismatch or failed
	WindowsSkipped int   // windows already done (not fetched)
	WindowsFailed  int   // windows failed or still mismatching
	WindowsLeft    int   // windows not ended when the run was interrupted
	Retries        int   // HTTP attempts beyond the first (needs Options.Calls)
	Problems       []WindowProblem
	Elapsed        time.Duration
}

// WindowProblem is a window that failed or whose stored count still
// differs from the service's meta.totalRecords.
type WindowProblem struct {
	Kind   string
	Day    string // YYYY-MM-DD
	State  string // StateFailed or StateMismatch
	Page   int    // page being fetched when it failed
	Stored int64  // mismatch: records of the day stored
	Total  int64  // mismatch: meta.totalRecords
	Err    string // failed: the error
}

func (p WindowProblem) String() string {
	if p.State == StateMismatch {
		return fmt.Sprintf("%s window %s: %d records stored, the service says %d", p.Kind, p.Day, p.Stored, p.Total)
	}
	return fmt.Sprintf("%s window %s failed at page %d: %s", p.Kind, p.Day, p.Page, p.Err)
}

// Line is a one-line summary: records new/updated, windows, pages, retries,
// time.
func (s Summary) Line() string {
	left := ""
	if s.WindowsLeft > 0 {
		left = fmt.Sprintf(", %d left for the next run", s.WindowsLeft)
	}
	return fmt.Sprintf("records: %d new, %d updated; windows: %d ok, %d failed, %d skipped%s; pages: %d; retries: %d; time: %s",
		s.New, s.Updated, s.Windows-s.WindowsFailed, s.WindowsFailed, s.WindowsSkipped, left, s.Pages, s.Retries,
		s.Elapsed.Round(time.Millisecond))
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
	y, m, d := t.In(svcapi.IST).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, svcapi.IST)
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
		return fmt.Errorf("sync: period ends %s before it starts %s", o.To.Format(time.DateOnly), o.From.Format(time.DateOnly))
	}
	if len(o.Kinds) == 0 {
		o.Kinds = []string{KindStatement, KindOrders}
	}
	seen := map[string]bool{}
	for _, k := range o.Kinds {
		if k != KindStatement && k != KindOrders {
			return fmt.Errorf("sync: unknown kind %q (want %s or %s)", k, KindStatement, KindOrders)
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
