package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

var signoffHelp = cli.Help{
	Synopsis: "reconcile signoff RUN --as preparer|approver [--by NAME] [--note TEXT] [--db FILE]",
	Description: "Signs a reconciliation run off, bound to its manifest's digest: first a preparer, then an\n" +
		"approver who is someone else (the same person is refused, exit 2; names are compared ignoring\n" +
		"case and surrounding or repeated white space). RUN is the run id that check,\n" +
		"run and the Summary show. A run whose inputs changed since its check (a re-sync that altered a\n" +
		"day, a call log imported later) is stale and cannot be signed: check its period again and sign\n" +
		"the new run. A run a newer check of its period superseded, or whose period is incomplete (a day's\n" +
		"walk or call log missing), cannot be signed either (exit 2). A sign-off whose run's inputs\n" +
		"change afterwards is shown stale by reconcile history and the next workbook, one whose run is\n" +
		"superseded afterwards superseded. Sign-offs are events of the history, never edited.",
	Examples: `  reconcile signoff 9 --as preparer --by ravi --note "November: open items carried to December"
  reconcile signoff 9 --as approver --by meera`,
}

// signoffCmd is reconcile signoff.
type signoffCmd struct {
	db           dbCmd
	as, by, note string
}

func (s *signoffCmd) Flags(fs *flag.FlagSet) {
	s.db.bind(fs)
	fs.StringVar(&s.as, "as", "", "preparer or approver")
	fs.StringVar(&s.by, "by", login(), "who signs (default: the login name)")
	fs.StringVar(&s.note, "note", "", "a note kept with the sign-off")
}

func (s *signoffCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) != 1 {
		return "", cli.Usagef("signoff: name one run: reconcile signoff RUN --as preparer|approver")
	}
	run, err := strconv.ParseInt(call.Args[0], 10, 64)
	if err != nil || run <= 0 {
		return "", cli.Usagef("signoff: %q is not a run id (check and run print it: \"run 9\")", call.Args[0])
	}
	if s.as != evidence.RolePreparer && s.as != evidence.RoleApprover {
		return "", cli.Usagef("signoff: --as %q: want preparer or approver", s.as)
	}
	env, err := s.db.open(ctx, call, "signoff")
	if err != nil {
		return "", err
	}
	defer env.Close()
	ev, err := evidence.Sign(ctx, env.DB, evidence.SignOff{RunID: run, Role: s.as, By: s.by, Note: s.note, At: clock()})
	if err != nil {
		return "", refusedExit(fmt.Errorf("signoff: %w", err))
	}
	line := fmt.Sprintf("run %d signed off as %s by %s at %s, bound to manifest sha256 %s (event %d)",
		run, s.as, ev.By, evidence.SeenIST(ev.At), ev.Data, ev.Seq)
	fmt.Fprintln(call.Stdout, line)
	return line, nil
}

// printSignOffs prints the sign-offs' table: run, period, role, who,
// when, and whether it still holds.
func printSignOffs(w io.Writer, list []evidence.SignOffState) error {
	fmt.Fprintln(w, "\nSign-offs:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tPERIOD\tROLE\tBY\tAT (IST)\tSTATE\tNOTE")
	for _, s := range list {
		fmt.Fprintf(tw, "%d\t%s..%s\t%s\t%s\t%s\t%s\t%s\n", s.RunID, s.From, s.To, s.Role, s.By,
			s.At.In(recon.IST).Format(recon.TimestampLayout), s.State(), s.Note)
	}
	return tw.Flush()
}
