package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// execFlags are the flags run and resume share.
type execFlags struct {
	common      cli.Common
	out         string
	xlsx, force bool
	concurrency int
	maxDebit    string
	rates       string      // --rates: the rate card's path
	card        *rates.Card // read by apply
}

// dbAndLogFlags are the common flags of a command that only reads the
// database (status).
var dbAndLogFlags = []string{"db", "db-pool", "log-format", "log-level"}

// serviceFlagsUnused are the common flags that no bulkrun command uses: the
// linked account (of the statement endpoints) and the sandbox's history.
var serviceFlagsUnused = []string{"account", "sandbox-days"}

func (f *execFlags) bind(fs *flag.FlagSet) {
	f.common.BindExcept(fs, serviceFlagsUnused...)
	fs.StringVar(&f.out, "out", "", "results CSV (default: <input>.results.csv beside the input)")
	fs.BoolVar(&f.xlsx, "xlsx", false, "also write the results as an .xlsx workbook beside the results CSV")
	fs.BoolVar(&f.force, "force", false, "overwrite results files that exist and are not this run's (another run's, or your own)")
	fs.IntVar(&f.concurrency, "concurrency", 8, "calls in flight at once")
	fs.StringVar(&f.maxDebit, "max-debit", "", "spend at most AMOUNT: a call starts only while the run's confirmed debits, with every call in flight or pending counted at the expected debit, stay within it (the first call goes alone to learn the debit; on PostgreSQL shared by every worker)")
	fs.StringVar(&f.rates, "rates", "", "the rate card (rates.yaml): its price of the operation (operations:) is the expected debit of --max-debit from the first call")
}

// apply overrides s with the flags set on the command line.
func (f *execFlags) apply(set map[string]bool, s *bulk.Settings) error {
	if f.concurrency < 1 || f.concurrency > 1024 {
		return cli.Usagef("--concurrency %d: want 1 to 1024", f.concurrency)
	}
	if f.card == nil && f.rates != "" {
		var err error
		if f.card, err = cli.LoadRates("bulkrun", f.rates); err != nil {
			return err
		}
	}
	if set["concurrency"] || s.Concurrency == 0 {
		s.Concurrency = f.concurrency
	}
	if set["rate"] { // its value is checked by cli.Common.Open
		s.Rate = f.common.Rate
	}
	if set["max-debit"] {
		if f.maxDebit != "" {
			d, err := decimal.NewFromString(f.maxDebit)
			if err != nil || !d.IsPositive() {
				return cli.Usagef("--max-debit %q: want an amount above zero, e.g. 5000.00", f.maxDebit)
			}
			s.MaxDebit = d.String()
		} else {
			s.MaxDebit = ""
		}
	}
	if set["out"] {
		abs, err := filepath.Abs(f.out)
		if err != nil {
			return cli.Usagef("--out %q: %v", f.out, err)
		}
		s.Out = abs
	}
	if set["xlsx"] {
		s.XLSX = f.xlsx
	}
	return nil
}

var runHelp = cli.Help{Synopsis: "bulkrun run --op NAME --in FILE.csv [flags]", Examples: `  bulkrun run --op verifyPanPlusV2 --in pans.csv --set consent=Y --set latitude=12.97 --set longitude=77.59
  bulkrun run --op litigation --in cases.csv --concurrency 32 --rate 50 --max-debit 5000 --xlsx
  bulkrun run --op companyLookup --in cins.csv --set consent=Y --dry-run
  bulkrun run --sandbox --db try.db --out try/results.csv --op verifyPanPlusV2 --in pans.csv --set consent=Y --set latitude=12.97 --set longitude=77.59

Columns name request fields (bulkrun ops NAME shows them; dotted names for nested objects);
other columns (your own ids, notes) are never sent and are carried through to the results.
A non-empty cell wins over --set; --set fills empty cells and missing columns. --set values
of secret fields (biometricData.pidData …) are not stored: a resume asks for them again.
Running the same command on the same file again continues its unfinished run; while a
process works on a run, another one on the same run is refused (exit 2) and told which.
On PostgreSQL it joins the run instead, as one more worker: start it on several hosts to
share the rows (each row is called once; --max-debit holds across them).
--again writes its results to <input>.<RUN>.results.csv, keeping the earlier ones.
Results files that exist and are not this run's (another run wrote them, perhaps with another
database) are not overwritten: --out another file, or --force.

  bulkrun run --db postgres://ops@db.internal:5432/svcrecon?sslmode=verify-full --op verifyPanPlusV2 --in pans.csv --set consent=Y --set latitude=12.97 --set longitude=77.59   # on each host`}

