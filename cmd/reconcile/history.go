package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/schedule"
	"github.com/svcrecon/svcrecon/internal/store"
)

var historyHelp = cli.Help{
	Synopsis: "reconcile history [--job NAME] [--limit N] [--db FILE] [-v]",
	Description: "Prints the recorded job runs, newest first: run id, job, trigger (schedule or manual), the\n" +
		"host that ran it (schedulers on several hosts share a PostgreSQL database: each fire time\n" +
		"runs once, on one of them), start (IST), duration, outcome and what the run said: for ok and breaks the last line of the\n" +
		"run's own summary (a nightly run's counts per finding), for the others the error (-v: the\n" +
		"whole summary and error). Outcomes: ok; breaks (it ran and found breaks: exit status 3, a\n" +
		"warning); failed (it could not run, or stopped half-way); skipped; cancelled; panic; running.\n" +
		"Then (without --job) the sign-offs of reconciliation runs: run, period, role, who, when, and\n" +
		"whether each still holds (stale: what changed among its run's inputs since).",
	Examples: `  reconcile history
  reconcile history --job nightly --limit 5
  reconcile history --db /var/lib/svcrecon/svcrecon.db -v
  reconcile history --db postgres://svcrecon@db.internal:5432/svcrecon?sslmode=verify-full --job nightly`,
}

// historyCmd is reconcile history; its summary says how many runs it listed.
type historyCmd struct {
	c       cli.Common
	job     string
	limit   int
	verbose bool
}

func (h *historyCmd) Flags(fs *flag.FlagSet) {
	h.c.BindOnly(fs, inheritedFlags...) // the log flags too: history can be a job
	fs.StringVar(&h.job, "job", "", "only this job")
	fs.IntVar(&h.limit, "limit", 20, "at most this many runs (0: all)")
	fs.BoolVar(&h.verbose, "v", false, "print each run's whole summary and error")
}

func (h *historyCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) > 0 {
		return "", cli.Usagef("history: unexpected %q (did you mean --job %s?)", call.Args[0], call.Args[0])
	}
	if h.limit < 0 {
		return "", cli.Usagef("history: --limit %d: want 0 (all) or more", h.limit)
	}
	if _, err := h.c.Logger(ctx, call.Stderr); err != nil { // the log flags are checked like everywhere
		return "", err
	}
	if err := h.c.CheckDBExists("history"); err != nil {
		return "", err
	}
	db, err := store.Open(ctx, h.c.DB)
	if err != nil {
		return "", err
	}
	defer db.Close()
	recs, err := schedule.History(ctx, db, schedule.HistoryOptions{Job: h.job, Limit: h.limit})
	if err != nil {
		return "", err
	}
	line := fmt.Sprintf("%d job runs listed", len(recs))
	if len(recs) == 0 {
		line = "no job runs recorded yet"
		if h.job != "" {
			line = fmt.Sprintf("no runs of job %s recorded", h.job)
		}
		fmt.Fprintln(call.Stdout, line)
	} else if err := printRuns(call.Stdout, recs); err != nil {
		return "", err
	}
	if h.verbose {
		printRunDetails(call.Stdout, recs)
	}
	signed, err := evidence.SignOffs(ctx, db, func(evidence.StoredManifest) bool { return true })
	if err != nil {
		return "", err
	}
	if len(signed) > 0 && h.job == "" {
		return line, printSignOffs(call.Stdout, signed)
	}
	return line, nil
}

// printRuns prints the runs' table: one line each.
func printRuns(w io.Writer, recs []schedule.Record) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tJOB\tTRIGGER\tHOST\tSTARTED (IST)\tDURATION\tOUTCOME\tERROR / SUMMARY")
	for _, r := range recs {
		dur := "-"
		if !r.Finished.IsZero() {
			dur = r.Duration().Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Job, r.Trigger, orDash(r.Host),
			r.Started.In(recon.IST).Format(recon.TimestampLayout), dur, r.Outcome, oneLine(r))
	}
	return tw.Flush()
}

// printRunDetails prints, for -v, each run's fire time, error and whole
// summary.
func printRunDetails(w io.Writer, recs []schedule.Record) {
	for _, r := range recs {
		fmt.Fprintf(w, "\nrun %d (%s, %s):\n", r.ID, r.Job, r.Outcome)
		if !r.FireAt.IsZero() {
			fmt.Fprintf(w, "  fire time: %s IST\n", r.FireAt.In(recon.IST).Format(recon.TimestampLayout))
		}
		if r.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", r.Error)
		}
		for _, l := range strings.Split(strings.TrimSpace(r.Summary), "\n") {
			if l != "" {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
}

// orDash is s, or "-" when empty (runs recorded before hosts were).
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// historyWidth bounds the text of a run in the table: a nightly run's
// counts per finding fit; -v shows everything.
const historyWidth = 160

// oneLine is what a run said, in one line: the last line of its own
// summary for a run that ran to the end (ok, breaks) or has no error, else
// its error; cut to historyWidth.
func oneLine(r schedule.Record) string {
	lines := strings.Split(strings.TrimSpace(r.Summary), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if r.Error != "" && (s == "" || r.Outcome != schedule.OutcomeOK && r.Outcome != schedule.OutcomeBreaks) {
		s = r.Error
	}
	s = strings.ReplaceAll(s, "\n", " ")
	if rs := []rune(s); len(rs) > historyWidth {
		s = string(rs[:historyWidth-1]) + "…"
	}
	return s
}
