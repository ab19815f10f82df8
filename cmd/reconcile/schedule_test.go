package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/schedule"
	"github.com/svcrecon/svcrecon/internal/store"
)

// registerFake adds a job "fakejob" for the test: it logs one line through
// cli.Common.Logger, prints and returns a summary (the history records what
// it returns, not what it printed) and, with --n -1, fails
// like --fail-on-breaks does.
func registerFake(tb testing.TB) {
	tb.Helper()
	testCommands = []cli.Command{{Name: "fakejob", Help: cli.Help{Synopsis: "fakejob"}, Job: true,
		New: func() cli.Runner { return new(fakeJob) }}}
	tb.Cleanup(func() { testCommands = nil })
}

type fakeJob struct {
	c cli.Common
	n int
}

func (f *fakeJob) Flags(fs *flag.FlagSet) {
	f.c.Bind(fs)
	fs.IntVar(&f.n, "n", 0, "things")
}

func (f *fakeJob) Run(ctx context.Context, call *cli.Call) (string, error) {
	log, err := f.c.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	log.Info("fake working", "db", f.c.DB, "run", 99) // a step's own run id, as sync and check log
	summary := fmt.Sprintf("fakejob: header\nfakejob: did %d things in %s", f.n, filepath.Base(f.c.DB))
	fmt.Fprintln(call.Stdout, summary)
	fmt.Fprintln(call.Stdout, "fakejob: printed, not in the summary")
	if f.n < 0 {
		return summary, &cli.ExitError{Code: cli.ExitFindings, Err: errors.New("breaks found")}
	}
	return summary, nil
}

func writeFile(tb testing.TB, dir, name, body string) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

const fakeSchedules = `timezone: Asia/Kolkata
jobs:
  nightly:
    cron: "30 2 * * *"
    command: fakejob
    args: ["--n", "7"]
    timeout: 90m
  broken:
    cron: "0 3 * * 1-5"
    timezone: UTC
    command: fakejob
    args: ["--n", "-1"]
`

func TestScheduleList(t *testing.T) {
	registerFake(t)
	file := writeFile(t, t.TempDir(), "schedules.yaml", fakeSchedules)
	defer func(f func() time.Time) { clock = f }(clock)
	clock = func() time.Time { return time.Date(2026, 11, 22, 11, 24, 0, 0, time.UTC) } // Sunday 16:54 IST
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"schedule", "list", "--file", file, "--n", "2"}, &out, &errb); err != nil {
		t.Fatalf("schedule list: %v\n%s", err, errb.String())
	}
	want := `nightly  "30 2 * * *" in Asia/Kolkata, timeout 1h30m
  runs: reconcile fakejob --n 7
  next: Mon 2026-11-23 02:30 IST (in 9h36m)
        Tue 2026-11-24 02:30 IST

broken  "0 3 * * 1-5" in UTC
  runs: reconcile fakejob --n -1
  next: Mon 2026-11-23 03:00 UTC (in 15h36m)
        Tue 2026-11-24 03:00 UTC
`
	if out.String() != want {
		t.Errorf("schedule list printed\n%s\nwant\n%s", out.String(), want)
	}
}

func TestScheduleFileErrors(t *testing.T) {
	registerFake(t)
	dir := t.TempDir()
	tests := []struct{ name, body, want string }{
		{"unknown command", "jobs:\n  a:\n    cron: '@daily'\n    command: fakejobb\n", "schedules.yaml:4: job a: unknown command \"fakejobb\" (known: "},
		{"bad cron", "jobs:\n  a:\n    cron: '30 25 * * *'\n    command: fakejob\n", "schedules.yaml:3: job a: cron \"30 25 * * *\""},
		{"no schedule itself", "jobs:\n  a:\n    cron: '@daily'\n    command: schedule\n", "schedules.yaml:4: job a: unknown command \"schedule\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFile(t, dir, "schedules.yaml", tt.body)
			for _, args := range [][]string{{"schedule", "list", "--file", file}, {"schedule", "run", "--file", file, "--db", filepath.Join(dir, "x.db"), "a"}} {
				var out, errb bytes.Buffer
				err := run(context.Background(), args, &out, &errb)
				if code := cli.Exit(err, &errb); code != cli.ExitUsage {
					t.Errorf("%v: exit %d, want %d (%v)", args, code, cli.ExitUsage, err)
				}
				if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tt.want)) {
					t.Errorf("%v: error %v, want prefix %s", args, err, filepath.Join(dir, tt.want))
				}
			}
		})
	}
}

