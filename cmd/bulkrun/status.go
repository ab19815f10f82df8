package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// statusCmd is bulkrun status [RUN]: it reads the database and never calls
// the service, so it takes no service or sandbox flag.
type statusCmd struct{ common cli.Common }

func (sc *statusCmd) Flags(fs *flag.FlagSet) { sc.common.BindOnly(fs, dbAndLogFlags...) }

func (sc *statusCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) > 1 {
		return "", cli.Usagef("status takes at most one run id (see bulkrun status -h)")
	}
	if err := sc.common.CheckDBExists("status"); err != nil {
		return "", err
	}
	log, err := sc.common.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	env, err := sc.common.Open(ctx, log, cli.Options{})
	if err != nil {
		return "", err
	}
	defer env.Close()
	if err := sweep(ctx, env, call.Args, call.Stdout); err != nil {
		return "", err
	}
	if len(call.Args) == 0 {
		return "", listRuns(ctx, env, call.Stdout)
	}
	return "", showRun(ctx, env, call.Args[0], call.Stdout)
}

// stateInterrupted is the state shown for a run left running by a process
// that is gone (killed, or its host lost): no live process holds it, and it
// waits for bulkrun resume or settle. The sweep stores it so.
const stateInterrupted = bulk.RunInterrupted

// shownState is the state a view shows for run: its stored state, but
// interrupted for a run stored as running that no live process holds.
func shownState(run *bulk.Run, live bool) string {
	if run.State == bulk.RunRunning && !live {
		return stateInterrupted
	}
	return run.State
}

// listRuns prints the recent runs, one line each.
func listRuns(ctx context.Context, env *cli.Env, stdout io.Writer) error {
	runs, err := bulk.Recent(ctx, env.DB, 20)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Fprintln(stdout, "no bulk runs in", env.DB.Path)
		return nil
	}
	ls := leases(env)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tCREATED\tOP\tSTATE\tROWS\tSUCCESS\tFAILED\tPENDING\tUNSENT\tCONFIRMED DEBITS\tINPUT")
	for _, r := range runs {
		live := false
		if r.State == bulk.RunRunning {
			if _, live, err = holders(ctx, env, ls, r.Run); err != nil {
				return err
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", r.ID, r.CreatedAt.In(recon.IST).Format("2006-01-02 15:04"),
			r.Op, shownState(r.Run, live), r.Total, r.Success, r.Failed, r.Pending, r.Unsent, r.Debit.StringFixed(2), r.InputPath)
	}
	return tw.Flush()
}

// showRun prints a run: its settings, who holds it, its rows per state and
// debits, and what to do next.
func showRun(ctx context.Context, env *cli.Env, id string, stdout io.Writer) error {
	st, err := bulk.Status(ctx, env.DB, id)
	if err != nil {
		return notFound(env, err)
	}
	run, c := st.Run, st.Counts
	s := run.Settings
	who, live, err := holders(ctx, env, leases(env), run)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "run %s: %s of %s, %s\n", run.ID, run.Op, run.InputPath, shownState(run, live))
	fmt.Fprintf(stdout, "created %s, updated %s (IST)\n", run.CreatedAt.In(recon.IST).Format(time.DateTime), run.UpdatedAt.In(recon.IST).Format(time.DateTime))
	for _, l := range who {
		fmt.Fprintln(stdout, l)
	}
	rate := "no limit"
	if s.Rate > 0 {
		rate = fmt.Sprintf("%v/s", s.Rate)
	}
	fmt.Fprintf(stdout, "settings: concurrency %d, rate %s, max-debit %s, set %s\n", s.Concurrency, rate, orNone(s.MaxDebit), s.Sets)
	if err := showCounts(stdout, c, live); err != nil {
		return err
	}
	if err := showWorkerRows(ctx, env, run, stdout); err != nil {
		return err
	}
	switch {
	case live:
	case run.State == bulk.RunRunning:
		fmt.Fprintf(stdout, "its process is gone: continue it with bulkrun resume %s (or bring it to rest: bulkrun settle %s)\n", run.ID, run.ID)
	case run.State != bulk.RunDone:
		fmt.Fprintf(stdout, "continue it: bulkrun resume %s (or bring it to rest: bulkrun settle %s)\n", run.ID, run.ID)
	case c.Pending > 0:
		fmt.Fprintf(stdout, "resolve pending rows: bulkrun recheck %s (or bulkrun settle %s)\n", run.ID, run.ID)
	}
	if w := run.Settings.Sets.Withheld(); len(w) > 0 && (run.State != bulk.RunDone || c.Unsent > 0) {
		fmt.Fprintf(stdout, "secret --set values not stored: give them again to resume or settle: --set %s=VALUE\n", strings.Join(w, "=VALUE --set "))
	}
	return nil
}