// runCmd is bulkrun run.
type runCmd struct {
	execFlags
	opName, in    string
	sets          multi
	dryRun, again bool
}

func (r *runCmd) Flags(fs *flag.FlagSet) {
	r.bind(fs)
	fs.StringVar(&r.opName, "op", "", "operation to call for each row (see bulkrun ops; any case)")
	fs.StringVar(&r.in, "in", "", fmt.Sprintf("input CSV file; its header names the request fields (a regular file of at most %s, %d rows, %s a line)",
		budget.Size(bulk.MaxInputBytes), bulk.MaxInputRows, budget.Size(bulk.MaxInputLine)))
	fs.Var(&r.sets, "set", "field=value for every row (repeatable; a non-empty cell wins)")
	fs.BoolVar(&r.dryRun, "dry-run", false, "validate every row and show the first request bodies; send nothing")
	fs.BoolVar(&r.again, "again", false, "start a new run of a file that was run before (completely, or in an earlier version): every row is called again, with new derived externalRefs (rows that carry their own externalRef will be refused by the service as duplicates); its results go to <input>.<RUN>.results.csv")
}

// runInput is what bulkrun run checked before opening the database.
type runInput struct {
	op        *svcapi.Operation
	setValues bulk.Sets
	settings  bulk.Settings
	input     string // the input's absolute path
	table     *bulk.Table
}

func (r *runCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	log, err := r.common.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	errs := stderrsOf(ctx, &r.common, call.Stderr, log)
	in, err := r.check(call, errs.lines)
	if err != nil {
		return "", err
	}
	env, err := r.common.Open(ctx, log, cli.Options{NeedClient: !r.dryRun})
	if err != nil {
		return "", err
	}
	defer env.Close()
	if in.op.Headers == svcapi.H5 && env.Config.OutletID == "" && !r.dryRun {
		return "", &svcapi.ConfigError{Setting: "SVC_OUTLET_ID", Reason: "not set (" + in.op.Name + " sends the outlet id)"}
	}
	return "", r.start(ctx, env, in, call, errs)
}

// stderrs are where a command writes on standard error besides its log,
// in the form --log-format asks for: its lines for a person (a bad row, a
// notice) and its progress bar (cli.Common.Lines and Progress).
type stderrs struct{ lines, progress io.Writer }

func stderrsOf(ctx context.Context, c *cli.Common, w io.Writer, log *slog.Logger) stderrs {
	return stderrs{lines: c.Lines(ctx, w, log, slog.LevelWarn), progress: c.Progress(ctx, w)}
}

