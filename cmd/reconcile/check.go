package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/nightly"
	"github.com/svcrecon/svcrecon/internal/store"
)

var checkHelp = cli.Help{
	Synopsis: "reconcile check --from YYYY-MM-DD --to YYYY-MM-DD [--as-of YYYY-MM-DD] [--pair-window 10m]\n" +
		"                       [--pair-tolerance 0.01] [--pair-tolerance-percent 0.5] [--timing-window 5m] [--rates rates.yaml]\n" +
		"                       [--fail-on-breaks [--allow-empty]] [--db FILE] [--log-format text|json] [--log-level LEVEL]",
	Description: "Reconciles a period from the database: pool arithmetic and chain, calls matched to statement\n" +
		"records, reversals, unsettled orders. An unmatched call and an unmatched statement record of\n" +
		"the same amount (or within --pair-tolerance rupees or --pair-tolerance-percent of the call's) and\n" +
		"product, at most --pair-window apart, are suggested as a pair: a note, never a match (they stay\n" +
		"callOnly and statementOnly). A call with no record in the last --timing-window of the period,\n" +
		"while no statement record after the period is stored, is timing, not callOnly. With --rates,\n" +
		"each statement debit is priced by the rate card (README: The rate card): overcharged,\n" +
		"undercharged, or its product unpriced. Then it records the run's evidence: its manifest\n" +
		"(inputs by SHA-256, totals, completeness) and its exceptions, new, carried over or resolved\n" +
		"(reconcile exceptions list), and prints the verdict: Incomplete: first when a day's statement\n" +
		"walk did not finish or no call log reaches past its end (exit 0; 3 with --fail-on-breaks).",
	Examples: `  reconcile check --from {month-start} --to {yesterday}
  reconcile check --from {yesterday} --to {yesterday} --fail-on-breaks      # exit 3 on findings, 1 on an empty period (cron)
  reconcile check --from {prev-month-start} --to {prev-month-end} --as-of {today}    # age unsettled orders as of today
  reconcile check --from {yesterday} --to {yesterday} --pair-window 2m      # suggest pairs only 2 minutes apart
  reconcile check --from {yesterday} --to {yesterday} --pair-tolerance 0.01  # suggest pairs a paisa apart too
  reconcile check --from {month-start} --to {yesterday} --rates rates.yaml   # and the fees against the contract's prices
  reconcile check --from {days-ago:61} --to {days-ago:61} --fail-on-breaks --allow-empty   # a day with no traffic is fine
Import the call logs (import-calls) and sync the statement (sync) first.
Re-running a period replaces its previous results.`,
}

// checkCmd is reconcile check; its summary (what the scheduler records) is
// the run's findings, counted per kind, in one line.
type checkCmd struct {
	com                      cli.Common
	from, to, asOf           string
	match                    matchFlags
	failOnBreaks, allowEmpty bool
	rates                    string
}

func (c *checkCmd) Flags(fs *flag.FlagSet) {
	c.com.BindDB(fs)
	c.com.BindLog(fs)
	fs.StringVar(&c.from, "from", "", "first day of the period (IST), YYYY-MM-DD")
	fs.StringVar(&c.to, "to", "", "last day of the period (IST), YYYY-MM-DD")
	fs.StringVar(&c.asOf, "as-of", "", "age unsettled orders as of this day (default: --to)")
	c.match.bind(fs)
	fs.StringVar(&c.rates, "rates", "", "the rate card (rates.yaml): price each statement debit by it, flagging overcharged, undercharged and unpriced")
	fs.BoolVar(&c.failOnBreaks, "fail-on-breaks", false, "exit 3 when there is a break, mismatch, duplicate, call-only, statement-only or fee finding; exit 1 when the period has no call and no record")
	fs.BoolVar(&c.allowEmpty, "allow-empty", false, "with --fail-on-breaks: a period with no call and no record is not an error")
}

