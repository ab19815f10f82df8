package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// CheckOptions say which period to reconcile. From and To are IST days
// (their time of day is ignored); AsOf defaults to To; Now (default
// time.Now) only stamps the run's start. PairWindow is how far apart an
// unmatched call and an unmatched statement record may be to be suggested
// as a pair (0: DefaultPairWindow), PairAmount and PairPercent how far
// their amounts may differ (in rupees, in percent of the call's amount;
// zero: equal amounts), TimingWindow how near the period's edge a break
// may lie to be a timing difference (0: none is); beyond Tolerances'
// bounds they are an error.
type CheckOptions struct {
	From, To, AsOf          time.Time
	PairWindow              time.Duration
	PairAmount, PairPercent decimal.Decimal
	TimingWindow            time.Duration
	// MaxOrphans bounds the unmatched rows held for the suggested pairs
	// (0: MaxOrphans).
	MaxOrphans int
	// Rates, when set, is the rate card the fees stage prices the
	// period's debits by (fees.go); nil: the fees are not checked.
	Rates *rates.Card
	Now   func() time.Time
	Log   *slog.Logger
}

// Check reconciles a period (design: reconciliation; recon-contract.md):
// the arithmetic of every pool object, the chain of balances per pool
// account, calls matched to statement records, duplicate debits,
// reversals, suggested pairs and unsettled orders, each a stage of its
// own (pipeline.go). Calls of read-only operations (svcrecon's own
// statement and list pages, transaction-status look-ups) are no
// transactions of the pool and are left out.
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
	tol := o.Tolerances()
	if err := tol.Validate(); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c := &checkRun{db: db, log: o.Log, t0: time.Now(), rates: o.Rates, opts: stageOptions{tol: tol.withDefaults(), maxOrphans: o.MaxOrphans},
		run: Run{From: day(o.From), To: day(o.To), AsOf: day(o.AsOf), Started: o.Now()}}
	from, to := c.run.From, c.run.To
	if to < from {
		return nil, fmt.Errorf("check: to %s is before from %s", to, from)
	}
	c.window = Window{From: from + " 00:00:00", To: to + " 23:59:59", Skip: readOnlyOps}
	rep, err := c.check(ctx)
	if err != nil {
		c.recordFailure(ctx, err)
		return nil, fmt.Errorf("check %s..%s: %w", from, to, err)
	}
	o.Log.Info("reconciliation checked", recon.LogCheckRun, rep.RunID, "from", from, "to", to,
		"calls", rep.Summary.Calls, "records", rep.Records, "suggestedPairs", rep.Summary.SuggestedPairs,
		"findings", rep.HasFindings(), "seconds", time.Since(c.t0).Seconds())
	return rep, nil
}

// Tolerances are the options' tolerances.
func (o *CheckOptions) Tolerances() Tolerances {
	return Tolerances{PairWindow: o.PairWindow, Amount: o.PairAmount, Percent: o.PairPercent, Timing: o.TimingWindow}
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

// checkRun is one run of Check: the load stage reads what the others
// must know of the period, the store streams the period's calls and
// records through the stages (pipeline), the unsettled stage reads the
// unsettled orders, the summary stage sums it all up, and the store keeps
// what they found.
type checkRun struct {
	db     CheckStore
	log    *slog.Logger
	run    Run
	window Window
	opts   stageOptions
	rates  *rates.Card
	t0     time.Time
}

// check runs the stages and stores their results.
func (c *checkRun) check(ctx context.Context) (*Report, error) {
	per, err := loadPeriod(ctx, c.db, c.window, c.log)
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
	t := time.Now()
	p, err := runStages(ctx, &per, c.opts, find, out, c.db.CheckCalls(ctx, c.window), c.db.CheckStatement(ctx, c.window))
	c.log.Debug("check step done", "step", "calls and records", "seconds", time.Since(t).Seconds())
	if err == nil {
		err = c.unsettled(ctx, p.tally)
	}
	if err == nil && c.rates != nil {
		err = runFees(c.rates, c.db.CheckDebits(ctx, c.window), p.tally)
	}
	var rep *Report
	var summary []byte
	if err == nil {
		rep = summarize(c.run, p.pool, p.match, p.pairs, p.tally)
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

// unsettled runs the unsettled stage: the collect orders up to the
// period's end that have no settlement, aged against the as-of date.
func (c *checkRun) unsettled(ctx context.Context, t *tally) error {
	asOf, err := time.Parse(time.DateOnly, c.run.AsOf)
	if err != nil {
		return err
	}
	if err := unsettledOrders(c.db.CheckUnsettled(ctx, c.run.To), asOf, t.unsettled); err != nil {
		return err
	}
	return t.out.Err()
}

// recordFailure leaves the run that did not finish behind (best effort),
// so that the history shows the attempt: interrupted when its context was
// cancelled (SIGTERM, Ctrl-C), failed otherwise.
func (c *checkRun) recordFailure(ctx context.Context, cause error) {
	state := RunFailed
	if ctx.Err() != nil && errors.Is(cause, ctx.Err()) {
		state = RunInterrupted
	}
	if err := c.db.FailCheckRun(context.WithoutCancel(ctx), c.run, state, c.finished()); err != nil {
		c.log.Error("failed run not recorded", "error", err.Error())
	}
}

// finished is the run's end: its start on the injected clock plus the time
// really spent.
func (c *checkRun) finished() time.Time { return c.run.Started.Add(time.Since(c.t0)) }
