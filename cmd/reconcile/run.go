package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/nightly"
	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/schedule"
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

var runHelp = cli.Help{
	Synopsis: "reconcile run [--date D | --from D --to D] [--as-of D] [--calls FILE-or-GLOB ...] [--complete-through D] [--rates FILE] [--out DIR] [--fail-on-breaks] [--notify URL] [--sandbox] [flags]",
	Description: "The nightly job, step by step: sync the statement and collect orders of the period (default:\n" +
		"yesterday in IST), import the call logs given, check, record the run's evidence (its manifest\n" +
		"and exceptions), and export the workbook, the CSV files and manifest.json to --out; prints what\n" +
		"each step did, the reconciliation summary, the verdict and the report paths. Closing a month,\n" +
		"run the month to date every night (--from the 1st --to yesterday): see the README.\n\n" +
		"--sandbox starts the built-in sandbox (no account needed), uses a fresh database\n" +
		"DIR/" + sandboxDBName + " (unless --db is given), imports the sandbox's client call log (written to\n" +
		"DIR/" + sandboxCallLogName + ") and reconciles the sandbox's whole history, whose planted\n" +
		"defects show every kind of finding (with --rates testdata/rates-sandbox.yaml, its mispriced\n" +
		"product too).\n\n" +
		"--rates prices each statement debit by the rate card (README: The rate card).\n\n" +
		"With --fail-on-breaks a period with no call and no statement record is an error (exit 1):\n" +
		"a misconfigured night must not look clean; --allow-empty accepts it. --notify URL POSTs the\n" +
		"run's summary as JSON (a \"text\" field for chat webhooks) when it ends with breaks or fails.",
	Examples: `  reconcile run --sandbox                     # try everything: a fresh sandbox, its history, ./reports
  reconcile run --sandbox --rates testdata/rates-sandbox.yaml   # and its fees against its price list
  reconcile run --calls '/var/log/client/calls-*.jsonl' --out reports --fail-on-breaks   # last night (yesterday, IST)
  reconcile run --date {yesterday} --calls logs/calls-{yesterday}.jsonl
  reconcile run --from {prev-month-start} --to {prev-month-end} --as-of {today} --calls logs/calls-{prev-month}.jsonl.gz --out reports/{prev-month}
  reconcile run --fail-on-breaks --notify "$SVC_NOTIFY_URL" --calls 'logs/calls-*.jsonl'   # a chat message on breaks or failure
A run that stopped half-way (killed, a failed day) is simply started again: days
already synced are checked rather than walked (the last --recheck-days again in
full, older ones probed), lines already imported are skipped, the check replaces
the period's previous results and the reports are rewritten.
Exit status: 0 done, 1 a step failed (its name leads the message) or, with
--fail-on-breaks, nothing to reconcile, 2 bad flags or settings, 3 --fail-on-breaks
and there are findings.`,
}

// stringsFlag is a repeatable flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, " ") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// nightlyCmd is reconcile run, the nightly job: it checks the flags, runs the night, prints what
// each step did, the reconciliation and the reports, and with --notify
// POSTs a notice when the run ends with breaks or fails. The summary (each
// step's line, then the counts per finding) is what the scheduler records
// for a job that runs it.
type nightlyCmd struct {
	c                           cli.Common
	date, from, to, asOf        string
	calls                       stringsFlag
	out                         string
	failOnBreaks, allowEmpty    bool
	concurrency, ordersLookback int
	refresh, allowLong, csvRaw  bool
	recheckDays                 int
	notify                      string
	match                       matchFlags
	completeThrough             string
	rates                       string
}

