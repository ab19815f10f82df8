// Command bulkrun replays any operation of the service for every row of a
// CSV file — thousands of PAN checks, litigation searches, company look-ups —
// calling each row exactly once, resumable after a kill.
//
// Columns name request fields (dotted names for nested objects); every row
// is validated before the first call; each row is journaled in SQLite before
// and after its call; a killed or stopped run resumes where it stopped, and
// rows whose call was cut off are pending, resolved by the transaction-status
// look-up (bulkrun recheck): executed → success, never executed → unsent
// again, sent by the next resume with the same externalRef (never re-sent
// blindly; the service refuses a repeated externalRef without debiting).
//
// Exit status of run, resume and recheck: 0 every row sent and none pending;
// 1 the run stopped before every row was sent (Ctrl-C, --max-debit, an
// error) — resume it; 2 bad flags or bad input, nothing sent; 3 every row
// sent but some are pending — recheck them later. recheck exits 1 when it
// returned rows to unsent (resume the run) and 3 when rows are still pending;
// settle repeats both until nothing is pending or unsent.
//
// On SQLite one process holds a run at a time (a lease in the database,
// with host, pid and heartbeat): another run, resume, recheck or settle of
// that run is refused with exit 2 and told who holds it; a holder that is
// gone (its pid no longer runs on this host, or its heartbeat stopped) is
// taken over. On PostgreSQL (--db postgres://…) the same command started on
// several hosts joins the run as one more worker: each claims a few rows at
// a time, --max-debit is shared, and a worker that dies leaves its rows in
// flight pending, for recheck.
package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

// commands is bulkrun's table of subcommands, in help order: dispatch and
// -h are read from it. Flags may follow a subcommand's positional
// arguments (bulkrun resume 7KQ2M --db ops.db).
func commands() []cli.Command {
	return []cli.Command{
		{Name: "ops", Summary: "list the operations, or one operation's fields and an example CSV header",
			Help: opsHelp, New: func() cli.Runner { return new(opsCmd) }, Interleaved: true},
		{Name: "run", Summary: "call an operation for every row of a CSV file (continues an unfinished run of the same file)",
			Help: runHelp, New: func() cli.Runner { return new(runCmd) }, Interleaved: true},
		{Name: "resume", Summary: "continue a stopped or killed run",
			Help: resumeHelp, New: func() cli.Runner { return new(resumeCmd) }, Interleaved: true},
		{Name: "status", Summary: "show a run's rows per state and its pool debits (no RUN: list recent runs)",
			Help: statusHelp, New: func() cli.Runner { return new(statusCmd) }, Interleaved: true},
		{Name: "recheck", Summary: "resolve a run's pending rows with the transaction-status look-up",
			Help: recheckHelp, New: func() cli.Runner { return new(recheckCmd) }, Interleaved: true},
		{Name: "settle", Summary: "repeat resume and recheck until none of a run's rows is pending or unsent",
			Help: settleHelp, New: func() cli.Runner { return new(settleCmd) }, Interleaved: true},
		{Name: "callback", Summary: "callback decode [FILE|-]: decrypt QR eKYC callback values (key in SVC_ENCRYPTION_KEY)",
			Help: callbackHelp, New: func() cli.Runner { return new(callbackCmd) }, Interleaved: true},
	}
}

// program is bulkrun: its table and the end of its -h.
func program() cli.Program {
	return cli.Program{Name: "bulkrun", Commands: commands(), Footer: `Exit status: 0 all rows sent, none pending; 1 stopped before the end (resume it);
2 bad flags or input, nothing sent; 3 all rows sent, some pending (recheck later).

Examples:
  bulkrun ops verifyPanPlusV2
  bulkrun run --op verifyPanPlusV2 --in pans.csv --set consent=Y --set latitude=12.97 --set longitude=77.59 --concurrency 16
  bulkrun status 7KQ2M
  bulkrun recheck 7KQ2M --min-wait 5m
  bulkrun settle 7KQ2M --rounds 10 --wait 5m
  SVC_ENCRYPTION_KEY=$(cat callback.key) bulkrun callback decode --mask values.txt`}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go func() {
		// After the first Ctrl-C the calls in flight finish and are
		// journaled; a second one quits at once (their rows become pending).
		select {
		case <-ctx.Done():
			stop()
			cli.Notice(os.Stderr, os.Args[1:], slog.LevelWarn, "stopping: no new calls; waiting for the calls in flight (Ctrl-C again quits at once, their rows become pending)")
		case <-finished:
		}
	}()
	endProfile := cli.StartProfile(os.Stderr, os.Args[1:])
	code := cli.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr, os.Args[1:]...)
	endProfile()
	close(finished)
	os.Exit(code)
}

// stdin is what callback decode reads for "-" or no FILE; tests replace it.
var stdin io.Reader = os.Stdin

// run is bulkrun with args (without the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return program().Run(ctx, args, cli.Stdio{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}