// showCounts prints a run's rows per state and its pool debits; live says
// whether a process works on the run now (its rows sending are in flight).
func showCounts(stdout io.Writer, c bulk.Counts, live bool) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "rows\t%d\t\n", c.Total)
	fmt.Fprintf(tw, "success\t%d\t\n", c.Success)
	fmt.Fprintf(tw, "failed\t%d\t\n", c.Failed)
	switch {
	case c.Sending > 0 && live:
		fmt.Fprintf(tw, "pending\t%d\t (%d of them in flight)\n", c.Pending, c.Sending)
	case c.Sending > 0:
		fmt.Fprintf(tw, "pending\t%d\t (%d of them were in flight when their process died)\n", c.Pending, c.Sending)
	default:
		fmt.Fprintf(tw, "pending\t%d\t\n", c.Pending)
	}
	if c.Returned > 0 {
		fmt.Fprintf(tw, "unsent\t%d\t (%d never executed by the service, found by recheck: resume sends them again)\n", c.Unsent, c.Returned)
	} else {
		fmt.Fprintf(tw, "unsent\t%d\t\n", c.Unsent)
	}
	fmt.Fprintf(tw, "pool debits\t%s\t confirmed\n", c.Debit.StringFixed(2))
	if p, known := c.PendingDebit(); !known {
		fmt.Fprintf(tw, "\t\t + %d rows pending of unknown debit\n", c.Pending)
	} else if c.Pending > 0 {
		fmt.Fprintf(tw, "\t%s\t pending (%d rows at the expected %s, until recheck resolves them)\n", p.StringFixed(2), c.Pending, c.MaxDebit.StringFixed(2))
	}
	return tw.Flush()
}

var statusHelp = cli.Help{Synopsis: "bulkrun status [RUN]", Examples: `  bulkrun status
  bulkrun status 7KQ2M --db ops.db

With a run id: its settings (secret --set values shown as [REDACTED]: they are never stored),
the process holding it, if any, and its rows per state with its pool debits. Rows 'sending'
count as pending, in every view. On PostgreSQL, every worker of the run (host, pid, last
heartbeat) and the rows each one sent.
A run's state: running (a live process works on it), interrupted (its process is gone,
killed or its host lost: continue it with bulkrun resume or settle), stopped (Ctrl-C,
--max-debit or an error: resume it) or done (every row sent).
It never calls the service. A run whose process is gone is swept first: stored interrupted,
the rows it had in flight pending (bulkrun resume looks them up and sends those never executed).`}

// holders says who works on the run now, a line each: its holder, or its
// workers where runs are shared; live reports whether a live process does.
func holders(ctx context.Context, env *cli.Env, ls *bulk.Leases, run *bulk.Run) (lines []string, live bool, err error) {
	if ls.Shared {
		ws, err := env.DB.BulkWorkers(ctx, run.ID)
		if err != nil {
			return nil, false, err
		}
		for _, w := range ws {
			state := "working"
			if ls.Stale(w) {
				state = "gone (its rows in flight become pending when the next worker starts)"
			} else {
				live = true
			}
			lines = append(lines, fmt.Sprintf("worker %s: host %s, pid %d, since %s IST, last heartbeat %s ago, %s", w.Holder, w.Host, w.PID,
				w.Since.In(recon.IST).Format(time.DateTime), w.Now.Sub(w.Heartbeat).Round(time.Second), state))
		}
		return lines, live, nil
	}
	lease, err := env.DB.BulkRunLease(ctx, run.ID)
	if err != nil || lease == nil || ls.Stale(*lease) {
		return nil, false, err
	}
	return []string{fmt.Sprintf("held by host %s, pid %d, since %s IST (last heartbeat %s ago)", lease.Host, lease.PID,
		lease.Since.In(recon.IST).Format(time.DateTime), lease.Now.Sub(lease.Heartbeat).Round(time.Second))}, true, nil
}

