package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// CheckOptions say which period to reconcile. From and To are IST days
// (their time of day is ignored); AsOf defaults to To; Now (default
// time.Now) only stamps the run's start. PairWindow is how far apart an
// unmatched call and an unmatched statement record may be to be suggested
// as a pair (0: DefaultPairWindow; below 0 is an error).
type CheckOptions struct {
	From, To, AsOf time.Time
	PairWindow     time.Duration
	Now            func() time.Time
	Log            *slog.Logger
}

// CallSource feeds Check the calls of a period; *store.DB implements it.
type CallSource interface {
	// CheckPoolAccounts lists the pool accounts the window's calls name.
	CheckPoolAccounts(ctx context.Context, w store.CheckWindow) ([]string, error)
	// CheckCalls yields the window's calls in (ts, id) order.
	CheckCalls(ctx context.Context, w store.CheckWindow) iter.Seq2[recon.Call, error]
	// CheckResentPending lists the window's pending calls re-sent and executed.
	CheckResentPending(ctx context.Context, w store.CheckWindow) ([]int64, error)
	// CheckLookups yields the look-ups (operation op) of the window's pending calls.
	CheckLookups(ctx context.Context, w store.CheckWindow, op string) iter.Seq2[store.CheckLookup, error]
}

// RecordSource feeds Check the statement and collect-order records;
// *store.DB implements it.
type RecordSource interface {
	// CheckStatement yields the window's statement records in time order.
	CheckStatement(ctx context.Context, w store.CheckWindow) iter.Seq2[recon.Record, error]
	// CheckUnsettled yields the unsettled collect orders up to a day, in time order.
	CheckUnsettled(ctx context.Context, to string) iter.Seq2[recon.Record, error]
	// CheckRecord finds a statement record by svcOrderId, of any date.
	CheckRecord(ctx context.Context, svcOrderID string) (recon.Record, bool, error)
}

// RunWriter stores the results of a check; *store.DB implements it.
type RunWriter interface {
	// SaveCheckRun stores a run and its results, superseding earlier runs of its period.
	SaveCheckRun(ctx context.Context, run store.CheckRun, res store.CheckResults) (int64, error)
	// FailCheckRun records a run that failed.
	FailCheckRun(ctx context.Context, run store.CheckRun, finished time.Time) error
}

// CheckStore is everything Check reads and writes; *store.DB implements it.
type CheckStore interface {
	CallSource
	RecordSource
	OutsideFinder
	RunWriter
}

var _ CheckStore = (*store.DB)(nil)

// Check reconciles a period (design: reconciliation; recon-contract.md):
// the arithmetic of every pool object, the chain of balances per pool
// account, calls matched to statement records, reversals and unsettled
// orders. Calls of read-only operations (svcrecon's own statement and list
// pages, transaction-status look-ups) are no transactions of the pool and
// are left out. It stores the results as a new run in one transaction,
// replacing the results of earlier runs of the same period, and returns
// its report.
// The error is for a bad period or a database failure; findings are in the
// report.
func Check(ctx context.Context, db CheckStore, o CheckOptions) (*Report, error) {
	if o.From.IsZero() || o.To.IsZero() {
		return nil, errors.New("check: the period needs a from and a to date")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.AsOf.IsZero() {
		o.AsOf = o.To
	}
	switch {
	case o.PairWindow < 0:
		return nil, fmt.Errorf("check: pair window %s: want a positive duration", o.PairWindow)
	case o.PairWindow == 0:
		o.PairWindow = DefaultPairWindow
	}
	c := &checkRun{db: db, log: o.Log, t0: time.Now(), pairWindow: o.PairWindow,
		run: store.CheckRun{From: day(o.From), To: day(o.To), AsOf: day(o.AsOf), Started: o.Now()}}
	from, to := c.run.From, c.run.To
	if to < from {
		return nil, fmt.Errorf("check: to %s is before from %s", to, from)
	}
	c.window = store.CheckWindow{From: from + " 00:00:00", To: to + " 23:59:59", Skip: readOnlyOps}
	f, err := c.compute(ctx)
	if err != nil {
		c.recordFailure(ctx)
		return nil, fmt.Errorf("check %s..%s: %w", from, to, err)
	}
	rep, err := c.save(ctx, f)
	if err != nil {
		c.recordFailure(ctx)
		return nil, fmt.Errorf("check %s..%s: store results: %w", from, to, err)
	}
	o.Log.Info("reconciliation checked", recon.LogCheckRun, rep.RunID, "from", from, "to", to,
		"calls", rep.Summary.Calls, "breaks", len(rep.Breaks), "suggestedPairs", rep.Summary.SuggestedPairs,
		"findings", rep.HasFindings(), "seconds", time.Since(c.t0).Seconds())
	return rep, nil
}

func day(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return t.Format(time.DateOnly) // a date given as UTC midnight means that date
	}
	return t.In(recon.IST).Format(time.DateOnly)
}

// readOnlyOps are the read-only operations (statement and collect-order
// pages, the biller and bank lists, transaction-status look-ups:
// svcrecon's own sync and recheck calls). Those are no transactions of the
// pool: they are neither counted nor matched.
var readOnlyOps = func() []string {
	var names []string
	for _, op := range svcapi.Operations() {
		if op.ReadOnly() {
			names = append(names, op.Name)
		}
	}
	return names
}()

