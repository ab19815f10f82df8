package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/bulk"
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
	xlsx        bool
	concurrency int
	maxDebit    string
}

func (f *execFlags) bind(fs *flag.FlagSet) {
	f.common.Bind(fs)
	fs.StringVar(&f.out, "out", "", "results CSV (default: <input>.results.csv beside the input)")
	fs.BoolVar(&f.xlsx, "xlsx", false, "also write the results as an .xlsx workbook beside the results CSV")
	fs.IntVar(&f.concurrency, "concurrency", 8, "calls in flight at once")
	fs.StringVar(&f.maxDebit, "max-debit", "", "start no new call once this run's pool debits reach AMOUNT (calls in flight may add at most concurrency × the largest debit; on PostgreSQL shared by every worker, about one debit)")
}

// apply overrides s with the flags set on the command line.
func (f *execFlags) apply(set map[string]bool, s *bulk.Settings) error {
	if f.concurrency < 1 || f.concurrency > 1024 {
		return cli.Usagef("--concurrency %d: want 1 to 1024", f.concurrency)
	}
	if set["concurrency"] || s.Concurrency == 0 {
		s.Concurrency = f.concurrency
	}
	if set["rate"] {
		if f.common.Rate < 0 {
			return cli.Usagef("--rate %v: want 0 (no limit) or more", f.common.Rate)
		}
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
  bulkrun run --sandbox --db try.db --op verifyPanPlusV2 --in pans.csv --set consent=Y --set latitude=12.97 --set longitude=77.59

Columns name request fields (bulkrun ops NAME shows them; dotted names for nested objects);
other columns (your own ids, notes) are never sent and are carried through to the results.
A non-empty cell wins over --set; --set fills empty cells and missing columns. --set values
of secret fields (biometricData.pidData …) are not stored: a resume asks for them again.
Running the same command on the same file again continues its unfinished run; while a
process works on a run, another one on the same run is refused (exit 2) and told which.
On PostgreSQL it joins the run instead, as one more worker: start it on several hosts to
share the rows (each row is called once; --max-debit holds across them).
--again writes its results to <input>.<RUN>.results.csv, keeping the earlier ones.

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
	in, err := r.check(call)
	if err != nil {
		return "", err
	}
	env, err := openEnv(ctx, &r.common, call.Stderr, !r.dryRun)
	if err != nil {
		return "", err
	}
	defer env.Close()
	if in.op.Headers == svcapi.H5 && env.Config.OutletID == "" && !r.dryRun {
		return "", &svcapi.ConfigError{Setting: "SVC_OUTLET_ID", Reason: "not set (" + in.op.Name + " sends the outlet id)"}
	}
	return "", r.start(ctx, env, in, call)
}

// check checks the flags, the input and every row (credentials included)
// before anything is opened or created.
func (r *runCmd) check(call *cli.Call) (*runInput, error) {
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
	// rows are built again with the run's id for derived externalRefs.
	if _, err := buildRows(op, in.table, in.setValues, bulk.NewRunID(), call.Stderr); err != nil {
		return nil, err
	}
	noticeExtra(call.Stderr, op, in.table)
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
func (r *runCmd) start(ctx context.Context, env *cli.Env, in *runInput, call *cli.Call) error {
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
		if plan.Continue {
			if err := r.apply(call.Given, &run.Settings); err != nil {
				return err
			}
			if st.Leases.Shared {
				localInput(run, input)
			}
		}
		rows, err := buildRows(op, table, in.setValues, run.ID, call.Stderr)
		if err != nil {
			return err
		}
		if err := checkOutputs(run); err != nil {
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
		return execute(ctx, env, lease, run, op, table, rows, call.Stdout, call.Stderr)
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

var resumeHelp = cli.Help{Synopsis: "bulkrun resume RUN [flags]", Examples: `  bulkrun resume 7KQ2M
  bulkrun resume 7KQ2M --max-debit 10000 --concurrency 16

Rows already sent are skipped; rows that were being sent when the run died become pending,
not sent: bulkrun recheck looks them up. Rows recheck found never executed by the service
(not found) are sent again, with the same externalRef (the service refuses a repeated
externalRef without debiting). The --set values of the run are kept, except secret ones
(biometricData.pidData …), which are not stored: give them again with --set. While another
process works on the run, resume is refused (exit 2) and says which; a process that died
(killed, or gone from this host) does not hold the run.`}

// resumeCmd is bulkrun resume RUN.
type resumeCmd struct {
	execFlags
	sets multi
}

func (r *resumeCmd) Flags(fs *flag.FlagSet) {
	r.bind(fs)
	fs.Var(&r.sets, "set", "field=value: a secret --set value of the run, which is not stored (repeatable)")
}

func (r *resumeCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) != 1 {
		return "", cli.Usagef("resume needs one run id, e.g. bulkrun resume 7KQ2M (bulkrun status lists runs)")
	}
	env, run, op, err := openRun(ctx, &r.common, call.Stderr, call.Args[0])
	if err != nil {
		return "", err
	}
	defer env.Close()
	if err := r.apply(call.Given, &run.Settings); err != nil {
		return "", err
	}
	table, rows, err := prepareSend(env, run, op, r.sets, "bulkrun resume", call.Stderr)
	if err != nil {
		return "", err
	}
	lease, err := starter(env).Start(ctx, &bulk.Plan{Run: run, Continue: true})
	if err != nil {
		return "", refused(err)
	}
	defer lease.Release(ctx)
	return "", execute(ctx, env, lease, run, op, table, rows, call.Stdout, call.Stderr)
}

// Test hooks: the clock of the journal, the leases and settle, the pause
// between settle rounds (nil: a timer) and the id of new runs.
var (
	clock      = time.Now
	pause      func(ctx context.Context, d time.Duration) error
	newRunID   = bulk.NewRunID
	leaseAfter func(time.Duration) <-chan time.Time
)

// leases are the leases of this command's runs, held by this process: as
// one of each run's workers where the database shares runs (several
// processes, on this host or others, work on a run at once), else as its
// only holder.
func leases(env *cli.Env) *bulk.Leases {
	return &bulk.Leases{DB: env.DB, Holder: bulk.NewHolder(), Log: env.Log, Now: clock, After: leaseAfter,
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

// openRun opens the environment of a command that works on run id (with a
// client) and loads the run (any case) and its operation; an unknown id
// is a usage error. The caller closes env when err is nil.
func openRun(ctx context.Context, c *cli.Common, stderr io.Writer, id string) (*cli.Env, *bulk.Run, *svcapi.Operation, error) {
	env, err := openEnv(ctx, c, stderr, true)
	if err != nil {
		return nil, nil, nil, err
	}
	run, err := loadRun(ctx, env, id)
	if err != nil {
		env.Close()
		return nil, nil, nil, err
	}
	op, ok := svcapi.Lookup(run.Op)
	if !ok {
		env.Close()
		return nil, nil, nil, fmt.Errorf("run %s: unknown operation %q", run.ID, run.Op)
	}
	return env, run, op, nil
}

// prepareSend readies a stored run for sending its rows again (resume,
// settle): its secret --set values given again by the --set args of
// command, the outlet id when the operation sends it, its input read and
// its rows built, its outputs checked. Nothing is sent or changed.
func prepareSend(env *cli.Env, run *bulk.Run, op *svcapi.Operation, sets []string, command string, stderr io.Writer) (*bulk.Table, []bulk.Row, error) {
	if err := restoreSets(run, op, sets, command+" "+run.ID); err != nil {
		return nil, nil, err
	}
	if op.Headers == svcapi.H5 && env.Config.OutletID == "" {
		return nil, nil, &svcapi.ConfigError{Setting: "SVC_OUTLET_ID", Reason: "not set (" + op.Name + " sends the outlet id)"}
	}
	table, err := run.ReadInput()
	if err != nil {
		return nil, nil, &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	rows, err := buildRows(op, table, run.Settings.Sets, run.ID, stderr)
	if err != nil {
		return nil, nil, err
	}
	noticeExtra(stderr, op, table)
	if err := checkOutputs(run); err != nil {
		return nil, nil, err
	}
	return table, rows, nil
}

// hold takes the lease of a stored run (recheck, settle): a run another
// live process holds is refused (exit 2); on PostgreSQL the process joins
// the run's workers instead. The returned context ends with ctx or when
// the lease is lost; release gives the lease up.
func hold(ctx context.Context, env *cli.Env, run *bulk.Run) (context.Context, *bulk.Lease, func(), error) {
	lease, err := leases(env).Acquire(ctx, run.ID)
	if err != nil {
		return nil, nil, nil, refused(err)
	}
	lctx, cancel := lease.Context(ctx)
	return lctx, lease, func() { cancel(); lease.Release(ctx) }, nil
}

// restoreSets gives the run back the secret --set values it did not store,
// from the --set flags of a command that sends its rows (one line, exit 2,
// when one is missing).
func restoreSets(run *bulk.Run, op *svcapi.Operation, args []string, command string) error {
	given, err := bulk.ParseSets(op, args)
	if err != nil {
		return &cli.UsageError{Msg: err.Error()}
	}
	sets, err := run.Settings.Sets.Restore(run.ID, command, given)
	if err != nil {
		return &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	run.Settings.Sets = sets
	return nil
}

// noticeExtra lists, once, the input columns that are not fields of op:
// they are carried through to the results and never sent.
func noticeExtra(stderr io.Writer, op *svcapi.Operation, table *bulk.Table) {
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
	fmt.Fprintf(stderr, "notice: %s: columns not fields of %s, carried through to the results and never sent: %s\n",
		table.Path, op.Name, strings.Join(extra, ", "))
}

// openEnv resolves the common flags: logger, database and, when client is
// set, a client (cli.Open makes it record every call in the calls table,
// besides --call-log, so the night's reconciliation sees the bulk calls).
func openEnv(ctx context.Context, c *cli.Common, stderr io.Writer, client bool) (*cli.Env, error) {
	log, err := c.Logger(ctx, stderr)
	if err != nil {
		return nil, err
	}
	return c.Open(ctx, log, cli.Options{NeedClient: client})
}

// buildRows validates every row; problems go to stderr, one per line.
func buildRows(op *svcapi.Operation, table *bulk.Table, sets bulk.Sets, runID string, stderr io.Writer) ([]bulk.Row, error) {
	rows, err := bulk.Build(op, table, sets, runID)
	var ie *bulk.InvalidError
	if errors.As(err, &ie) {
		for _, l := range ie.Lines() {
			fmt.Fprintln(stderr, l)
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

// execute sends the rows, writes the results and reports. The run is
// held by lease; losing it stops the run.
func execute(ctx context.Context, env *cli.Env, lease *bulk.Lease, run *bulk.Run, op *svcapi.Operation, table *bulk.Table, rows []bulk.Row, stdout, stderr io.Writer) error {
	ctx, cancel := lease.Context(ctx)
	defer cancel()
	runner := newRunner(env, run, lease, stderr)
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
		fmt.Fprintf(stdout, "%d rows were being sent when the last process died: pending, not sent again unless bulkrun recheck finds them never executed\n", sum.Recovered)
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
		return fmt.Errorf("run %s stopped: pool debits %s reached --max-debit %s; %d rows not sent (bulkrun resume %s --max-debit MORE continues)",
			run.ID, sum.Debit, s.MaxDebit, sum.Unsent, run.ID)
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
// run's workers when the lease is shared).
func newRunner(env *cli.Env, run *bulk.Run, lease *bulk.Lease, stderr io.Writer) *bulk.Runner {
	s := run.Settings
	runner := &bulk.Runner{DB: env.DB, Client: env.Client, Log: env.Log, Concurrency: s.Concurrency, Rate: s.Rate,
		Progress: stderr, Secret: env.Config.ClientSecret, Now: clock, Lease: lease}
	if s.MaxDebit != "" {
		runner.MaxDebit = decimal.RequireFromString(s.MaxDebit)
	}
	return runner
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
