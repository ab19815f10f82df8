package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// This file is bulkrun resume, and what the commands that work on a stored
// run share (resume, recheck, settle): opening it, readying it to send its
// rows again, holding it.

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
	owned := resultPaths(run) // before a new --out
	if err := r.apply(call.Given, &run.Settings); err != nil {
		return "", err
	}
	errs := stderrsOf(ctx, &r.common, call.Stderr, env.Log)
	table, rows, err := prepareSend(env, run, op, r.sets, "bulkrun resume", errs.lines)
	if err != nil {
		return "", err
	}
	if err := checkOwnResults(run, owned, r.force); err != nil {
		return "", err
	}
	lease, err := starter(env).Start(ctx, &bulk.Plan{Run: run, Continue: true})
	if err != nil {
		return "", refused(err)
	}
	defer lease.Release(ctx)
	return "", execute(ctx, env, lease, run, op, table, rows, r.card, call.Stdout, errs.progress)
}

// openRun opens the environment of a command that works on run id (with a
// client) and loads the run (any case) and its operation; an unknown id
// is a usage error. The caller closes env when err is nil.
func openRun(ctx context.Context, c *cli.Common, stderr io.Writer, id string) (*cli.Env, *bulk.Run, *svcapi.Operation, error) {
	log, err := c.Logger(ctx, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	// The run is in the database: one that does not exist is a misspelt
	// --db (refused after the settings, and not created).
	env, err := c.Open(ctx, log, cli.Options{NeedClient: true, ExistingDB: "run " + id})
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
// its rows built (their problems and notices written to lines), its outputs
// checked. Nothing is sent or changed.
func prepareSend(env *cli.Env, run *bulk.Run, op *svcapi.Operation, sets []string, command string, lines io.Writer) (*bulk.Table, []bulk.Row, error) {
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
	noticeExtra(lines, op, table)
	rows, err := buildRows(op, table, run.Settings.Sets, run.ID, lines)
	if err != nil {
		return nil, nil, err
	}
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
