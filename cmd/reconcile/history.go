package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/schedule"
	"github.com/svcrecon/svcrecon/internal/store"
)

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := historyJob(ctx, args, stdout, stderr)
	return err
}

// historyJob is reconcile history; its summary says how many runs it listed.
func historyJob(ctx context.Context, args []string, stdout, stderr io.Writer) (string, error) {
	fs := cli.NewFlagSet("history", "reconcile history [--job NAME] [--limit N] [--db FILE] [-v]\n\n"+
		"Prints the recorded job runs, newest first: run id, job, trigger (schedule or manual), the\n"+
		"host that ran it (schedulers on several hosts share a PostgreSQL database: each fire time\n"+
		"runs once, on one of them), start (IST), duration, outcome and what the run said: for ok and breaks the last line of the\n"+
		"run's own summary (a nightly run's counts per finding), for the others the error (-v: the\n"+
		"whole summary and error). Outcomes: ok; breaks (it ran and found breaks: exit status 3, a\n"+
		"warning); failed (it could not run, or stopped half-way); skipped; cancelled; panic; running.",
		`  reconcile history
  reconcile history --job nightly --limit 5
  reconcile history --db /var/lib/svcrecon/svcrecon.db -v
  reconcile history --db postgres://svcrecon@db.internal:5432/svcrecon?sslmode=verify-full --job nightly`, stderr)
	var c cli.Common
	bindCommon(fs, &c, inheritedFlags...) // the log flags too: history can be a job
	job := fs.String("job", "", "only this job")
	limit := fs.Int("limit", 20, "at most this many runs (0: all)")
	verbose := fs.Bool("v", false, "print each run's whole summary and error")
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		return "", cli.Usagef("history: unexpected %q (did you mean --job %s?)", fs.Arg(0), fs.Arg(0))
	}
	if *limit < 0 {
		return "", cli.Usagef("history: --limit %d: want 0 (all) or more", *limit)
	}
	if _, err := c.Logger(ctx, stderr); err != nil { // the log flags are checked like everywhere
		return "", err
	}
	if store.Missing(c.DB) {
		return "", cli.Usagef("history: no database %s (give --db or SVC_DB)", c.DB)
	}
	db, err := store.Open(ctx, c.DB)
	if err != nil {
		return "", err
	}
	defer db.Close()
	recs, err := schedule.History(ctx, db, schedule.HistoryOptions{Job: *job, Limit: *limit})
	if err != nil {
		return "", err
	}
	if len(recs) == 0 {
		if *job != "" {
			line := fmt.Sprintf("no runs of job %s recorded", *job)
			fmt.Fprintln(stdout, line)
			return line, nil
		}
		fmt.Fprintln(stdout, "no job runs recorded yet")
		return "no job runs recorded yet", nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tJOB\tTRIGGER\tHOST\tSTARTED (IST)\tDURATION\tOUTCOME\tERROR / SUMMARY")
	for _, r := range recs {
		dur := "-"
		if !r.Finished.IsZero() {
			dur = r.Duration().Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Job, r.Trigger, orDash(r.Host),
			r.Started.In(recon.IST).Format(recon.TimestampLayout), dur, r.Outcome, oneLine(r))
	}
	if err := tw.Flush(); err != nil {
		return "", err
	}
	if *verbose {
		for _, r := range recs {
			fmt.Fprintf(stdout, "\nrun %d (%s, %s):\n", r.ID, r.Job, r.Outcome)
			if !r.FireAt.IsZero() {
				fmt.Fprintf(stdout, "  fire time: %s IST\n", r.FireAt.In(recon.IST).Format(recon.TimestampLayout))
			}
			if r.Error != "" {
				fmt.Fprintf(stdout, "  error: %s\n", r.Error)
			}
			for _, l := range strings.Split(strings.TrimSpace(r.Summary), "\n") {
				if l != "" {
					fmt.Fprintf(stdout, "  %s\n", l)
				}
			}
		}
	}
	return fmt.Sprintf("%d job runs listed", len(recs)), nil
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