func (r *nightlyCmd) Flags(fs *flag.FlagSet) {
	r.c.BindExcept(fs, "outlet-id") // the statement and collect orders need no outlet id
	fs.StringVar(&r.date, "date", "", "the one IST day to reconcile, YYYY-MM-DD (default: yesterday)")
	fs.StringVar(&r.from, "from", "", "first IST day of the period, YYYY-MM-DD (with --to)")
	fs.StringVar(&r.to, "to", "", "last IST day of the period, YYYY-MM-DD, inclusive")
	fs.StringVar(&r.asOf, "as-of", "", "age unsettled orders as of this day (default: the last day)")
	fs.Var(&r.calls, "calls", "a call-log file or glob (JSONL, gzip ok) to import; repeat for more")
	fs.StringVar(&r.out, "out", "reports", "directory of the reports (created when missing)")
	fs.BoolVar(&r.failOnBreaks, "fail-on-breaks", false, "exit 3 when there is a break, mismatch, duplicate, call-only, statement-only or fee finding; exit 1 when there is nothing to reconcile")
	fs.BoolVar(&r.allowEmpty, "allow-empty", false, "with --fail-on-breaks, accept a period with no call and no record")
	fs.IntVar(&r.concurrency, "concurrency", 4, "days synced at once")
	fs.BoolVar(&r.refresh, "refresh", false, "walk every day of the period again, held or not")
	fs.IntVar(&r.recheckDays, "recheck-days", statement.DefaultRecheckDays, "walk again in full the last N days of the period already synced (older ones are probed)")
	fs.BoolVar(&r.allowLong, "allow-long-period", false, "allow a period longer than 400 days")
	fs.IntVar(&r.ordersLookback, "orders-lookback", nightly.DefaultOrdersLookback, "also sync collect orders of this many days before the period, again each run, to see late settlements")
	r.match.bind(fs)
	fs.BoolVar(&r.csvRaw, "csv-raw", false, "write CSV text cells as they are, without the leading ' that keeps =, +, -, @ from being formulas (for machines)")
	fs.StringVar(&r.notify, "notify", "", "POST the run's summary as JSON to this http(s) URL when it ends with breaks (exit 3) or fails")
	fs.StringVar(&r.completeThrough, "complete-through", "", "declare the call logs complete through this IST day, YYYY-MM-DD (no call is logged after it)")
	fs.StringVar(&r.rates, "rates", "", "the rate card (rates.yaml): price each statement debit by it, flagging overcharged, undercharged and unpriced")
}

func (r *nightlyCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	o, err := r.options(ctx, call)
	if err != nil {
		return "", err
	}
	if err := r.c.NeedCheckPool(); err != nil { // before the sync and the import
		return "", err
	}
	started := clock()
	sum, err := o.run(ctx, call.Stdout, r.c.Lines(ctx, call.Stderr, o.log, slog.LevelWarn), r.c.Progress(ctx, call.Stderr))
	if err != nil && o.notify != "" {
		o.sendNotice(ctx, &sum, started, err)
	}
	return sum.String(), err
}

// runOptions are reconcile run's flags, checked.
type runOptions struct {
	c                           cli.Common
	dbGiven                     bool      // --db was on the command line
	from, to, asOf              time.Time // zero from: the sandbox's history
	callFiles                   []string
	out                         string
	failOnBreaks, allowEmpty    bool
	concurrency, ordersLookback int
	refresh                     bool
	recheckDays                 int
	csvRaw                      bool
	notify                      string
	tol                         ledger.Tolerances
	completeThrough             time.Time
	rates                       *rates.Card
	log                         *slog.Logger
}

// options checks the flags of reconcile run: every mistake is a usage
// error, found before anything is created or sent.
func (r *nightlyCmd) options(ctx context.Context, call *cli.Call) (*runOptions, error) {
	if err := r.checkFlags(call.Args); err != nil {
		return nil, err
	}
	o := &runOptions{c: r.c, dbGiven: call.Given["db"], out: r.out, failOnBreaks: r.failOnBreaks, allowEmpty: r.allowEmpty,
		concurrency: r.concurrency, ordersLookback: r.ordersLookback, refresh: r.refresh, csvRaw: r.csvRaw,
		notify: r.notify}
	var err error
	if o.tol, err = r.match.tolerances("run"); err != nil {
		return nil, err
	}
	if o.recheckDays, err = recheckOption(r.recheckDays); err != nil {
		return nil, err
	}
	if r.notify != "" {
		if err := schedule.CheckURL(r.notify); err != nil {
			return nil, cli.Usagef("run: --notify: %v", err)
		}
	}
	if o.from, o.to, o.asOf, err = r.period(); err != nil {
		return nil, err
	}
	if r.completeThrough != "" {
		if o.completeThrough, err = cli.ParseDate("complete-through", r.completeThrough); err != nil {
			return nil, err
		}
	}
	if o.rates, err = cli.LoadRates("run", r.rates); err != nil {
		return nil, err
	}
	if o.log, err = r.c.Logger(ctx, call.Stderr); err != nil {
		return nil, err
	}
	// Expand the call-log globs now: a typo should not cost a whole sync.
	if o.callFiles, err = calllog.ExpandPaths(r.calls); err != nil {
		return nil, cli.Usagef("run: --calls: %v", err)
	}
	for _, p := range o.callFiles {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return nil, cli.Usagef("run: --calls %s: not a readable file", p)
		}
	}
	return o, nil
}

// checkFlags checks the flags that stand alone.
func (r *nightlyCmd) checkFlags(args []string) error {
	switch {
	case len(args) > 0:
		return cli.Usagef("run: unexpected argument %q (call logs go after --calls; see reconcile run -h)", args[0])
	case r.ordersLookback < 0:
		return cli.Usagef("run: --orders-lookback %d: want 0 or more days", r.ordersLookback)
	case r.concurrency < 1:
		return cli.Usagef("run: --concurrency %d: want 1 or more", r.concurrency)
	case r.out == "":
		return cli.Usagef("run: --out is empty: give a directory")
	case r.allowEmpty && !r.failOnBreaks:
		return cli.Usagef("run: --allow-empty goes with --fail-on-breaks (without it an empty period is only logged)")
	}
	return nil
}

