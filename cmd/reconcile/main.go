// Command reconcile is finance's nightly job and its steps: sync the
// statement and collect orders, import call logs, check the pool, export the
// reports, and schedule all of it.
//
// commands is the table of its subcommands; each lives in its own file.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "time/tzdata" // schedules name IANA zones (Asia/Kolkata) even on machines without tzdata

	"github.com/svcrecon/svcrecon/cmd/internal/billercmd"
	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

// commands is reconcile's table of subcommands, in help order: dispatch,
// -h and the scheduler's jobs (the rows marked Job) are all read from it.
// billersync is its own command too; it is listed here so that
// schedules.yaml can run it in-process.
func commands() []cli.Command {
	return append([]cli.Command{
		{Name: "run", Summary: "the nightly job: sync, import call logs, check, export (--sandbox: try it with no account)",
			Help: runHelp, New: func() cli.Runner { return new(nightlyCmd) }, Job: true, GC: cli.GCStream},
		{Name: "sync", Summary: "walk the statement and collect orders of a period into the database",
			Help: syncHelp, New: func() cli.Runner { return new(syncCmd) }, Job: true, GC: cli.GCStream},
		{Name: "import-calls", Summary: "import call logs (JSONL or bare envelopes, gzip ok) into the ledger",
			Help: importCallsHelp, New: func() cli.Runner { return new(importCallsCmd) }, Job: true, GC: cli.GCStream},
		{Name: "calls", Summary: "calls show REF: print the line a call was logged as (redacted), by call id or externalRef",
			Help: cli.Help{Synopsis: "reconcile calls show REF"}, Sub: []cli.Command{
				{Name: "show", Help: callsShowHelp, New: func() cli.Runner { return new(callsShowCmd) }, Interleaved: true},
			}},
		{Name: "check", Summary: "reconcile a period: pool arithmetic and chain, matching, reversals, unsettled orders",
			Help: checkHelp, New: func() cli.Runner { return new(checkCmd) }, Job: true, GC: cli.GCCheck},
		{Name: "export", Summary: "write the reconciliation workbook and CSV files of a period",
			Help: exportHelp, New: func() cli.Runner { return new(exportCmd) }, Job: true, GC: cli.GCStream},
		{Name: "billersync", Summary: "sync the biller list (same as the billersync command)",
			Help: billercmd.Help, New: billercmd.New, Job: true},
		{Name: "schedule", Summary: "run the jobs of schedules.yaml on time; list: next runs; run JOB: one now",
			Help: scheduleHelp, New: func() cli.Runner { return new(scheduleCmd) }, Sub: []cli.Command{
				{Name: "list", Help: scheduleListHelp, New: func() cli.Runner { return new(scheduleListCmd) }},
				{Name: "run", Help: scheduleRunHelp, New: func() cli.Runner { return new(scheduleRunCmd) }, Interleaved: true},
			}},
		{Name: "history", Summary: "job runs (scheduled and manual), newest first, and the sign-offs",
			Help: historyHelp, New: func() cli.Runner { return new(historyCmd) }, Job: true},
		{Name: "exceptions", Summary: "exceptions across runs: list, show ID, resolve ID, assign ID, import REVIEWED.xlsx",
			Help: cli.Help{Synopsis: "reconcile exceptions list|show|resolve|assign|import"}, Sub: []cli.Command{
				{Name: "list", Help: exceptionsListHelp, New: func() cli.Runner { return new(exceptionsListCmd) }},
				{Name: "show", Help: exceptionsShowHelp, New: func() cli.Runner { return new(exceptionsShowCmd) }, Interleaved: true},
				{Name: "resolve", Help: exceptionsResolveHelp, New: func() cli.Runner { return new(exceptionsResolveCmd) }, Interleaved: true},
				{Name: "assign", Help: exceptionsAssignHelp, New: func() cli.Runner { return new(exceptionsAssignCmd) }, Interleaved: true},
				{Name: "import", Help: exceptionsImportHelp, New: func() cli.Runner { return new(exceptionsImportCmd) }, Interleaved: true},
			}},
		{Name: "signoff", Summary: "sign a run off as its preparer or its approver (someone else), bound to its manifest",
			Help: signoffHelp, New: func() cli.Runner { return new(signoffCmd) }, Interleaved: true},
		{Name: "verify", Summary: "check the history's hash chain and, given manifest.json files, their inputs and exports",
			Help: verifyHelp, New: func() cli.Runner { return new(verifyCmd) }, Interleaved: true, Job: true},
	}, testCommands...)
}

// testCommands are extra subcommands a test adds (nil otherwise).
var testCommands []cli.Command

// program is reconcile: its table and the end of its -h.
func program() cli.Program {
	return cli.Program{Name: "reconcile", Commands: commands(), Footer: `Exit status: 0 done; 1 a step failed; 2 bad flags or input; 3 findings with --fail-on-breaks.

Examples:
  reconcile run --sandbox
  reconcile run --date {yesterday} --calls 'logs/calls-*.jsonl' --out reports --fail-on-breaks
  reconcile check --from {prev-month-start} --to {prev-month-end} --fail-on-breaks
  reconcile schedule list`, Now: func() time.Time { return clock() }}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cli.TuneGC(program().GCFor(os.Args[1:]))
	endProfile := cli.StartProfile(os.Stderr, os.Args[1:])
	code := cli.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr, os.Args[1:]...)
	endProfile()
	stop()
	os.Exit(code)
}

// run is reconcile with args (without the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return program().Run(ctx, args, cli.Stdio{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr})
}
