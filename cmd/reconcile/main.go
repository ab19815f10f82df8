// Command reconcile is finance's nightly job and its steps: sync the
// statement and collect orders, import call logs, check the pool, export the
// reports, and schedule all of it.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
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
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return cli.Usagef("name a subcommand, e.g. reconcile run --sandbox")
		}
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		return cli.Usagef("unknown subcommand %q (see reconcile -h)", args[0])
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: reconcile SUBCOMMAND [flags]   (reconcile SUBCOMMAND -h for its flags and examples)")
	fmt.Fprintln(w, "\nSubcommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-13s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nExamples:\n  reconcile run --sandbox\n  reconcile run --date 2026-11-21 --calls 'logs/calls-*.jsonl' --out reports --fail-on-breaks")
}