// showWorkerRows prints the run's rows per worker that sent them, when
// workers shared it (PostgreSQL).
func showWorkerRows(ctx context.Context, env *cli.Env, run *bulk.Run, stdout io.Writer) error {
	per, err := bulk.RowsPerWorker(ctx, env.DB, run.ID)
	if err != nil {
		return err
	}
	if len(per) == 0 || len(per) == 1 && per[0].Worker == "" {
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tROWS\tSUCCESS\tFAILED\tPENDING\tUNSENT")
	for _, w := range per {
		name := w.Worker
		if name == "" {
			name = "(returned to unsent)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", name, w.Total(), w.Success, w.Failed, w.Pending, w.Unsent)
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func loadRun(ctx context.Context, env *cli.Env, id string) (*bulk.Run, error) {
	run, err := bulk.LoadRun(ctx, env.DB, strings.ToUpper(id))
	return run, notFound(env, err)
}

// notFound makes an unknown run id a usage error; other errors pass.
func notFound(env *cli.Env, err error) error {
	if errors.Is(err, bulk.ErrRunNotFound) {
		return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("%w in %s (bulkrun status lists runs)", err, env.DB.Path)}
	}
	return err
}

var recheckHelp = cli.Help{Synopsis: "bulkrun recheck RUN [--min-wait 2m]", Examples: `  bulkrun recheck 7KQ2M
  bulkrun recheck 7KQ2M --min-wait 10m

Each pending row is looked up with txnStatus on the IST day it was sent: TXN → success,
TUP → still pending, not found (SNA, or ERR "not found") → the service never executed it:
the row is returned to unsent, and bulkrun resume RUN (or the same bulkrun run command) sends
it again with the same externalRef; any other code → failed. Sending such a row again is safe: the look-up
proved it was not executed, and the service refuses a repeated externalRef (DTX) without
debiting, so a late first request and the re-send cannot both be charged (a re-send
answered DTX is pending until the next recheck finds the first request's transaction).
Rows sent less than --min-wait ago are left for later: keep it above the time a request
can take to arrive. Rows left 'sending' for over 5 minutes by a process that died (a run
killed and not resumed) are looked up too. The results file is rewritten. bulkrun settle
repeats recheck and resume until nothing is pending or unsent.

Exit status: 0 nothing left to do; 1 rows returned to unsent (run bulkrun resume RUN);
3 rows still pending (recheck again later).`}

// recheckCmd is bulkrun recheck RUN.
type recheckCmd struct {
	common      cli.Common
	minWait     time.Duration
	concurrency int
}

func (rc *recheckCmd) Flags(fs *flag.FlagSet) {
	rc.common.BindExcept(fs, serviceFlagsUnused...)
	fs.DurationVar(&rc.minWait, "min-wait", 2*time.Minute, "leave rows sent less than this long ago for later")
	fs.IntVar(&rc.concurrency, "concurrency", 4, "look-ups in flight at once")
}

func (rc *recheckCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) != 1 {
		return "", cli.Usagef("recheck needs one run id, e.g. bulkrun recheck 7KQ2M")
	}
	if rc.minWait < 0 || rc.concurrency < 1 {
		return "", cli.Usagef("recheck: --min-wait must be 0 or more and --concurrency 1 or more")
	}
	return "", rc.recheck(ctx, call.Args[0], call.Stdout, call.Stderr)
}

// recheck looks up the pending rows of run id.
func (rc *recheckCmd) recheck(ctx context.Context, id string, stdout, stderr io.Writer) error {
	env, run, op, err := openRun(ctx, &rc.common, stderr, id)
	if err != nil {
		return err
	}
	defer env.Close()
	table, rows := inputRows(env, run, op)
	if table != nil {
		if err := checkOutputs(run); err != nil {
			return err
		}
	}
	ctx, _, release, err := hold(ctx, env, run)
	if err != nil {
		return err
	}
	defer release()
	s, rerr := newRechecker(env, rc.minWait, rc.concurrency, rows).Recheck(ctx, run)
	fmt.Fprintln(stdout, recheckLine(run, s, rc.minWait))
	var paths []string
	var werr error
	if table != nil {
		paths, werr = writeResults(context.WithoutCancel(ctx), env, run, op, table)
	}
	c, err := bulk.CountRows(context.WithoutCancel(ctx), env.DB, run)
	if err != nil {
		return err
	}
	report(stdout, run, c, paths)
	switch {
	case rerr != nil:
		return errors.Join(rerr, werr)
	case werr != nil:
		return werr
	case c.Returned > 0:
		return fmt.Errorf("run %s: %d rows never executed by the service are unsent again: send them with bulkrun resume %s",
			run.ID, c.Returned, run.ID)
	case c.Pending > 0:
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("run %s: %d rows still pending", run.ID, c.Pending)}
	}
	return nil
}

// inputRows reads the run's input and builds its rows (for the secrets to
// scrub from the look-ups' answers, and to rewrite the results). An input
// that changed since is logged, and nil returned: the look-ups go on, the
// results are not rewritten.
func inputRows(env *cli.Env, run *bulk.Run, op *svcapi.Operation) (*bulk.Table, []bulk.Row) {
	table, err := run.ReadInput()
	if err != nil {
		env.Log.Warn("results not rewritten", "error", err.Error())
		return nil, nil
	}
	rows, _ := bulk.Build(op, table, run.Settings.Sets, run.ID) // validated when the run started
	return table, rows
}

func newRechecker(env *cli.Env, minWait time.Duration, concurrency int, rows []bulk.Row) *bulk.Rechecker {
	return &bulk.Rechecker{DB: env.DB, Client: env.Client, Log: env.Log, MinWait: minWait, Concurrency: concurrency,
		Now: clock, Secret: env.Config.ClientSecret, Rows: rows}
}

// recheckLine says what a recheck did; its pending count is Counts.Pending,
// the same as every other view's.
func recheckLine(run *bulk.Run, s bulk.RecheckSummary, minWait time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s: %d pending rows; looked up %d: %d success, %d failed, %d not executed (unsent again), %d still pending; %d look-ups failed; %d sent less than %s ago",
		run.ID, s.Pending, s.Checked, s.Success, s.Failed, s.NotExecuted, s.StillPending, s.LookupErrors, s.TooYoung, minWait)
	if s.InFlight > 0 {
		fmt.Fprintf(&b, "; %d in flight (sending for less than %s)", s.InFlight, bulk.SendingAge)
	}
	if s.NoRef > 0 {
		fmt.Fprintf(&b, "; %d cannot be looked up (%s has no externalRef)", s.NoRef, run.Op)
	}
	return b.String()
}