// period reads the period: --date, --from/--to, the sandbox's history
// (zero from), or yesterday; and --as-of.
func (r *nightlyCmd) period() (from, to, asOf time.Time, err error) {
	switch {
	case r.date != "" && (r.from != "" || r.to != ""):
		return from, to, asOf, cli.Usagef("run: give --date or --from/--to, not both")
	case r.date != "":
		if from, err = cli.ParseDate("date", r.date); err != nil {
			return from, to, asOf, err
		}
		to = from
	case r.from != "" || r.to != "":
		if from, to, err = cli.ParsePeriod(r.from, r.to); err != nil {
			return from, to, asOf, err
		}
	case !r.c.Sandbox:
		from = cli.Yesterday(clock())
		to = from
	}
	if !from.IsZero() {
		if err := cli.CheckPeriod(from, to, clock(), r.allowLong); err != nil {
			return from, to, asOf, err
		}
	}
	if r.asOf != "" {
		if asOf, err = cli.ParseDate("as-of", r.asOf); err != nil {
			return from, to, asOf, err
		}
		if !from.IsZero() && asOf.Before(from) {
			return from, to, asOf, cli.Usagef("run: --as-of %s is before the period's first day %s", r.asOf, from.Format(time.DateOnly))
		}
	}
	return from, to, asOf, nil
}

// run runs the night: each step's line on stdout, its warnings on lines,
// the progress bars on progress. Nothing is created (the reports'
// directory, the database) before every setting is known good.
func (o *runOptions) run(ctx context.Context, stdout, lines, progress io.Writer) (nightly.Summary, error) {
	var sum nightly.Summary
	counter := &statement.CallCounter{} // the sync's retries: the client's attempts minus the pages asked for
	opts := cli.Options{NeedAccount: true, NeedClient: true, Recorders: []svcapi.Recorder{counter}}
	if err := o.prepareOut(&opts); err != nil {
		return sum, err
	}
	env, err := o.c.Open(ctx, o.log, opts)
	if err != nil {
		return sum, err
	}
	defer env.Close()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return sum, fmt.Errorf("run: --out: %w", err)
	}
	if o.from.IsZero() {
		o.from, o.to = env.Sandbox.Period()
	}
	if !o.asOf.IsZero() && o.asOf.Before(o.from) {
		return sum, cli.Usagef("run: --as-of %s is before the period's first day %s", o.asOf.Format(time.DateOnly), o.from.Format(time.DateOnly))
	}

	cfg := nightly.Config{
		DB: env.DB, Client: env.Client, Account: env.Account, From: o.from, To: o.to, AsOf: o.asOf,
		CallLogs: o.callFiles, Out: o.out, CSVRaw: o.csvRaw, Concurrency: o.concurrency, Refresh: o.refresh,
		RecheckDays: o.recheckDays, OrdersLookback: o.ordersLookback, FreshDB: opts.DefaultSandboxDB != "", Calls: counter,
		Tolerances: o.tol, Rates: o.rates, Secrets: []string{env.Config.ClientSecret},
		Log: o.log, Progress: progress, OnStep: func(st nightly.Step) { printStep(st, stdout, lines) }, Now: clock,
	}
	cfg.CompleteThrough, cfg.CoverageSource = o.completeThrough, "run --complete-through"
	if o.c.Sandbox {
		cfg.ClientLog, cfg.ClientLogPath = env.Sandbox, filepath.Join(o.out, sandboxCallLogName)
		if o.completeThrough.IsZero() { // the sandbox's client log is its whole history
			_, cfg.CompleteThrough = env.Sandbox.Period()
			cfg.CoverageSource = "run --sandbox (the sandbox's log is its whole history)"
		}
	}
	period := o.from.Format(time.DateOnly) + ".." + o.to.Format(time.DateOnly)
	o.log.Info("run", "period", period, "db", env.DB.Path, "out", o.out, "sandbox", o.c.Sandbox)
	fmt.Fprintf(stdout, "reconcile run %s, database %s\n", period, env.DB.Path)
	sum, err = nightly.Run(ctx, cfg)
	if err != nil {
		return sum, err
	}
	if err := printRun(stdout, sum, cfg); err != nil {
		return sum, err
	}
	return sum, o.verdict(sum, period)
}