// check checks the flags, the input and every row (credentials included)
// before anything is opened or created; the rows' problems and notices go
// to lines.
func (r *runCmd) check(call *cli.Call, lines io.Writer) (*runInput, error) {
	if len(call.Args) > 0 {
		return nil, cli.Usagef("run: unexpected argument %q (see bulkrun run -h)", call.Args[0])
	}
	if r.opName == "" || r.in == "" {
		return nil, cli.Usagef("run needs --op NAME and --in FILE.csv (see bulkrun run -h)")
	}
	op, err := lookupOp("--op", r.opName)
	if err != nil {
		return nil, err
	}
	in := &runInput{op: op}
	if in.setValues, err = bulk.ParseSets(op, r.sets); err != nil {
		return nil, &cli.UsageError{Msg: err.Error()}
	}
	if err := r.apply(call.Given, &in.settings); err != nil {
		return nil, err
	}
	in.settings.Sets = in.setValues
	if in.input, err = filepath.Abs(r.in); err != nil {
		return nil, cli.Usagef("--in %q: %v", r.in, err)
	}
	if in.table, err = bulk.ReadTable(in.input); err != nil {
		return nil, &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	in.table.Path = r.in // messages name the file as the user typed it
	// Every row is checked before anything else (credentials included); the
	// rows are built again with the run's id for derived externalRefs. The
	// columns that are no field come first: a misspelt one (pann) explains
	// the problems that follow (pan: mandatory column missing).
	noticeExtra(lines, op, in.table)
	if _, err := buildRows(op, in.table, in.setValues, bulk.NewRunID(), lines); err != nil {
		return nil, err
	}
	if in.settings.Out != "" {
		// Checked again with the run's own outputs; a mistake in --out is
		// refused before the database is opened or created.
		if err := checkOutputs(&bulk.Run{InputPath: in.input, Settings: in.settings}); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// start plans the run (a new one, or the unfinished run of the same file)
// and sends its rows, or shows them with --dry-run. On PostgreSQL, workers
// started at once on several hosts make one run: one creates it, the
// others are told to plan again and join it.
func (r *runCmd) start(ctx context.Context, env *cli.Env, in *runInput, call *cli.Call, errs stderrs) error {
	op, table, input := in.op, in.table, in.input
	st := starter(env)
	// Where runs are shared, workers started at once on several hosts make
	// one run: one creates it, the others are told to plan again and join it.
	for {
		plan, err := st.Plan(ctx, bulk.Request{Op: op.Name, Input: input, Name: r.in, SHA256: table.SHA256,
			Rows: len(table.Records), Settings: in.settings, Again: r.again})
		if err != nil {
			return refused(err)
		}
		run := plan.Run
		var owned []string // the results the run has written: none for a new run
		if plan.Continue {
			if st.Leases.Shared {
				localInput(run, input)
			}
			owned = resultPaths(run)
			if err := r.apply(call.Given, &run.Settings); err != nil {
				return err
			}
		}
		rows, err := buildRows(op, table, in.setValues, run.ID, errs.lines)
		if err != nil {
			return err
		}
		if err := checkOutputs(run); err != nil {
			return err
		}
		if err := checkOwnResults(run, owned, r.force); err != nil {
			return err
		}
		if r.dryRun {
			return showDryRun(call.Stdout, rows, run.ID, plan.Continue)
		}
		lease, err := st.Start(ctx, plan)
		var je *bulk.JoinError
		if errors.As(err, &je) {
			continue
		}
		if err != nil {
			return refused(err)
		}
		defer lease.Release(ctx)
		return execute(ctx, env, lease, run, op, table, rows, r.card, call.Stdout, errs.progress)
	}
}

// localInput makes a worker that joins a run from another host (where the
// same file may lie at another path) read its input and write its results
// beside its own copy: run's input path becomes input, and the results of
// an --again run follow it. The stored run is not changed.
func localInput(run *bulk.Run, input string) {
	if run.InputPath == input {
		return
	}
	if run.Settings.Out == bulk.AgainResultsPath(run.InputPath, run.ID) {
		run.Settings.Out = bulk.AgainResultsPath(input, run.ID)
	}
	run.InputPath = input
}

// Test hooks: the clock of the journal and settle, the leases' clock (nil:
// the database's), the pause between settle rounds (nil: a timer) and the
// id of new runs.
var (
	clock      = time.Now
	leaseClock func() time.Time
	pause      func(ctx context.Context, d time.Duration) error
	newRunID   = bulk.NewRunID
	leaseAfter func(time.Duration) <-chan time.Time
)

// takeOverWait is how long ago a row a dead process left must have been
// sent for run and resume to look it up (recheck's --min-wait default).
const takeOverWait = 2 * time.Minute

// leases are the leases of this command's runs, held by this process: as
// one of each run's workers where the database shares runs (several
// processes, on this host or others, work on a run at once), else as its
// only holder.
func leases(env *cli.Env) *bulk.Leases {
	return &bulk.Leases{DB: env.DB, Holder: bulk.NewHolder(), Log: env.Log, Now: leaseClock, After: leaseAfter,
		Shared: env.DB.SharesRuns()}
}

func starter(env *cli.Env) *bulk.Starter {
	return &bulk.Starter{DB: env.DB, Leases: leases(env), Now: clock, NewID: newRunID}
}

// refused makes a refusal of the run (held by another process, a file run
// before, secret values missing …) exit 2; other errors pass.
func refused(err error) error {
	if errors.Is(err, bulk.ErrRefused) {
		return &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	return err
}

// lookupOp finds an operation by name, in any case; an unknown name is a
// usage error that suggests the nearest one.
func lookupOp(what, name string) (*svcapi.Operation, error) {
	if op, ok := svcapi.Lookup(name); ok {
		return op, nil
	}
	var names []string
	for _, op := range svcapi.Operations() {
		names = append(names, op.Name)
	}
	hint := ""
	if s := cli.Suggest(name, names); s != "" {
		hint = "; did you mean " + s + "?"
	}
	return nil, cli.Usagef("%s %q: no such operation%s (bulkrun ops lists them)", what, name, hint)
}

// noticeExtra lists, once, on lines, the input columns that are not fields
// of op: they are carried through to the results and never sent.
func noticeExtra(lines io.Writer, op *svcapi.Operation, table *bulk.Table) {
	extra := bulk.Extra(op, table)
	if len(extra) == 0 {
		return
	}
	var names []string
	for _, f := range op.Fields {
		names = append(names, f.Name)
	}
	for i, c := range extra {
		if s := cli.Suggest(c, names); s != "" {
			extra[i] = fmt.Sprintf("%s (did you mean %s?)", c, s)
		}
	}
	fmt.Fprintf(lines, "notice: %s: columns not fields of %s, carried through to the results and never sent: %s\n",
		table.Path, op.Name, strings.Join(extra, ", "))
}

// buildRows validates every row; problems go to lines, one per line.
func buildRows(op *svcapi.Operation, table *bulk.Table, sets bulk.Sets, runID string, lines io.Writer) ([]bulk.Row, error) {
	rows, err := bulk.Build(op, table, sets, runID)
	var ie *bulk.InvalidError
	if errors.As(err, &ie) {
		for _, l := range ie.Lines() {
			fmt.Fprintln(lines, l)
		}
		return nil, &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("%s: no data rows below the header", table.Path)}
	}
	return rows, nil
}

// dryRunBodies is how many request bodies --dry-run shows.
const dryRunBodies = 3

func showDryRun(w io.Writer, rows []bulk.Row, runID string, existing bool) error {
	for i, r := range rows {
		if i == dryRunBodies {
			break
		}
		b, err := json.Marshal(r.Body)
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := json.Indent(&out, svcapi.Redact(b), "", "  "); err != nil {
			return err
		}
		fmt.Fprintf(w, "line %d:\n%s\n", r.Line, out.String())
	}
	note := "derived externalRefs shown use a provisional run id " + runID
	if existing {
		note = "derived externalRefs are those of unfinished run " + runID
	}
	fmt.Fprintf(w, "%d rows valid; nothing sent (dry run; %s)\n", len(rows), note)
	return nil
}

// execute sends the rows, writes the results and reports; its progress bar
// is drawn on progress. The run is held by lease; losing it stops the run.
func execute(ctx context.Context, env *cli.Env, lease *bulk.Lease, run *bulk.Run, op *svcapi.Operation, table *bulk.Table, rows []bulk.Row,
	card *rates.Card, stdout, progress io.Writer) error {
	ctx, cancel := lease.Context(ctx)
	defer cancel()
	runner := newRunner(env, run, lease, progress)
	runner.Price = priceOf(card)
	runner.Recheck = newRechecker(env, takeOverWait, 4, rows)
	before, err := bulk.CountRows(ctx, env.DB, run)
	if err != nil {
		return err
	}
	note := ""
	if j := before.Journaled(); j > 0 {
		note = fmt.Sprintf(" (continuing: %d already sent)", j)
	}
	if t := lease.TookOver; t != nil {
		note += fmt.Sprintf("; taken over from host %s pid %d, which is gone (no row is sent twice)", t.Host, t.PID)
	}
	if lease.Shared() {
		note += "; worker " + lease.Worker()
	}
	fmt.Fprintf(stdout, "run %s: %d rows of %s from %s%s\n", run.ID, len(rows), op.Name, run.InputPath, note)
	if before.Returned > 0 {
		fmt.Fprintf(stdout, "%d rows recheck found never executed by the service are sent again with the same externalRef\n", before.Returned)
	}
	sum, runErr := runner.Execute(ctx, run, rows)
	if sum.Recovered > 0 {
		fmt.Fprintf(stdout, "%d rows were being sent when the last process died: pending, not sent again unless txnStatus finds them never executed\n", sum.Recovered)
	}
	if t := sum.TakenOver; t.Checked > 0 {
		fmt.Fprintf(stdout, "%d rows a dead process left were looked up: %d success, %d failed, %d never executed (sent now), %d still pending, %d look-ups failed\n",
			t.Checked, t.Success, t.Failed, t.NotExecuted, t.StillPending, t.LookupErrors)
	}
	// The results are written whatever happened, from the journal.
	paths, werr := writeResults(context.WithoutCancel(ctx), env, run, op, table)
	report(stdout, run, sum.Counts, paths)
	s := run.Settings
	switch {
	case runErr != nil:
		return fmt.Errorf("run %s stopped (bulkrun resume %s continues it): %w", run.ID, run.ID, errors.Join(runErr, werr))
	case werr != nil:
		return werr
	case sum.Stop == bulk.StopMaxDebit:
		return fmt.Errorf("run %s stopped: pool debits %s reach --max-debit %s; %d rows not sent (bulkrun resume %s --max-debit MORE continues)",
			run.ID, sum.Debits(), s.MaxDebit, sum.Unsent, run.ID)
	case sum.Stop != "":
		return fmt.Errorf("run %s %s: %d rows not sent (bulkrun resume %s continues)", run.ID, sum.Stop, sum.Unsent, run.ID)
	case sum.Workers > 0:
		fmt.Fprintf(stdout, "run %s: this worker sent %d rows and found none left to claim; %d other worker(s) still at work (bulkrun status %s)\n",
			run.ID, sum.Sent, sum.Workers, run.ID)
		return nil
	case sum.Pending > 0:
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("run %s: %d rows pending: resolve them with bulkrun recheck %s in a few minutes, or bulkrun settle %s",
			run.ID, sum.Pending, run.ID, run.ID)}
	}
	return nil
}

// newRunner is the runner of a run's settings, held by lease (one of the
// run's workers when the lease is shared), its progress bar on progress.
func newRunner(env *cli.Env, run *bulk.Run, lease *bulk.Lease, progress io.Writer) *bulk.Runner {
	s := run.Settings
	runner := &bulk.Runner{DB: env.DB, Client: env.Client, Log: env.Log, Concurrency: s.Concurrency, Rate: s.Rate,
		Progress: progress, Secret: env.Config.ClientSecret, Now: clock, Lease: lease}
	if s.MaxDebit != "" {
		runner.MaxDebit = decimal.RequireFromString(s.MaxDebit)
	}
	return runner
}

// priceOf is the rate card as the spend cap reads it: the expected debit
// of one call of an operation on today's IST date (nil without a card).
func priceOf(card *rates.Card) func(op string) (decimal.Decimal, bool) {
	if card == nil {
		return nil
	}
	return func(op string) (decimal.Decimal, bool) {
		return card.Debit(op, clock().In(recon.IST).Format(recon.DateLayout))
	}
}

// writeResults (re)writes the run's results CSV (and xlsx) and returns the
// paths written.
func writeResults(ctx context.Context, env *cli.Env, run *bulk.Run, op *svcapi.Operation, table *bulk.Table) ([]string, error) {
	rs := &bulk.Results{DB: env.DB, Run: run, Table: table, Op: op, Secret: env.Config.ClientSecret}
	paths := resultPaths(run)
	if err := rs.WriteCSV(ctx, paths[0]); err != nil {
		return nil, err
	}
	if len(paths) > 1 {
		if err := rs.WriteXLSX(ctx, paths[1]); err != nil {
			return paths[:1], err
		}
	}
	return paths, nil
}

// report prints a run's counts (bulk.Counts.String, the same line in every
// view) and the results written.
func report(w io.Writer, run *bulk.Run, c bulk.Counts, paths []string) {
	fmt.Fprintf(w, "run %s %s: %s\n", run.ID, run.State, c)
	for _, p := range paths {
		fmt.Fprintf(w, "results: %s\n", p)
	}
}
