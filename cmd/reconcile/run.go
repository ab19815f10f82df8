package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/nightly"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// clock is the time the commands' date defaults count from: run's
// yesterday, schedule list's next runs (tests fix it).
var clock = time.Now

// runShownErrors bounds the bad call-log lines printed; all are in import_errors.
const runShownErrors = 20

// Files run --sandbox writes in --out besides the reports.
const (
	sandboxDBName      = "sandbox.db"
	sandboxCallLogName = "sandbox-calls.jsonl"
)

const runExamples = `  reconcile run --sandbox                     # try everything: a fresh sandbox, its history, ./reports
  reconcile run --calls '/var/log/client/calls-*.jsonl' --out reports --fail-on-breaks   # last night (yesterday, IST)
  reconcile run --date 2026-11-21 --calls logs/calls-2026-11-21.jsonl
  reconcile run --from 2026-11-01 --to 2026-11-30 --as-of 2026-12-05 --calls logs/nov.jsonl.gz --out reports/nov
A run that stopped half-way (killed, a failed day) is simply started again: days
already synced and lines already imported are skipped, the check replaces the
period's previous results and the reports are rewritten.
Exit status: 0 done, 1 a step failed (its name leads the message), 2 bad flags,
3 --fail-on-breaks and there are findings.`

// stringsFlag is a repeatable flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, " ") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := runJob(ctx, args, stdout, stderr)
	return err
}

