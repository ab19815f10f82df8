package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/schedule"
	"github.com/svcrecon/svcrecon/internal/store"
)

var scheduleHelp = cli.Help{
	Synopsis: "reconcile schedule [--file schedules.yaml] [--db FILE] [--log-format text|json]\n" +
		"       reconcile schedule list [--file schedules.yaml] [--n 3]\n" +
		"       reconcile schedule run [--file schedules.yaml] [--db FILE] JOB",
	Description: "Runs the jobs of the schedules file on their cron expressions, each in its time zone, until\n" +
		"SIGINT or SIGTERM (running jobs are cancelled and recorded as such). A run that is still\n" +
		"going makes the next one skip; a lease in the database keeps another process (a cron(8)\n" +
		"entry calling `reconcile schedule run JOB`) from running the same job at the same time.\n" +
		"For failover, run this daemon on several hosts against one PostgreSQL database (--db\n" +
		"postgres://…): each fire time of a job runs once, on the first daemon to take it, and a\n" +
		"daemon that dies is replaced at the next fire time; reconcile history shows the host.\n" +
		"Every run is recorded (ok, breaks, failed, skipped, cancelled, panic): see `reconcile history`;\n" +
		"a job with notify: POSTs a notice when a run ends with breaks or fails. The jobs get this\n" +
		"command's --db and log flags. Each job's args are checked against its command's flags before\n" +
		"the first run (schedules.yaml:LINE: …, exit 2).",
	Examples: `  reconcile schedule                                  # run the jobs of ./schedules.yaml until SIGINT/SIGTERM
  reconcile schedule --file /etc/svcrecon/schedules.yaml --db /var/lib/svcrecon/svcrecon.db --log-format json
  reconcile schedule --db postgres://svcrecon@db.internal:5432/svcrecon?sslmode=verify-full   # on two hosts, for failover
  reconcile schedule list                             # each job's next 3 run times, in its zone
  reconcile schedule list --n 5
  reconcile schedule run nightly                      # run one job now (what a cron(8) entry calls)
  reconcile history --job nightly                     # what the runs did`,
}

var scheduleRunHelp = cli.Help{
	Synopsis: "reconcile schedule run [--file schedules.yaml] [--db FILE] JOB",
	Description: "Runs one job of the schedules file now, recorded with trigger 'manual'. If the job is\n" +
		"running already (the daemon, another cron entry) it is skipped: exit 0, logged and recorded.\n" +
		"Otherwise the exit status is the job's (3: --fail-on-breaks found breaks).",
	Examples: `  reconcile schedule run nightly
  reconcile schedule run --file /etc/svcrecon/schedules.yaml --db /var/lib/svcrecon/svcrecon.db billers
  # crontab(5) line: the nightly job at 02:30 IST on a machine whose clock is UTC (21:00 UTC)
  0 21 * * * cd /srv/svcrecon && ./reconcile schedule run nightly >>log/nightly.log 2>&1`,
}

var scheduleListHelp = cli.Help{
	Synopsis: "reconcile schedule list [--file schedules.yaml] [--n 3]",
	Description: "Checks the schedules file and each job's args (against its command's flags; nothing is run) and\n" +
		"prints each job, what it runs and its next run times in its zone.",
	Examples: `  reconcile schedule list
  reconcile schedule list --file /etc/svcrecon/schedules.yaml --n 7`,
}

// inheritedFlags are the flags of the scheduler that every job gets too,
// unless its args set them.
var inheritedFlags = []string{"db", "log-format", "log-level"}

// scheduleFlags are the flags the schedule subcommands share: --file and
// (but for list) the database and log flags of cli.Common, not the service
// flags: each job's args carry its own.
type scheduleFlags struct {
	common    cli.Common
	file      string
	stopGrace time.Duration
}