func (c *checkCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	o, err := c.options(call)
	if err != nil {
		return "", err
	}
	if err := c.com.NeedCheckPool(); err != nil {
		return "", err
	}
	// It reads what sync and import-calls stored: a database that does not
	// exist is a misspelt --db, not an empty period.
	if err := c.com.CheckDBExists("check"); err != nil {
		return "", err
	}
	log, err := c.com.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	o.Log = log
	env, err := c.com.Open(ctx, log, cli.Options{})
	if err != nil {
		return "", err
	}
	defer env.Close()
	pre := nightly.PrefetchEvidence(ctx, evidenceStore(env.DB), o.From, o.To)
	defer pre.Stop()
	rep, err := ledger.Check(ctx, checkStore(env.DB, pre.Calls()), o)
	if err != nil {
		return "", err
	}
	period := o.From.Format(time.DateOnly) + ".." + o.To.Format(time.DateOnly)
	summary := fmt.Sprintf("check %s run %d: %s", period, rep.RunID, nightly.Findings(rep))
	if n := rep.Summary.SuggestedPairs; n > 0 {
		summary += fmt.Sprintf("; %d suggested pairs", n)
	}
	if err := rep.WriteText(call.Stdout); err != nil {
		return summary, err
	}
	settings := nightly.Settings(o.Tolerances(), 0, 0)
	settings.RateCard = nightly.RateCardSetting(o.Rates)
	ev, err := nightly.RecordEvidence(ctx, env.DB, rep, settings, nil, clock, pre)
	if err != nil {
		return summary, fmt.Errorf("check: evidence: %w", err)
	}
	printEvidence(call.Stdout, ev)
	return summary, c.verdict(rep, ev, period, log)
}

// checkStore is the store a check reads and writes: the database, its
// read of the calls counted into calls for the evidence step (a test
// wraps it to stop the check at a call of its choosing).
var checkStore = func(db *store.DB, calls *evidence.CallTally) ledger.CheckStore { return db.TallyCalls(calls) }

// evidenceStore is the store the evidence step's reads beside the check
// read (a test wraps it to fail them).
var evidenceStore = func(db *store.DB) evidence.Store { return db }

// printEvidence prints a run's verdict (as the Summary words it) and its
// evidence: the manifest's digest and the exceptions new, carried over and
// resolved.
func printEvidence(w io.Writer, ev *evidence.Result) {
	m := ev.Manifest
	fmt.Fprintf(w, "\nVerdict: %s\n", m.Verdict)
	fmt.Fprintf(w, "Run %d, manifest sha256 %s; exceptions: %d new, %d carried over, %d resolved (reconcile exceptions list)\n",
		m.RunID, m.Digest, ev.Counts.New, ev.Counts.Carried, ev.Counts.Resolved)
}

// options checks the flags' values.
func (c *checkCmd) options(call *cli.Call) (ledger.CheckOptions, error) {
	var o ledger.CheckOptions
	if len(call.Args) > 0 {
		return o, cli.Usagef("check: unexpected argument %q (see check -h)", call.Args[0])
	}
	f, t, err := cli.ParsePeriod(c.from, c.to)
	if err != nil {
		return o, err
	}
	tol, err := c.match.tolerances("check")
	if err != nil {
		return o, err
	}
	o = ledger.CheckOptions{From: f, To: t, PairWindow: tol.PairWindow, PairAmount: tol.Amount, PairPercent: tol.Percent,
		TimingWindow: tol.Timing}
	if o.Rates, err = cli.LoadRates("check", c.rates); err != nil {
		return o, err
	}
	if c.asOf != "" {
		if o.AsOf, err = cli.ParseDate("as-of", c.asOf); err != nil {
			return o, err
		}
		if o.AsOf.Before(f) {
			return o, cli.Usagef("--as-of %s is before --from %s", c.asOf, c.from)
		}
	}
	return o, nil
}

// verdict is the exit status of the check under --fail-on-breaks: 3 for
// findings, 1 for an empty period (unless --allow-empty). Without it an
// empty period is only logged.
func (c *checkCmd) verdict(rep *ledger.Report, ev *evidence.Result, period string, log *slog.Logger) error {
	if rep.Empty() {
		if c.failOnBreaks && !c.allowEmpty {
			return &cli.ExitError{Code: cli.ExitFailure, Err: fmt.Errorf(
				"nothing to reconcile: no call and no record in %s (import the call logs and sync the statement first, check --db, or add --allow-empty)", period)}
		}
		log.Warn("nothing to reconcile in the period: no call imported, no statement record synced (run import-calls and sync first, or check --db)",
			"period", period, "db", store.RedactDSN(c.com.DB))
	}
	if c.failOnBreaks && rep.HasFindings() {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("check %s: %s; see the summary", period, nightly.Findings(rep))}
	}
	if c.failOnBreaks && !ev.Manifest.Completeness.Complete && !(rep.Empty() && c.allowEmpty) {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("check %s: %s", period, ev.Manifest.Verdict)}
	}
	return nil
}