// runJob is reconcile run: it parses the flags into a nightly.Config, runs
// the night and prints what each step did, the reconciliation and the
// reports. The summary (each step's line, the findings) is what the
// scheduler records for a job that runs it.
func runJob(ctx context.Context, args []string, stdout, stderr io.Writer) (string, error) {
	fs := cli.NewFlagSet("run", "reconcile run [--date D | --from D --to D] [--as-of D] [--calls FILE-or-GLOB ...] [--out DIR] [--fail-on-breaks] [--sandbox] [flags]\n\n"+
		"The nightly job, step by step: sync the statement and collect orders of the period (default:\n"+
		"yesterday in IST), import the call logs given, check, and export the workbook and CSV files\n"+
		"to --out; prints what each step did, the reconciliation summary and the report paths.\n\n"+
		"--sandbox starts the built-in sandbox (no account needed), uses a fresh database\n"+
		"DIR/"+sandboxDBName+" (unless --db is given), imports the sandbox's client call log (written to\n"+
		"DIR/"+sandboxCallLogName+") and reconciles the sandbox's whole history, whose planted\n"+
		"defects show every kind of finding.", runExamples, stderr)
	var c cli.Common
	c.Bind(fs)
	date := fs.String("date", "", "the one IST day to reconcile, YYYY-MM-DD (default: yesterday)")
	from := fs.String("from", "", "first IST day of the period, YYYY-MM-DD (with --to)")
	to := fs.String("to", "", "last IST day of the period, YYYY-MM-DD, inclusive")
	asOf := fs.String("as-of", "", "age unsettled orders as of this day (default: the last day)")
	var calls stringsFlag
	fs.Var(&calls, "calls", "a call-log file or glob (JSONL, gzip ok) to import; repeat for more")
	out := fs.String("out", "reports", "directory of the reports (created when missing)")
	failOnBreaks := fs.Bool("fail-on-breaks", false, "exit 3 when there is a break, mismatch, duplicate, call-only or statement-only finding")
	concurrency := fs.Int("concurrency", 4, "days synced at once")
	refresh := fs.Bool("refresh", false, "sync days already synced again")
	ordersLookback := fs.Int("orders-lookback", nightly.DefaultOrdersLookback, "also sync collect orders of this many days before the period, again each run, to see late settlements")
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	if *ordersLookback < 0 {
		return "", cli.Usagef("run: --orders-lookback %d: want 0 or more days", *ordersLookback)
	}
	c.MarkExplicit(fs)
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if fs.NArg() > 0 {
		return "", cli.Usagef("run: unexpected argument %q (call logs go after --calls; see reconcile run -h)", fs.Arg(0))
	}
	if *concurrency < 1 {
		return "", cli.Usagef("run: --concurrency %d: want 1 or more", *concurrency)
	}
	if *out == "" {
		return "", cli.Usagef("run: --out is empty: give a directory")
	}

	// The period: --date, --from/--to, the sandbox's history, or yesterday.
	var pFrom, pTo, pAsOf time.Time
	var err error
	switch {
	case *date != "" && (*from != "" || *to != ""):
		return "", cli.Usagef("run: give --date or --from/--to, not both")
	case *date != "":
		if pFrom, err = cli.ParseDate("date", *date); err != nil {
			return "", err
		}
		pTo = pFrom
	case *from != "" || *to != "":
		if pFrom, pTo, err = cli.ParsePeriod(*from, *to); err != nil {
			return "", err
		}
	case !c.Sandbox:
		pFrom = cli.Yesterday(clock())
		pTo = pFrom
	}
	if *asOf != "" {
		if pAsOf, err = cli.ParseDate("as-of", *asOf); err != nil {
			return "", err
		}
		if !pFrom.IsZero() && pAsOf.Before(pFrom) {
			return "", cli.Usagef("run: --as-of %s is before the period's first day %s", *asOf, pFrom.Format(time.DateOnly))
		}
	}
	// Expand the call-log globs now: a typo should not cost a whole sync.
	callFiles, err := ledger.ExpandPaths(calls)
	if err != nil {
		return "", cli.Usagef("run: --calls: %v", err)
	}
	for _, p := range callFiles {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", cli.Usagef("run: --calls %s: not a readable file", p)
		}
	}

	log, err := c.Logger(ctx, stderr)
	if err != nil {
		return "", err
	}
	counter := &statement.CallCounter{} // the sync's retries: the client's attempts minus the pages asked for
	opts := cli.Options{NeedAccount: true, NeedClient: true, Recorders: []svcapi.Recorder{counter}}
	// The reports' directory now, not after an hour of sync.
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return "", fmt.Errorf("run: --out: %w", err)
	}
	if c.Sandbox && !explicit["db"] {
		// A fresh database beside the reports, so that the first command a
		// newcomer types shows exactly the sandbox's world.
		opts.DefaultSandboxDB = filepath.Join(*out, sandboxDBName)
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(opts.DefaultSandboxDB + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("run: fresh sandbox database: %w", err)
			}
		}
	}
	env, err := c.Open(ctx, log, opts)
	if err != nil {
		return "", err
	}
	defer env.Close()
	if pFrom.IsZero() {
		pFrom, pTo = env.Sandbox.Period()
	}
	if !pAsOf.IsZero() && pAsOf.Before(pFrom) {
		return "", cli.Usagef("run: --as-of %s is before the period's first day %s", *asOf, pFrom.Format(time.DateOnly))
	}

	cfg := nightly.Config{
		DB: env.DB, Client: env.Client, Account: env.Account, From: pFrom, To: pTo, AsOf: pAsOf,
		CallLogs: callFiles, Out: *out, Concurrency: *concurrency, Refresh: *refresh,
		OrdersLookback: *ordersLookback, FreshDB: opts.DefaultSandboxDB != "", Calls: counter,
		Log: log, Progress: stderr, OnStep: func(st nightly.Step) { printStep(st, stdout, stderr) }, Now: clock,
	}
	if c.Sandbox {
		cfg.ClientLog, cfg.ClientLogPath = env.Sandbox, filepath.Join(*out, sandboxCallLogName)
	}
	period := pFrom.Format(time.DateOnly) + ".." + pTo.Format(time.DateOnly)
	log.Info("run", "period", period, "db", env.DB.Path, "out", *out, "sandbox", c.Sandbox)
	fmt.Fprintf(stdout, "reconcile run %s, database %s\n", period, env.DB.Path)
	sum, err := nightly.Run(ctx, cfg)
	if err != nil {
		return sum.String(), err
	}

	fmt.Fprintln(stdout)
	if err := sum.Report.WriteText(stdout); err != nil {
		return sum.String(), err
	}
	fmt.Fprintln(stdout, "\nReports:")
	for _, p := range sum.Files.Paths() {
		fmt.Fprintln(stdout, "  "+p)
	}
	if cfg.ClientLog != nil {
		fmt.Fprintf(stdout, "  %s (the sandbox's client call log, imported above)\n", cfg.ClientLogPath)
	}
	fmt.Fprintf(stdout, "\n%s\n", sum.Line())

	if sum.Import.Bad > 0 {
		return sum.String(), &cli.ExitError{Code: cli.ExitFailure, Err: fmt.Errorf(
			"import-calls: %d bad lines were not imported (see above and the import_errors table); the reports are written", sum.Import.Bad)}
	}
	if *failOnBreaks && sum.Report.HasFindings() {
		return sum.String(), &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("run %s: %s", period, sum.Findings())}
	}
	return sum.String(), nil
}

// printStep prints a step of the night as it ends: its warnings on stderr
// (at most runShownErrors bad call-log lines), its line on stdout.
func printStep(st nightly.Step, stdout, stderr io.Writer) {
	for i, w := range st.Warnings {
		if st.Name == nightly.StepImport && i == runShownErrors {
			fmt.Fprintf(stderr, "… and %d more bad lines (all are in the import_errors table)\n", len(st.Warnings)-i)
			break
		}
		fmt.Fprintln(stderr, st.Name+":", w)
	}
	if st.Line != "" {
		fmt.Fprintf(stdout, "  %-14s%s\n", st.Name, st.Line)
	}
}
