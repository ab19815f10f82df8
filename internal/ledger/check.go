package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
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
	// MaxOrphans bounds the unmatched rows held for the suggested pairs
	// (0: MaxOrphans).
	MaxOrphans int
	Now        func() time.Time
	Log        *slog.Logger
}

// CheckStore is everything Check reads and writes; *store.DB implements it.
type CheckStore interface {
	// CheckStats brings the planner's statistics of the tables the check
	// reads up to date (PostgreSQL: ANALYZE; SQLite: nothing); a
	// *store.StaleStats says it could not, and is only a warning.
	CheckStats(ctx context.Context) error
	// CheckPoolAccounts lists the pool accounts the window's calls name (two at most).
	CheckPoolAccounts(ctx context.Context, w store.CheckWindow) ([]string, error)
	// CheckRecordAccounts lists the accounts the window's statement records name.
	CheckRecordAccounts(ctx context.Context, w store.CheckWindow) ([]string, error)
	// CheckResentPending lists the window's pending calls re-sent and executed.
	CheckResentPending(ctx context.Context, w store.CheckWindow) ([]int64, error)
	// CheckLookups yields the look-ups (operation op) of the window's pending calls.
	CheckLookups(ctx context.Context, w store.CheckWindow, op string) iter.Seq2[store.CheckLookup, error]
	// CheckOpenRefs lists the externalRefs of unsuccessful calls that some record carries.
	CheckOpenRefs(ctx context.Context, w store.CheckWindow) ([]string, error)
	// CheckCalls yields the window's calls in (ts, id) order.
	CheckCalls(ctx context.Context, w store.CheckWindow) iter.Seq2[recon.Call, error]
	// CheckStatement yields the window's statement records in time order.
	CheckStatement(ctx context.Context, w store.CheckWindow) iter.Seq2[store.CheckRecord, error]
	// CheckUnsettled yields the unsettled collect orders up to a day, in time order.
	CheckUnsettled(ctx context.Context, to string) iter.Seq2[recon.Record, error]
	// CheckFinder prepares the point look-ups of a check.
	CheckFinder(ctx context.Context, w store.CheckWindow) (*store.CheckFinder, error)
	// BeginCheckRun starts storing a run's results, in one transaction.
	BeginCheckRun(ctx context.Context, run store.CheckRun) (*store.CheckRunWriter, error)
	// FailCheckRun records a run that failed.
	FailCheckRun(ctx context.Context, run store.CheckRun, finished time.Time) error
}

var _ CheckStore = (*store.DB)(nil)

// finder is the pass's point look-ups (*store.CheckFinder).
type finder interface {
	PeriodRecord(ctx context.Context, svcOrderID string) (store.CheckRecord, bool, error)
	PeriodRecordsByClient(ctx context.Context, clientOrderID string) ([]store.CheckRecord, error)
	LaterCalls(ctx context.Context, svcOrderID, clientOrderID, from string) (string, bool, error)
	OutsideCall(ctx context.Context, svcOrderID, clientOrderID string) (found, debit bool, err error)
	DebitBySvc(ctx context.Context, svcOrderID string) (store.CheckRecord, bool, error)
	DebitByClient(ctx context.Context, clientOrderID string) (store.CheckRecord, bool, error)
	Record(ctx context.Context, svcOrderID string) (store.CheckRecord, bool, error)
	RefCalls(ctx context.Context, ref string) ([]store.CheckRefCall, error)
}

var _ finder = (*store.CheckFinder)(nil)

// sink is where the pass puts what it finds (*store.CheckRunWriter).
type sink interface {
	Break(store.CheckBreak)
	Match(store.CheckMatch)
	Reversal(store.CheckReversal)
	Unsettled(store.CheckUnsettled)
	Duplicates(refs []string, note func(m *store.CheckMatch)) ([]store.CheckMatch, error)
	Err() error
}

var _ sink = (*store.CheckRunWriter)(nil)

