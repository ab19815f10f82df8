package main

import (
	"context"
	"errors"
	"io"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

const checkExamples = `  reconcile check --from 2026-11-01 --to 2026-11-21
  reconcile check --from 2026-11-21 --to 2026-11-21 --fail-on-breaks      # exit 3 on findings (cron)
  reconcile check --from 2026-10-01 --to 2026-10-31 --as-of 2026-11-21    # age unsettled orders as of today
Import the call logs (import-calls) and sync the statement (sync) first.
Re-running a period replaces its previous results.`

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var com cli.Common
	fs := cli.NewFlagSet("check", "reconcile check --from YYYY-MM-DD --to YYYY-MM-DD [--as-of YYYY-MM-DD] [--fail-on-breaks] [flags]", checkExamples, stderr)
	com.Bind(fs)
	from := fs.String("from", "", "first day of the period (IST), YYYY-MM-DD")
	to := fs.String("to", "", "last day of the period (IST), YYYY-MM-DD")
	asOf := fs.String("as-of", "", "age unsettled orders as of this day (default: --to)")
	failOnBreaks := fs.Bool("fail-on-breaks", false, "exit 3 when there is a break, mismatch, duplicate, call-only or statement-only finding")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	com.MarkExplicit(fs)
	if fs.NArg() > 0 {
		return cli.Usagef("check: unexpected argument %q (see check -h)", fs.Arg(0))
	}
	f, t, err := cli.ParsePeriod(*from, *to)
	if err != nil {
		return err
	}
	o := ledger.CheckOptions{From: f, To: t}
	if *asOf != "" {
		if o.AsOf, err = cli.ParseDate("as-of", *asOf); err != nil {
			return err
		}
		if o.AsOf.Before(f) {
			return cli.Usagef("--as-of %s is before --from %s", *asOf, *from)
		}
	}
	log, err := com.Logger(ctx, stderr)
	if err != nil {
		return err
	}
	o.Log = log
	env, err := com.Open(ctx, log, cli.Options{})
	if err != nil {
		return err
	}
	defer env.Close()
	rep, err := ledger.Check(ctx, env.DB, o)
	if err != nil {
		return err
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if empty(rep.Summary) {
		log.Warn("nothing to reconcile in the period: no call imported, no statement record synced (run import-calls and sync first, or check --db)",
			"db", com.DB)
	}
	if *failOnBreaks && rep.HasFindings() {
		return &cli.ExitError{Code: cli.ExitFindings, Err: errors.New("check: findings (breaks, mismatches, duplicates, call-only or statement-only); see the summary")}
	}
	return nil
}

// empty reports whether a period had neither calls nor statement debits.
func empty(s recon.Summary) bool {
	if s.Calls > 0 {
		return false
	}
	for _, o := range s.Outcomes {
		if o.Count > 0 {
			return false
		}
	}
	return true
}
