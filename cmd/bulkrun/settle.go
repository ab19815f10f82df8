package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
)

var settleHelp = cli.Help{Synopsis: "bulkrun settle RUN [--rounds N] [--wait D]", Examples: `  bulkrun settle 7KQ2M
  bulkrun settle 7KQ2M --rounds 10 --wait 5m

Brings a run to rest after a kill, a crash or pending answers: each round sends the rows
still unsent (as bulkrun resume; rows a dead process left 'sending' become pending) and
looks the pending rows up (as bulkrun recheck), until no row is pending or unsent, waiting
--wait between rounds while rows are pending. The results file is rewritten after every
round. Secret --set values of the run are not stored: give them again with --set.

Exit status: 0 nothing pending or unsent; 1 the run stopped (--max-debit, an error,
Ctrl-C) or rows are still unsent; 3 rows still pending after the last round.`}

// settleCmd is bulkrun settle RUN.
type settleCmd struct {
	common        cli.Common
	rounds        int
	wait, minWait time.Duration
	sets          multi
}

func (sc *settleCmd) Flags(fs *flag.FlagSet) {
	sc.common.BindExcept(fs, serviceFlagsUnused...)
	fs.IntVar(&sc.rounds, "rounds", 5, "at most this many rounds of resume and recheck")
	fs.DurationVar(&sc.wait, "wait", 2*time.Minute, "pause between rounds while rows are pending")
	fs.DurationVar(&sc.minWait, "min-wait", 2*time.Minute, "leave rows sent less than this long ago for a later round")
	fs.Var(&sc.sets, "set", "field=value: a secret --set value of the run, which is not stored (repeatable)")
}

func (sc *settleCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	switch {
	case len(call.Args) != 1:
		return "", cli.Usagef("settle needs one run id, e.g. bulkrun settle 7KQ2M (bulkrun status lists runs)")
	case sc.rounds < 1:
		return "", cli.Usagef("--rounds %d: want 1 or more", sc.rounds)
	case sc.wait <= 0 || sc.minWait < 0:
		return "", cli.Usagef("settle: --wait must be above zero and --min-wait 0 or more")
	}
	return "", sc.settle(ctx, call.Args[0], call.Stdout, call.Stderr)
}

// settle brings run id to rest.
func (sc *settleCmd) settle(ctx context.Context, id string, stdout, stderr io.Writer) error {
	env, run, op, err := openRun(ctx, &sc.common, stderr, id)
	if err != nil {
		return err
	}
	defer env.Close()
	errs := stderrsOf(ctx, &sc.common, stderr, env.Log)
	table, rows, err := prepareSend(env, run, op, sc.sets, "bulkrun settle", errs.lines)
	if err != nil {
		return err
	}
	ctx, lease, release, err := hold(ctx, env, run)
	if err != nil {
		return err
	}
	defer release()

	var werr error
	var paths []string
	st := &bulk.Settler{
		Runner:    newRunner(env, run, lease, errs.progress),
		Rechecker: newRechecker(env, sc.minWait, 4, rows),
		Rounds:    sc.rounds, Wait: sc.wait, Sleep: pause,
		AfterRound: func(round int, c bulk.Counts) {
			paths, werr = writeResults(context.WithoutCancel(ctx), env, run, op, table)
			fmt.Fprintf(stdout, "round %d: %s\n", round, c)
		},
	}
	s, serr := st.Settle(ctx, run, rows)
	if s.Stop != "" || serr != nil {
		paths, werr = writeResults(context.WithoutCancel(ctx), env, run, op, table)
	}
	report(stdout, run, s.Counts, paths)
	switch {
	case serr != nil:
		return fmt.Errorf("settle run %s: %w", run.ID, serr)
	case werr != nil:
		return werr
	case s.Stop == bulk.StopMaxDebit:
		return fmt.Errorf("run %s stopped: pool debits %s reach --max-debit %s; %d rows not sent (bulkrun resume %s --max-debit MORE continues)",
			run.ID, s.Debits(), run.Settings.MaxDebit, s.Unsent, run.ID)
	case s.Stop != "":
		return fmt.Errorf("run %s %s: %d rows not sent (bulkrun settle %s continues)", run.ID, s.Stop, s.Unsent, run.ID)
	case s.Settled():
		fmt.Fprintf(stdout, "run %s settled in %d round(s): nothing pending or unsent\n", run.ID, s.Rounds)
		return nil
	case s.Unsent > 0:
		return fmt.Errorf("run %s: %d rows still unsent after %d round(s): bulkrun settle %s continues", run.ID, s.Unsent, s.Rounds, run.ID)
	}
	return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("run %s: %d rows still pending after %d round(s): bulkrun settle %s later",
		run.ID, s.Pending, s.Rounds, run.ID)}
}