// Check reconciles a period (design: reconciliation; recon-contract.md):
// the arithmetic of every pool object, the chain of balances per pool
// account, calls matched to statement records, reversals and unsettled
// orders. Calls of read-only operations (svcrecon's own statement and list
// pages, transaction-status look-ups) are no transactions of the pool and
// are left out.
//
// It reads the period's calls and statement records once each, as two
// streams in time order, and keeps in memory only the records within
// recordSpan of the call at hand (and the few whose counterpart is further
// away, found by key); what it finds is written as it is found, in one
// transaction that stores the results as a new run and replaces the
// results of earlier runs of the same period. Its memory does not grow
// with the period but with its findings. It returns the run's report.
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
	c := &checkRun{db: db, log: o.Log, t0: time.Now(), pairWindow: o.PairWindow, maxOrphans: o.MaxOrphans,
		run: store.CheckRun{From: day(o.From), To: day(o.To), AsOf: day(o.AsOf), Started: o.Now()}}
	from, to := c.run.From, c.run.To
	if to < from {
		return nil, fmt.Errorf("check: to %s is before from %s", to, from)
	}
	c.window = store.CheckWindow{From: from + " 00:00:00", To: to + " 23:59:59", Skip: readOnlyOps}
	rep, err := c.check(ctx)
	if err != nil {
		c.recordFailure(ctx)
		return nil, fmt.Errorf("check %s..%s: %w", from, to, err)
	}
	o.Log.Info("reconciliation checked", recon.LogCheckRun, rep.RunID, "from", from, "to", to,
		"calls", rep.Summary.Calls, "records", rep.Records, "suggestedPairs", rep.Summary.SuggestedPairs,
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

// checkRun is one run of Check: the store feeds the pass its ordered
// streams, the pass finds, the store keeps what it found.
type checkRun struct {
	db         CheckStore
	log        *slog.Logger
	run        store.CheckRun
	window     store.CheckWindow
	pairWindow time.Duration
	maxOrphans int
	t0         time.Time
}

// setup reads what the pass must know before the first call: the pool
// accounts, the records' accounts, what became of pending calls and the
// externalRefs of unsuccessful calls that records carry.
func (c *checkRun) setup(ctx context.Context) (passConfig, error) {
	cfg := passConfig{span: recordSpan, from: c.window.From, to: c.window.To, pairWindow: c.pairWindow,
		maxOrphans: c.maxOrphans}
	var err error
	step := func(name string, fn func() error) {
		if err == nil {
			t := time.Now()
			if err = fn(); err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
			c.log.Debug("check step done", "step", name, "seconds", time.Since(t).Seconds())
		}
	}
	step("refresh statistics", func() error {
		err := c.db.CheckStats(ctx)
		if stale := (*store.StaleStats)(nil); errors.As(err, &stale) {
			c.log.Warn(stale.Error()) // the check goes on, planned without them
			return nil
		}
		return err
	})
	step("read pool accounts", func() (err error) {
		cfg.named, err = c.db.CheckPoolAccounts(ctx, c.window)
		return err
	})
	step("read record accounts", func() (err error) {
		cfg.recAccts, err = c.db.CheckRecordAccounts(ctx, c.window)
		return err
	})
	step("resolve pending calls", func() error {
		resent, err := c.db.CheckResentPending(ctx, c.window)
		if err != nil {
			return err
		}
		cfg.resolved, err = resolvePending(resent, c.db.CheckLookups(ctx, c.window, svcapi.OpTxnStatus))
		return err
	})
	step("read open externalRefs", func() (err error) {
		cfg.openRefs, err = c.db.CheckOpenRefs(ctx, c.window)
		return err
	})
	return cfg, err
}

// check runs the pass and stores its results.
func (c *checkRun) check(ctx context.Context) (*Report, error) {
	cfg, err := c.setup(ctx)
	if err != nil {
		return nil, err
	}
	find, err := c.db.CheckFinder(ctx, c.window)
	if err != nil {
		return nil, err
	}
	defer find.Close()
	out, err := c.db.BeginCheckRun(ctx, c.run)
	if err != nil {
		return nil, fmt.Errorf("store results: %w", err)
	}
	p := newPass(ctx, cfg, find, out)
	t := time.Now()
	err = p.run(c.db.CheckCalls(ctx, c.window), c.db.CheckStatement(ctx, c.window))
	c.log.Debug("check step done", "step", "calls and records", "seconds", time.Since(t).Seconds())
	if err == nil {
		err = c.unsettled(ctx, p)
	}
	var rep *Report
	if err == nil {
		rep, err = p.report(c.run)
	}
	var summary []byte
	if err == nil {
		summary, err = json.Marshal(rep.Summary)
	}
	if err != nil {
		out.Abort()
		return nil, err
	}
	if err := out.Commit(summary, c.finished); err != nil {
		return nil, fmt.Errorf("store results: %w", err)
	}
	rep.RunID = out.ID()
	return rep, nil
}

// unsettled ages the collect orders up to the period's end that have no
// settlement against the as-of date, and stores them.
func (c *checkRun) unsettled(ctx context.Context, p *pass) error {
	asOf, err := time.Parse(time.DateOnly, c.run.AsOf)
	if err != nil {
		return err
	}
	for r, err := range c.db.CheckUnsettled(ctx, c.run.To) {
		if err != nil {
			return fmt.Errorf("unsettled orders: %w", err)
		}
		u, err := age(asOf, &r)
		if err != nil {
			return fmt.Errorf("unsettled orders: %w", err)
		}
		p.addUnsettled(u)
	}
	return p.out.Err()
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
		// Only a real time: fmtTS of the result then gives s back, which
		// the matched rows rely on (they keep no time of their own).
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && mo >= 1 && mo <= 12 && d >= 1 && h < 24 && mi < 60 && se < 60 &&
			d <= time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
			return time.Date(y, time.Month(mo), d, h, mi, se, 0, time.UTC).Unix(), nil
		}
	}
	return 0, fmt.Errorf("timestamp %q: want YYYY-MM-DD HH:MM:SS", s)
}

func fmtTS(v int64) string { return time.Unix(v, 0).UTC().Format(recon.TimestampLayout) }
