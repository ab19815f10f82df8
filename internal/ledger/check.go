package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
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
		run: Run{From: day(o.From), To: day(o.To), AsOf: day(o.AsOf), Started: o.Now()}}
	from, to := c.run.From, c.run.To
	if to < from {
		return nil, fmt.Errorf("check: to %s is before from %s", to, from)
	}
	c.window = Window{From: from + " 00:00:00", To: to + " 23:59:59", Skip: readOnlyOps}
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
	run        Run
	window     Window
	pairWindow time.Duration
	maxOrphans int
	t0         time.Time
}

// check runs the pass and stores its results.
func (c *checkRun) check(ctx context.Context) (*Report, error) {
	per, err := loadPeriod(ctx, c.db, c.window, c.log)
	if err != nil {
		return nil, err
	}
	cfg := passConfig{period: per, span: recordSpan, pairWindow: c.pairWindow, maxOrphans: c.maxOrphans}
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

// unsettled runs the unsettled stage: the collect orders up to the
// period's end that have no settlement, aged against the as-of date.
func (c *checkRun) unsettled(ctx context.Context, p *pass) error {
	asOf, err := time.Parse(time.DateOnly, c.run.AsOf)
	if err != nil {
		return err
	}
	if err := unsettledOrders(c.db.CheckUnsettled(ctx, c.run.To), asOf, p.tally.unsettled); err != nil {
		return err
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