// TestScheduleRunJob runs a job now: the subcommand gets the scheduler's
// --db, its log lines carry job and run, the run lands in the history.
func TestScheduleRunJob(t *testing.T) {
	registerFake(t)
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", fakeSchedules)
	db := filepath.Join(dir, "jobs.db")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"schedule", "run", "--file", file, "--db", db, "--log-format", "json", "nightly"}, &out, &errb)
	if err != nil {
		t.Fatalf("schedule run nightly: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "fakejob: did 7 things in jobs.db\n") || !strings.Contains(out.String(), "job nightly: ok (run 1, ") {
		t.Errorf("stdout = %q", out.String())
	}
	// Every log line names the job and its run, under keys of their own:
	// the step's "run" (99) does not hide the job's run id.
	var sawJobLine bool
	for _, line := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stderr line %q is not JSON: %v", line, err)
		}
		if m["job"] != "nightly" || m["jobRun"] != float64(1) {
			t.Errorf("log line %s lacks job=nightly jobRun=1", line)
		}
		if m["msg"] == "fake working" {
			sawJobLine = true
			if m["run"] != float64(99) {
				t.Errorf("the job's own line %s lost its run=99", line)
			}
		}
	}
	if !sawJobLine {
		t.Errorf("the job's own log line is missing:\n%s", errb.String())
	}
	// A job that found breaks: its exit status (3) and error come through,
	// and it is recorded as breaks, not failed.
	out.Reset()
	errb.Reset()
	err = run(context.Background(), []string{"schedule", "run", "broken", "--file", file, "--db", db}, &out, &errb)
	if code := cli.Exit(err, io.Discard); code != cli.ExitFindings || !strings.Contains(err.Error(), "job broken: breaks (run 2") {
		t.Errorf("schedule run broken: exit %d, err %v; want exit 3", code, err)
	}

	// The history shows both, newest first.
	out.Reset()
	if err := run(context.Background(), []string{"history", "--db", db}, &out, &errb); err != nil {
		t.Fatalf("history: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "2 ") || !strings.Contains(lines[1], "broken") ||
		!strings.Contains(lines[1], " breaks ") || !strings.Contains(lines[1], "fakejob: did -1 things in jobs.db") ||
		!strings.Contains(lines[2], "nightly") || !strings.Contains(lines[2], " ok ") ||
		!strings.Contains(lines[2], "fakejob: did 7 things in jobs.db") || !strings.Contains(lines[2], "manual") {
		t.Errorf("history printed\n%s", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"history", "--db", db, "--job", "nightly", "-v"}, &out, &errb); err != nil {
		t.Fatalf("history: %v", err)
	}
	if strings.Contains(out.String(), "broken") || !strings.Contains(out.String(), "  fakejob: header\n") ||
		strings.Contains(out.String(), "printed, not in the summary") {
		t.Errorf("history --job nightly -v printed\n%s", out.String())
	}
}

// TestScheduleRunLeaseHeld: a cron(8) entry that fires while another
// process runs the job is skipped, exit 0, and recorded.
func TestScheduleRunLeaseHeld(t *testing.T) {
	registerFake(t)
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", fakeSchedules)
	dbPath := filepath.Join(dir, "jobs.db")
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	if _, err := db.Exec(`INSERT INTO leases VALUES ('nightly', 'other-host:42:abcd', ?, ?)`,
		store.FormatTime(now), store.FormatTime(now.Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"schedule", "run", "--file", file, "--db", dbPath, "nightly"}, &out, &errb); err != nil {
		t.Fatalf("schedule run: %v", err)
	}
	if !strings.Contains(out.String(), "job nightly: skipped (lease held by other-host:42:abcd until ") || strings.Contains(out.String(), "did 7") {
		t.Errorf("stdout = %q, want skipped and the job not run", out.String())
	}
	recs, err := schedule.History(context.Background(), db, schedule.HistoryOptions{})
	if err != nil || len(recs) != 1 || recs[0].Outcome != schedule.OutcomeSkipped {
		t.Errorf("history = %+v, %v; want one skipped run", recs, err)
	}
}

func TestScheduleUsage(t *testing.T) {
	registerFake(t)
	file := writeFile(t, t.TempDir(), "schedules.yaml", fakeSchedules)
	for _, args := range [][]string{
		{"schedule", "run", "--file", file},
		{"schedule", "run", "--file", file, "nope"},
		{"schedule", "bogus"},
		{"schedule", "list", "--n", "0"},
		{"history", "--db", filepath.Join(t.TempDir(), "none.db")},
	} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if code := cli.Exit(err, io.Discard); code != cli.ExitUsage {
			t.Errorf("%v: exit %d (%v), want %d", args, code, err, cli.ExitUsage)
		}
	}
	for _, args := range [][]string{{"schedule", "-h"}, {"schedule", "list", "-h"}, {"schedule", "run", "-h"}, {"history", "-h"}} {
		var errb bytes.Buffer
		err := run(context.Background(), args, &errb, io.Discard)
		if !errors.Is(err, flag.ErrHelp) || !strings.Contains(errb.String(), "Examples:\n  reconcile ") {
			t.Errorf("%v: err %v, usage %q; want help with examples", args, err, errb.String())
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{4 * time.Hour: "4h", 90 * time.Minute: "1h30m", 90 * time.Second: "1m30s",
		time.Minute: "1m", 10 * time.Second: "10s", 2*time.Hour + 5*time.Second: "2h0m5s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestHasFlag(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"--db", "x"}, true},
		{[]string{"-db=x"}, true},
		{[]string{"--dbx"}, false},
		{[]string{"--full"}, false},
		{[]string{"--", "--db"}, false},
	}
	for _, tt := range tests {
		if got := hasFlag(tt.args, "db"); got != tt.want {
			t.Errorf("hasFlag(%q, db) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestRepoSchedules checks the repository's schedules.yaml against the
// registered subcommands and zones.
func TestRepoSchedules(t *testing.T) {
	if _, ok := jobs()["billersync"]; !ok {
		t.Skip("billersync is not registered in reconcile yet")
	}
	f, err := loadSchedules("../../schedules.yaml", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"nightly", "billers"} {
		j, ok := f.Job(name)
		if !ok {
			t.Fatalf("schedules.yaml has no job %s", name)
		}
		if j.Location.String() != "Asia/Kolkata" {
			t.Errorf("job %s zone = %s, want Asia/Kolkata", name, j.Location)
		}
	}
}

// TestScheduleLeaseAcrossProcesses runs `reconcile schedule run` in child
// processes on one database: while one runs the job (import-calls reading
// its standard input, which the test holds open) a second is skipped naming
// the first's pid; when the first ends the lease is released; a process
// killed with SIGKILL while running the job leaves a lease the next process
// takes over at once, recording the killed run as abandoned.
func TestScheduleLeaseAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", "jobs:\n  slow:\n    cron: '@daily'\n    command: import-calls\n    args: [\"-\"]\n")
	dbPath := filepath.Join(dir, "jobs.db")
	db, err := store.Open(context.Background(), dbPath) // created before two processes open it
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	args := []string{"schedule", "run", "--file", file, "--db", dbPath, "slow"}
	line := envelopeLines(1)[0] + "\n"
	running := `SELECT count(*) FROM job_runs WHERE job = 'slow' AND outcome = 'running'`
	finished := func(h *helper, feed bool) (int, string) {
		t.Helper()
		if feed {
			io.WriteString(h.stdin, line)
		}
		h.stdin.Close()
		select {
		case <-h.done:
		case <-time.After(time.Minute):
			t.Fatalf("child still running after a minute:\n%s", h.output())
		}
		return h.cmd.ProcessState.ExitCode(), h.output()
	}

	first := startHelper(t, nil, args...)
	first.waitForRows(t, dbPath, running, 1)
	second := startHelper(t, nil, args...)
	code, out := finished(second, false)
	pid := fmt.Sprintf(":%d:", first.cmd.Process.Pid)
	if code != 0 || !strings.Contains(out, "job slow: skipped (lease held by ") || !strings.Contains(out, pid) {
		t.Fatalf("second process: exit %d, want 0 and skipped by the lease of pid %s:\n%s", code, pid, out)
	}
	if code, out := finished(first, true); code != 0 || !strings.Contains(out, "job slow: ok (run 1,") {
		t.Fatalf("first process: exit %d, want 0 and ok:\n%s", code, out)
	}

	third := startHelper(t, nil, args...)
	third.waitForRows(t, dbPath, running, 1)
	third.kill()
	if code, out := finished(startHelper(t, nil, args...), true); code != 0 || !strings.Contains(out, "job slow: ok (run 4,") {
		t.Fatalf("after a killed run: exit %d, want 0 and ok at once:\n%s", code, out)
	}

	recs, err := schedule.History(context.Background(), db, schedule.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d:%s", r.ID, r.Outcome))
	}
	if want := "4:ok 3:failed 2:skipped 1:ok"; strings.Join(got, " ") != want {
		t.Errorf("history = %v, want %s", got, want)
	}
	if len(recs) == 4 && !strings.Contains(recs[1].Error, "abandoned") {
		t.Errorf("killed run's error = %q, want abandoned", recs[1].Error)
	}
	var leases int
	db.QueryRow(`SELECT count(*) FROM leases`).Scan(&leases)
	if leases != 0 {
		t.Errorf("%d leases left after the last run ended", leases)
	}
}

// TestHelperSignals is not a test: run as a child process by
// TestScheduleSignalRecorded (RECONCILE_SIGNAL_HELPER_ARGS set), it is the
// reconcile command as main runs it, SIGINT and SIGTERM cancelling its
// context.
func TestHelperSignals(t *testing.T) {
	args := os.Getenv("RECONCILE_SIGNAL_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process for TestScheduleSignalRecorded")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Exit(run(ctx, strings.Split(args, "\n"), os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// TestScheduleSignalRecorded sends SIGTERM, then SIGINT, to a process
// running a job (`schedule run`, then the daemon with an @every job): the
// job is cancelled through its context, recorded as cancelled with the
// signal, and the lease is released. The job (import-calls reading a pipe
// the test holds open) is blocked in a read its context cannot end: the
// process stops all the same, after --stop-grace.
func TestScheduleSignalRecorded(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", "jobs:\n  slow:\n    cron: '@every 1s'\n    command: import-calls\n    args: [\"-\"]\n")
	dbPath := filepath.Join(dir, "jobs.db")
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, tc := range []struct {
		sig  syscall.Signal
		args []string
		want string
	}{
		{syscall.SIGTERM, []string{"schedule", "run", "--file", file, "--db", dbPath, "--stop-grace", "100ms", "slow"}, "terminated"},
		{syscall.SIGINT, []string{"schedule", "--file", file, "--db", dbPath, "--stop-grace", "100ms"}, "interrupt"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSignals$")
		cmd.Env = append(os.Environ(), "RECONCILE_SIGNAL_HELPER_ARGS="+strings.Join(tc.args, "\n"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		stdin, err := cmd.StdinPipe() // held open: the job waits for its input
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h := &helper{cmd: cmd, done: make(chan struct{})}
		go func() { cmd.Wait(); close(h.done) }()
		h.waitForRows(t, dbPath, `SELECT count(*) FROM job_runs WHERE outcome = 'running'`, 1)
		cmd.Process.Signal(tc.sig)
		select {
		case <-h.done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatalf("%v: still running a minute after %v", tc.args, tc.sig)
		}
		stdin.Close()
		var outcome, errText string
		var leases int
		db.QueryRow(`SELECT outcome, error FROM job_runs WHERE id = (SELECT max(id) FROM job_runs)`).Scan(&outcome, &errText)
		db.QueryRow(`SELECT count(*) FROM leases`).Scan(&leases)
		if outcome != schedule.OutcomeCancelled || !strings.Contains(errText, tc.want+" signal received") || leases != 0 {
			t.Errorf("run %d after %v: outcome %q, error %q, %d leases; want cancelled naming the signal, no lease\n%s",
				i+1, tc.sig, outcome, errText, leases, out.String())
		}
	}
}

// TestScheduleListSeconds: the next run times are shown at the resolution
// of the expression: seconds for @every 5s (three distinct times, not
// three times the same minute), minutes for @every 1h.
func TestScheduleListSeconds(t *testing.T) {
	registerFake(t)
	file := writeFile(t, t.TempDir(), "schedules.yaml", "jobs:\n  fast:\n    cron: '@every 5s'\n    command: fakejob\n"+
		"  odd:\n    cron: '@every 1m30s'\n    command: fakejob\n  hourly:\n    cron: '@every 1h'\n    command: fakejob\n")
	defer func(f func() time.Time) { clock = f }(clock)
	clock = func() time.Time { return time.Date(2026, 11, 22, 11, 24, 0, 0, time.UTC) } // Sunday 16:54 IST
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"schedule", "list", "--file", file}, &out, &errb); err != nil {
		t.Fatalf("schedule list: %v\n%s", err, errb.String())
	}
	for _, want := range []string{
		"  next: Sun 2026-11-22 16:54:05 IST (in 5s)\n        Sun 2026-11-22 16:54:10 IST\n        Sun 2026-11-22 16:54:15 IST\n",
		"  next: Sun 2026-11-22 16:55:30 IST (in 1m30s)\n        Sun 2026-11-22 16:57:00 IST\n",
		"  next: Sun 2026-11-22 17:54 IST (in 1h)\n        Sun 2026-11-22 18:54 IST\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("schedule list printed\n%s\nwant it to contain\n%s", out.String(), want)
		}
	}
}
