// Command reconcile is finance's nightly job and its steps: sync the
// statement and collect orders, import call logs, check the pool, export the
// reports, and schedule all of it.
//
// Each subcommand lives in its own file; commands lists them all, explicitly.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "time/tzdata" // schedules name IANA zones (Asia/Kolkata) even on machines without tzdata

	"github.com/svcrecon/svcrecon/cmd/internal/billercmd"
	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

// commands is reconcile's table of subcommands, in help order. billersync
// is its own command too; it is listed here so that schedules.yaml can run
// it in-process.
func commands() []cli.Command {
	return []cli.Command{
		{Name: "run", Summary: "the nightly job: sync, import call logs, check, export (--sandbox: try it with no account)", Run: runRun},
		{Name: "sync", Summary: "walk the statement and collect orders of a period into the database", Run: runSync},
		{Name: "import-calls", Summary: "import call logs (JSONL or bare envelopes, gzip ok) into the ledger", Run: runImportCalls},
		{Name: "calls", Summary: "calls show REF: print the line a call was logged as (redacted), by call id or externalRef", Run: runCalls},
		{Name: "check", Summary: "reconcile a period: pool arithmetic and chain, matching, reversals, unsettled orders", Run: runCheck},
		{Name: "export", Summary: "write the reconciliation workbook and CSV files of a period", Run: runExport},
		{Name: "billersync", Summary: "sync the biller list (same as the billersync command)", Run: billercmd.Run},
		{Name: "schedule", Summary: "run the jobs of schedules.yaml on time; list: next runs; run JOB: one now", Run: runSchedule},
		{Name: "history", Summary: "job runs (scheduled and manual), newest first", Run: runHistory},
	}
}

// gcProfiles are how the subcommands' heaps are collected (cli.TuneGC).
var gcProfiles = map[string]cli.GCProfile{"sync": cli.GCStream, "import-calls": cli.GCStream,
	"export": cli.GCStream, "run": cli.GCStream, "check": cli.GCCheck}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if len(os.Args) > 1 {
		cli.TuneGC(gcProfiles[os.Args[1]])
	}
	endProfile := cli.StartProfile(os.Stderr)
	code := cli.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	endProfile()
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return cli.Dispatch(ctx, "reconcile", commands(), `Exit status: 0 done; 1 a step failed; 2 bad flags or input; 3 findings with --fail-on-breaks.

Examples:
  reconcile run --sandbox
  reconcile run --date 2026-11-21 --calls 'logs/calls-*.jsonl' --out reports --fail-on-breaks
  reconcile check --from 2026-11-01 --to 2026-11-21 --fail-on-breaks
  reconcile schedule list`, args, stdout, stderr)
}