func (sf *scheduleFlags) Flags(fs *flag.FlagSet) {
	sf.bindFile(fs)
	sf.common.BindOnly(fs, inheritedFlags...)
	fs.DurationVar(&sf.stopGrace, "stop-grace", schedule.DefaultStopGrace,
		"after SIGINT/SIGTERM (or a job's timeout), how long a job may take to stop before its run is recorded as cancelled without it")
}

func (sf *scheduleFlags) bindFile(fs *flag.FlagSet) {
	fs.StringVar(&sf.file, "file", "schedules.yaml", fmt.Sprintf("the schedules file (a regular file of at most %s, %s a line)",
		budget.Size(budget.SettingsFile), budget.Size(budget.SettingsLine)))
}

// jobs are the subcommands the scheduler runs, by name: the rows of the
// table marked Job.
func jobs() map[string]cli.Command {
	out := map[string]cli.Command{}
	for _, c := range commands() {
		if c.Job {
			out[c.Name] = c
		}
	}
	return out
}

// loadSchedules parses the file and, with checkArgs, each job's args by
// its command's flags (running nothing); its mistakes are usage errors
// (exit 2), FILE:LINE: reason.
func loadSchedules(path string, checkArgs bool) (*schedule.File, error) {
	cmds := jobs()
	f, err := schedule.Load(path, slices.Sorted(maps.Keys(cmds)))
	var pe *schedule.ParseError
	if errors.As(err, &pe) || errors.Is(err, os.ErrNotExist) {
		return nil, &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	if err != nil || !checkArgs {
		return f, err
	}
	for _, j := range f.Jobs {
		err := cmds[j.Command].CheckArgs(j.Args)
		if err == nil {
			continue
		}
		reason := err.Error()
		if errors.Is(err, flag.ErrHelp) {
			reason = "-h or --version: a job's args cannot ask for help"
		}
		return nil, &cli.ExitError{Code: cli.ExitUsage, Err: &schedule.ParseError{File: f.Path, Line: j.ArgsLine,
			Reason: fmt.Sprintf("job %s: args: %s", j.Name, reason)}}
	}
	return f, nil
}

// jobFuncs maps every job to a schedule.JobFunc that runs it in-process
// with the job's args (plus the scheduler's --db and log flags), its log
// lines carrying the job name and run id, and returns its summary. With
// outLog (the daemon, whose jobs run side by side), what a job prints on
// stdout is logged there too, a log line per line, labelled with the job and
// run id (stream=stdout); without it (schedule run: one job) it goes to
// stdout as it is.
func (sf *scheduleFlags) jobFuncs(stdio cli.Stdio, outLog *slog.Logger) map[string]schedule.JobFunc {
	inherited := map[string]string{"db": sf.common.DB, "log-format": sf.common.LogFormat, "log-level": sf.common.LogLevel}
	stdio.Stdout = &lockedWriter{w: stdio.Stdout}
	funcs := map[string]schedule.JobFunc{}
	for name, cmd := range jobs() {
		funcs[name] = func(ctx context.Context, run schedule.Run) (string, error) {
			labels := []any{schedule.AttrJob, run.Job.Name, schedule.AttrRun, run.ID}
			ctx = cli.WithLogAttrs(ctx, labels...)
			var args []string
			for _, f := range inheritedFlags {
				if !hasFlag(run.Job.Args, f) {
					args = append(args, "--"+f, inherited[f])
				}
			}
			jobStdio := stdio
			if outLog != nil {
				out := cli.LineLogger(ctx, outLog, slog.LevelInfo, append(labels, "stream", "stdout")...)
				defer out.Close()
				jobStdio.Stdout = out
			}
			summary, err := cmd.Run(ctx, append(args, run.Job.Args...), jobStdio)
			return summary, asJobError(err)
		}
	}
	return funcs
}

// hasFlag reports whether args set the flag name (-name, --name, -name=…).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// scheduleCmd is reconcile schedule: the daemon.
type scheduleCmd struct{ scheduleFlags }

func (sc *scheduleCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) > 0 {
		hint := ""
		if s := cli.Suggest(call.Args[0], []string{"list", "run"}); s != "" {
			hint = fmt.Sprintf("; did you mean schedule %s?", s)
		}
		return "", cli.Usagef("schedule: unexpected %q: the subcommands are list and run%s (see reconcile schedule -h)", call.Args[0], hint)
	}
	r, closeDB, err := sc.runner(ctx, "", call.Stdio)
	if err != nil {
		return "", err
	}
	defer closeDB()
	r.Log.Info("schedules loaded", "file", sc.file, "jobs", strings.Join(r.File.Names(), ","), "db", store.RedactDSN(sc.common.DB))
	return "", r.Run(ctx)
}

