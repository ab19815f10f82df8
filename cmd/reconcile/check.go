package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/nightly"
	"github.com/svcrecon/svcrecon/internal/store"
)

const checkExamples = `  reconcile check --from 2026-11-01 --to 2026-11-21
  reconcile check --from 2026-11-21 --to 2026-11-21 --fail-on-breaks      # exit 3 on findings, 1 on an empty period (cron)
  reconcile check --from 2026-10-01 --to 2026-10-31 --as-of 2026-11-21    # age unsettled orders as of today
  reconcile check --from 2026-11-21 --to 2026-11-21 --pair-window 2m      # suggest pairs only 2 minutes apart
  reconcile check --from 2026-10-02 --to 2026-10-02 --fail-on-breaks --allow-empty   # a day with no traffic is fine
Import the call logs (import-calls) and sync the statement (sync) first.
Re-running a period replaces its previous results.`

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := checkJob(ctx, args, stdout, stderr)
	return err
}

// checkJob is reconcile check; its summary (what the scheduler records) is
// the run's findings, counted per kind, in one line.
func checkJob(ctx context.Context, args []string, stdout, stderr io.Writer) (string, error) {
	var com cli.Common
	fs := cli.NewFlagSet("check", "reconcile check --from YYYY-MM-DD --to YYYY-MM-DD [--as-of YYYY-MM-DD] [--pair-window 10m]\n"+
		"                       [--fail-on-breaks [--allow-empty]] [--db FILE] [--log-format text|json] [--log-level LEVEL]\n\n"+
		"Reconciles a period from the database: pool arithmetic and chain, calls matched to statement\n"+
		"records, reversals, unsettled orders. An unmatched call and an unmatched statement record of\n"+
		"the same amount and product, at most --pair-window apart, are suggested as a pair: a note, never\n"+
		"a match (they stay callOnly and statementOnly).", checkExamples, stderr)
	com.BindDB(fs)
	com.BindLog(fs)
	from := fs.String("from", "", "first day of the period (IST), YYYY-MM-DD")
	to := fs.String("to", "", "last day of the period (IST), YYYY-MM-DD")
	asOf := fs.String("as-of", "", "age unsettled orders as of this day (default: --to)")
	pairWindow := fs.Duration("pair-window", ledger.DefaultPairWindow, "suggest an unmatched call and statement record at most this far apart as a pair")
	failOnBreaks := fs.Bool("fail-on-breaks", false, "exit 3 when there is a break, mismatch, duplicate, call-only or statement-only finding; exit 1 when the period has no call and no record")
	allowEmpty := fs.Bool("allow-empty", false, "with --fail-on-breaks: a period with no call and no record is not an error")
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	com.MarkExplicit(fs)
	if fs.NArg() > 0 {
		return "", cli.Usagef("check: unexpected argument %q (see check -h)", fs.Arg(0))
	}
	f, t, err := cli.ParsePeriod(*from, *to)
	if err != nil {
		return "", err
	}
	if *pairWindow <= 0 {
		return "", cli.Usagef("check: --pair-window %s: want a positive duration such as 10m", *pairWindow)
	}
	o := ledger.CheckOptions{From: f, To: t, PairWindow: *pairWindow}
	if *asOf != "" {
		if o.AsOf, err = cli.ParseDate("as-of", *asOf); err != nil {
			return "", err
		}
		if o.AsOf.Before(f) {
			return "", cli.Usagef("--as-of %s is before --from %s", *asOf, *from)
		}
	}
	log, err := com.Logger(ctx, stderr)
	if err != nil {
		return "", err
	}
	o.Log = log
	env, err := com.Open(ctx, log, cli.Options{})
	if err != nil {
		return "", err
	}
	defer env.Close()
	rep, err := ledger.Check(ctx, env.DB, o)
	if err != nil {
		return "", err
	}
	period := f.Format(time.DateOnly) + ".." + t.Format(time.DateOnly)
	summary := fmt.Sprintf("check %s run %d: %s", period, rep.RunID, nightly.Findings(rep))
	if n := rep.Summary.SuggestedPairs; n > 0 {
		summary += fmt.Sprintf("; %d suggested pairs", n)
	}
	if err := rep.WriteText(stdout); err != nil {
		return summary, err
	}
	if rep.Empty() {
		if *failOnBreaks && !*allowEmpty {
			return summary, &cli.ExitError{Code: cli.ExitFailure, Err: fmt.Errorf(
				"nothing to reconcile: no call and no record in %s (import the call logs and sync the statement first, check --db, or add --allow-empty)", period)}
		}
		log.Warn("nothing to reconcile in the period: no call imported, no statement record synced (run import-calls and sync first, or check --db)",
			"period", period, "db", store.RedactDSN(com.DB))
	}
	if *failOnBreaks && rep.HasFindings() {
		return summary, &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("check %s: %s; see the summary", period, nightly.Findings(rep))}
	}
	return summary, nil
}
