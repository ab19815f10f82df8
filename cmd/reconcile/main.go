// Command reconcile is finance's nightly job and its steps: sync the
// statement and collect orders, import call logs, check the pool, export the
// reports, and schedule all of it.
//
// Each subcommand lives in its own file and registers itself in init.
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

// command is one subcommand of reconcile.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func init() {
	// billersync is its own command too; registered here so that
	// schedules.yaml can run it in-process.
	register(command{name: "billersync", summary: "sync the biller list (same as the billersync command)", run: billercmd.Run})
}

func register(c command) { commands[c.name] = c }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmds := make([]cli.Command, 0, len(commands))
	for _, c := range commands {
		cmds = append(cmds, cli.Command{Name: c.name, Summary: c.summary, Run: c.run})
	}
	return cli.Dispatch(ctx, "reconcile", cmds, `Exit status: 0 done; 1 a step failed; 2 bad flags or input; 3 findings with --fail-on-breaks.

Examples:
  reconcile run --sandbox
  reconcile run --date 2026-11-21 --calls 'logs/calls-*.jsonl' --out reports --fail-on-breaks
  reconcile check --from 2026-11-01 --to 2026-11-21 --fail-on-breaks
  reconcile schedule list`, args, stdout, stderr)
}