// runner builds the logger, loads the schedules file (checking that it has
// the job, when one is named; none: the daemon), opens the database and
// returns the runner.
// The caller calls closeDB when done.
func (sf *scheduleFlags) runner(ctx context.Context, job string, stdio cli.Stdio) (r *schedule.Runner, closeDB func() error, err error) {
	if sf.stopGrace <= 0 {
		return nil, nil, cli.Usagef("--stop-grace %v: want a positive duration such as 30s", sf.stopGrace)
	}
	log, err := sf.common.Logger(ctx, stdio.Stderr)
	if err != nil {
		return nil, nil, err
	}
	// The daemon checks every job's args before it starts; one job run by
	// hand (from cron(8)) is recorded as failed when its args are wrong.
	f, err := loadSchedules(sf.file, job == "")
	if err != nil {
		return nil, nil, err
	}
	if _, ok := jobNamed(f, job); job != "" && !ok {
		hint := ""
		if s := cli.Suggest(job, f.Names()); s != "" {
			hint = fmt.Sprintf("; did you mean %s?", s)
		}
		return nil, nil, cli.Usagef("schedule run: no job %q in %s%s (jobs: %s)", job, sf.file, hint, strings.Join(f.Names(), ", "))
	}
	db, err := store.Open(ctx, sf.common.DB)
	if err != nil {
		return nil, nil, err
	}
	var outLog *slog.Logger // the daemon's jobs run side by side: their output is labelled
	if job == "" {
		outLog = log
	}
	r = &schedule.Runner{DB: db, File: f, Funcs: sf.jobFuncs(stdio, outLog), Log: log, Now: clock, StopGrace: sf.stopGrace,
		Notifier: newNotifier(log)}
	return r, db.Close, nil
}