// checkRun is one run of Check: the store feeds the passes their ordered
// streams, the passes find, the store keeps what they found.
type checkRun struct {
	db         CheckStore
	log        *slog.Logger
	run        store.CheckRun
	window     store.CheckWindow
	pairWindow time.Duration
	t0         time.Time
}

// findings are what the passes found.
type findings struct {
	accts     *accounts
	book      *book
	calls     *callPass
	breaks    []Break
	matches   []matchRow
	reversals []reversalRow
	unsettled []unsettledRow
	pairs     int // suggested pairs
}

func (c *checkRun) compute(ctx context.Context) (*findings, error) {
	f := &findings{accts: newAccounts()}
	f.book = newBook(f.accts)
	steps := []struct {
		name string
		fn   func(context.Context, *findings) error
	}{
		{"load statement records", c.loadRecords},
		{"read calls", c.readCalls},
		{"link records outside the period", func(ctx context.Context, f *findings) error {
			return linkOutside(ctx, f.calls.calls, f.book, c.db, c.window)
		}},
		{"explain gaps", func(context.Context, *findings) error {
			f.breaks = append(f.calls.arith, explainGaps(f.calls.chain.gaps, f.book.period(), f.accts)...)
			slices.SortStableFunc(f.breaks, func(a, b Break) int {
				return cmp.Or(strings.Compare(a.TS, b.TS), cmp.Compare(a.CallID, b.CallID))
			})
			return nil
		}},
		{"match", func(context.Context, *findings) error {
			f.matches = match(f.calls.calls, f.book)
			return nil
		}},
		{"suggest pairs", func(context.Context, *findings) error {
			f.suggestPairs(c.pairWindow)
			return nil
		}},
		{"reversals", func(ctx context.Context, f *findings) (err error) {
			f.reversals, err = reversals(ctx, f.book, c.db.CheckRecord)
			return err
		}},
		{"unsettled orders", c.loadUnsettled},
	}
	for _, s := range steps {
		t := time.Now()
		if err := s.fn(ctx, f); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		c.log.Debug("check step done", "step", s.name, "seconds", time.Since(t).Seconds())
	}
	return f, nil
}

// loadRecords reads the period's statement records into the book.
func (c *checkRun) loadRecords(ctx context.Context, f *findings) error {
	for r, err := range c.db.CheckStatement(ctx, c.window) {
		if err != nil {
			return err
		}
		if err := f.book.addPeriod(&r); err != nil {
			return err
		}
	}
	return nil
}

// readCalls streams the period's calls in time order through the call pass.
func (c *checkRun) readCalls(ctx context.Context, f *findings) error {
	named, err := c.db.CheckPoolAccounts(ctx, c.window)
	if err != nil {
		return err
	}
	resent, err := c.db.CheckResentPending(ctx, c.window)
	if err != nil {
		return fmt.Errorf("resolve pending calls: %w", err)
	}
	resolved, err := resolvePending(resent, c.db.CheckLookups(ctx, c.window, svcapi.OpTxnStatus))
	if err != nil {
		return err
	}
	f.calls = newCallPass(f.book, named, resolved)
	for call, err := range c.db.CheckCalls(ctx, c.window) {
		if err != nil {
			return err
		}
		if err := f.calls.add(call); err != nil {
			return err
		}
	}
	f.calls.close()
	return nil
}

// loadUnsettled ages the collect orders up to the period's end that have
// no settlement against the as-of date.
func (c *checkRun) loadUnsettled(ctx context.Context, f *findings) error {
	asOf, err := time.Parse(time.DateOnly, c.run.AsOf)
	if err != nil {
		return err
	}
	for r, err := range c.db.CheckUnsettled(ctx, c.run.To) {
		if err != nil {
			return err
		}
		u, err := age(asOf, &r)
		if err != nil {
			return err
		}
		f.unsettled = append(f.unsettled, u)
	}
	return nil
}

// recordFailure leaves a failed run behind (best effort), so that the
// history shows the attempt.
func (c *checkRun) recordFailure(ctx context.Context) {
	if err := c.db.FailCheckRun(context.WithoutCancel(ctx), c.run, c.finished()); err != nil {
		c.log.Error("failed run not recorded", "error", err.Error())
	}
}

// finished is the run's end: its start on the injected clock plus the time
// really spent.
func (c *checkRun) finished() time.Time { return c.run.Started.Add(time.Since(c.t0)) }

// parseTS reads 'YYYY-MM-DD HH:MM:SS' as seconds (of a clock without zone:
// only order and differences matter).
func parseTS(s string) (int64, error) {
	if len(s) == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':' {
		n := func(i, j int) (int, bool) {
			v := 0
			for _, ch := range s[i:j] {
				if ch < '0' || ch > '9' {
					return 0, false
				}
				v = v*10 + int(ch-'0')
			}
			return v, true
		}
		y, ok1 := n(0, 4)
		mo, ok2 := n(5, 7)
		d, ok3 := n(8, 10)
		h, ok4 := n(11, 13)
		mi, ok5 := n(14, 16)
		se, ok6 := n(17, 19)
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 {
			return time.Date(y, time.Month(mo), d, h, mi, se, 0, time.UTC).Unix(), nil
		}
	}
	return 0, fmt.Errorf("timestamp %q: want YYYY-MM-DD HH:MM:SS", s)
}

func fmtTS(v int64) string { return time.Unix(v, 0).UTC().Format(recon.TimestampLayout) }