// prepareOut readies --out before anything else is created: with --sandbox
// and no --db, a fresh database beside the reports (so that the first
// command a newcomer types shows exactly the sandbox's world; the sandbox
// needs no setting, so the directory can be made now); else a check that
// the reports' directory can be written, now and not after an hour of sync.
func (o *runOptions) prepareOut(opts *cli.Options) error {
	if !o.c.Sandbox || o.dbGiven {
		if err := checkOutDir(o.out); err != nil {
			return fmt.Errorf("run: --out: %w", err)
		}
		return nil
	}
	opts.DefaultSandboxDB = filepath.Join(o.out, sandboxDBName)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("run: --out: %w", err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(opts.DefaultSandboxDB + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("run: fresh sandbox database: %w", err)
		}
	}
	return nil
}

// printRun prints the reconciliation, the reports written and the run's
// line.
func printRun(stdout io.Writer, sum nightly.Summary, cfg nightly.Config) error {
	fmt.Fprintln(stdout)
	if err := sum.Report.WriteText(stdout); err != nil {
		return err
	}
	printEvidence(stdout, sum.Evidence)
	fmt.Fprintln(stdout, "\nReports:")
	for _, p := range append(sum.Files.Paths(), sum.Manifest) {
		if p != "" {
			fmt.Fprintln(stdout, "  "+p)
		}
	}
	if cfg.ClientLog != nil {
		fmt.Fprintf(stdout, "  %s (the sandbox's client call log, imported above)\n", cfg.ClientLogPath)
	}
	fmt.Fprintf(stdout, "\n%s\n", sum.Line())
	return nil
}

// verdict is the exit status of a night that ran to the end: 1 for bad
// call-log lines; under --fail-on-breaks 1 for an empty period (unless
// --allow-empty) and 3 for findings. Without it an empty period is only
// logged.
func (o *runOptions) verdict(sum nightly.Summary, period string) error {
	if sum.Empty() {
		if o.failOnBreaks && !o.allowEmpty {
			return &cli.ExitError{Code: cli.ExitFailure, Err: fmt.Errorf(
				"nothing to reconcile: no call and no record in %s (check SVC_ACCOUNT, --db and --calls; --allow-empty accepts an empty period)", period)}
		}
		o.log.Warn("nothing to reconcile: no call and no record in the period", "period", period)
	}
	if sum.Import.Bad > 0 {
		return &cli.ExitError{Code: cli.ExitFailure, Err: fmt.Errorf(
			"import-calls: %d bad lines were not imported (see above and the import_errors table); the reports are written", sum.Import.Bad)}
	}
	if o.failOnBreaks && sum.Report.HasFindings() {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("run %s: %s", period, sum.Findings())}
	}
	if m := sum.Evidence.Manifest; o.failOnBreaks && !m.Completeness.Complete && !(sum.Empty() && o.allowEmpty) {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("run %s: %s", period, m.Verdict)}
	}
	return nil
}

// sendNotice POSTs the notice of a run that ended with breaks or failed
// to --notify; a notice that cannot be sent is logged, and the run's exit
// status stays what it was.
func (o *runOptions) sendNotice(ctx context.Context, sum *nightly.Summary, started time.Time, runErr error) {
	n := schedule.NoticeFor("", "run", "", 0, outcomeOf(runErr), started, clock(), sum.String(), runErr.Error())
	if sum.Report != nil {
		n.Findings = map[string]int{}
		for _, f := range nightly.FindingCounts(sum.Report) {
			n.Findings[f.Key] = f.Count
		}
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := newNotifier(o.log).Send(nctx, o.notify, n); err != nil {
		o.log.Error("notification not sent; the run's outcome stands", "err", err)
	}
}

// checkOutDir makes sure dir is a directory this process can write in, or
// can be created (its nearest existing ancestor is a writable directory).
// It creates nothing that stays.
func checkOutDir(dir string) error {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s is not a directory", d)
			}
			f, err := os.CreateTemp(d, ".svcrecon-check-*")
			if err != nil {
				return fmt.Errorf("%s is not writable: %w", d, err)
			}
			return errors.Join(f.Close(), os.Remove(f.Name()))
		}
		parent := filepath.Dir(d)
		if !errors.Is(err, os.ErrNotExist) || parent == d {
			return err
		}
		d = parent
	}
}

// printStep prints a step of the night as it ends: its warnings on lines
// (at most runShownErrors bad call-log lines), its line on stdout.
func printStep(st nightly.Step, stdout, lines io.Writer) {
	for i, w := range st.Warnings {
		if st.Name == nightly.StepImport && i == runShownErrors {
			fmt.Fprintf(lines, "… and %d more bad lines (all are in the import_errors table)\n", len(st.Warnings)-i)
			break
		}
		fmt.Fprintln(lines, st.Name+":", w)
	}
	if st.Line != "" {
		fmt.Fprintf(stdout, "  %-14s%s\n", st.Name, st.Line)
	}
}