// jobNamed is the name of f's job typed as name: the same, or the one
// name matches ignoring case when only one does.
func jobNamed(f *schedule.File, name string) (string, bool) {
	if _, ok := f.Job(name); ok {
		return name, true
	}
	var found []string
	for _, n := range f.Names() {
		if strings.EqualFold(n, name) {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// scheduleRunCmd is reconcile schedule run JOB (flags may follow the job).
type scheduleRunCmd struct{ scheduleFlags }

func (sc *scheduleRunCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	switch len(call.Args) {
	case 0:
		return "", cli.Usagef("schedule run: name the job to run, e.g. reconcile schedule run nightly (see reconcile schedule list)")
	case 1:
	default:
		return "", cli.Usagef("schedule run: one job at a time (got %q and %q)", call.Args[0], call.Args[1])
	}
	r, closeDB, err := sc.runner(ctx, call.Args[0], call.Stdio)
	if err != nil {
		return "", err
	}
	defer closeDB()
	job, _ := jobNamed(r.File, call.Args[0])
	res, err := r.Trigger(ctx, job, schedule.TriggerManual)
	if err != nil {
		return "", err
	}
	took := res.Finished.Sub(res.Started).Round(time.Millisecond)
	switch res.Outcome {
	case schedule.OutcomeOK:
		fmt.Fprintf(call.Stdout, "job %s: ok (run %d, %s)\n", job, res.RunID, took)
		return "", nil
	case schedule.OutcomeBreaks:
		// The job's own exit status (3) is in res.Err's chain.
		return "", fmt.Errorf("job %s: breaks (run %d, %s): %w", job, res.RunID, took, res.Err)
	case schedule.OutcomeSkipped:
		fmt.Fprintf(call.Stdout, "job %s: %s (run %d)\n", job, res.Summary, res.RunID)
		return "", nil
	}
	return "", fmt.Errorf("job %s: %s (run %d, %s): %w", job, res.Outcome, res.RunID, took, res.Err)
}

// scheduleListCmd is reconcile schedule list.
type scheduleListCmd struct {
	scheduleFlags
	n int
}

func (sc *scheduleListCmd) Flags(fs *flag.FlagSet) {
	sc.bindFile(fs)
	sc.common.BindLog(fs) // the format of its errors
	fs.IntVar(&sc.n, "n", 3, "how many next run times to show per job")
}

func (sc *scheduleListCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) > 0 {
		return "", cli.Usagef("schedule list: unexpected %q (see reconcile schedule list -h)", call.Args[0])
	}
	if sc.n < 1 {
		return "", cli.Usagef("schedule list: --n %d: want at least 1", sc.n)
	}
	if _, err := sc.common.Logger(ctx, call.Stderr); err != nil { // the log flags are checked like everywhere
		return "", err
	}
	f, err := loadSchedules(sc.file, true)
	if err != nil {
		return "", err
	}
	now := clock()
	var b bytes.Buffer
	for i, j := range f.Jobs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s  %q in %s", j.Name, j.Cron, j.Location)
		if j.Timeout > 0 {
			fmt.Fprintf(&b, ", timeout %s", shortDuration(j.Timeout))
		}
		if j.Notify != "" {
			fmt.Fprintf(&b, ", notifies %s", schedule.Where(j.Notify))
		}
		fmt.Fprintf(&b, "\n  runs: reconcile %s\n", shellJoin(redact.Args(append([]string{j.Command}, j.Args...))))
		writeNext(&b, j.Next(now, sc.n), now, resolution(j.Cron))
	}
	_, err = call.Stdout.Write(b.Bytes())
	return "", err
}

// resolution is the unit a cron expression names its fire times in: a
// second for @every with seconds (@every 5s, @every 1m30s), else a minute.
func resolution(cron string) time.Duration {
	every, ok := strings.CutPrefix(cron, "@every ")
	if d, err := time.ParseDuration(strings.TrimSpace(every)); ok && err == nil && d%time.Minute != 0 {
		return time.Second
	}
	return time.Minute
}

// writeNext writes a job's next run times at the resolution of its
// expression (unit: a minute or a second), the first with the wait until
// it.
func writeNext(b *bytes.Buffer, next []time.Time, now time.Time, unit time.Duration) {
	if len(next) == 0 {
		b.WriteString("  next: never\n")
	}
	layout := "Mon 2006-01-02 15:04 MST"
	if unit < time.Minute {
		layout = "Mon 2006-01-02 15:04:05 MST"
	}
	for k, t := range next {
		label := "  next:"
		if k > 0 {
			label = "       "
		}
		fmt.Fprintf(b, "%s %s", label, t.Format(layout))
		if k == 0 {
			fmt.Fprintf(b, " (in %s)", untilText(t.Sub(now), unit))
		}
		b.WriteString("\n")
	}
}

// untilText is a wait in whole units (a minute or a second): "9h36m",
// "4s", "<1m".
func untilText(d, unit time.Duration) string {
	if d < unit {
		return "<" + shortDuration(unit)
	}
	return shortDuration(d.Truncate(unit))
}

// shortDuration drops the zero tails of a duration: "4h", "1h30m", "90s".
func shortDuration(d time.Duration) string { return recon.ShortDuration(d) }

// shellJoin quotes args the way a shell user would type them.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t*?[]{}'\"$\\;&|<>()#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// lockedWriter serializes writes of jobs running at the same time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
