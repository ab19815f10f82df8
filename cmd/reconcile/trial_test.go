package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
)

// The tests of this file try every command as the new user did:
// with a misspelt path, --log-format json, -h and a lower-case name.

// readers are the commands that only read the database, with the rest of
// a valid command line.
var readers = map[string][]string{
	"check":      {"check", "--from", "2026-11-01", "--to", "2026-11-02"},
	"export":     {"export", "--from", "2026-11-01", "--to", "2026-11-02", "--out", "reports"},
	"history":    {"history"},
	"calls show": {"calls", "show", "17"},
}

// TestReadersRefuseAMissingDatabase: a --db that names no file is one line
// naming it, exit 2, and nothing is created (check used to create an empty
// database and report a quiet night).
func TestReadersRefuseAMissingDatabase(t *testing.T) {
	for name, args := range readers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			typo := filepath.Join(dir, "typo.db")
			var out, errOut bytes.Buffer
			err := run(context.Background(), append(args, "--db", typo), &out, &errOut)
			if code := cli.Exit(err, &errOut); code != cli.ExitUsage {
				t.Errorf("%s --db typo.db: exit %d (%v), want %d", name, code, err, cli.ExitUsage)
			}
			if got := errOut.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "no database "+typo) {
				t.Errorf("%s --db typo.db: stderr %q, want one line naming %s", name, got, typo)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("%s --db typo.db left %v behind", name, entries)
			}
		})
	}
}

// TestREADMEQuotesTheMissingDatabaseError: the README quotes the error of a
// misspelt --db as the program prints it.
func TestREADMEQuotesTheMissingDatabaseError(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	_, _, stderr := runExit(t, "check", "--db", "typo.db", "--from", "2026-11-01", "--to", "2026-11-02")
	if quoted := "`" + strings.TrimSpace(stderr) + "`"; !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), quoted) {
		t.Errorf("the README does not quote %s", quoted)
	}
}

// runExit runs reconcile with args as main does: the error printed by
// cli.Exit in the format the args ask for.
func runExit(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = cli.Exit(run(context.Background(), args, &o, &e), &e, args...)
	return code, o.String(), e.String()
}

// checkJSONLines fails the test unless every line of stderr is one JSON
// object with an IST time.
func checkJSONLines(t *testing.T, what, stderr string) []map[string]any {
	t.Helper()
	recs := clitest.JSONLines(t, stderr)
	for _, r := range recs {
		if at, _ := r["time"].(string); !strings.HasSuffix(at, "+05:30") {
			t.Errorf("%s: log time %q, want IST with its offset", what, at)
		}
	}
	if t.Failed() {
		t.Logf("%s: stderr:\n%s", what, stderr)
	}
	return recs
}

// TestJSONLogsOnEveryPath: with --log-format json every line on stderr is
// one JSON object, on every path: the nightly job's log and progress, the
// bad lines of an import, which call calls show shows, and the errors
// before the logger exists (a misspelt flag or subcommand, a missing
// database or schedules file).
func TestJSONLogsOnEveryPath(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	code, stdout, stderr := runExit(t, "run", "--sandbox", "--sandbox-days", "3", "--db", db, "--out", filepath.Join(dir, "reports"), "--log-format", "json")
	if code != cli.ExitOK || !strings.Contains(stdout, "Reconciliation") {
		t.Fatalf("run --sandbox: exit %d\n%s%s", code, stdout, stderr)
	}
	if recs := checkJSONLines(t, "run --sandbox", stderr); len(recs) < 5 {
		t.Errorf("run --sandbox logged %d lines, want its steps", len(recs))
	}
	bad := writeFile(t, dir, "bad.jsonl", okEnvelope+"\n"+brokenEnvelope+"\nnot json\n")
	code, _, stderr = runExit(t, "import-calls", "--db", db, "--log-format", "json", bad)
	recs := checkJSONLines(t, "import-calls with bad lines", stderr)
	if code != cli.ExitFailure || !strings.Contains(stderr, `"msg":"`+bad+`:3: `) || recs[len(recs)-1]["level"] != "ERROR" {
		t.Errorf("import-calls with bad lines: exit %d, want 1, each bad line and the error as JSON\n%s", code, stderr)
	}
	code, _, stderr = runExit(t, "calls", "show", "1", "--db", db, "--log-format", "json")
	if checkJSONLines(t, "calls show", stderr); code != cli.ExitOK || !strings.Contains(stderr, `"msg":"call 1 (`) {
		t.Errorf("calls show 1: exit %d, want 0 and which call it is as JSON\n%s", code, stderr)
	}
	for _, args := range [][]string{
		{"check", "--db", db, "--from", "2026-11-01", "--to", "2026-11-02"},
		{"export", "--db", db, "--from", "2026-11-01", "--to", "2026-11-02", "--out", filepath.Join(dir, "x")},
		{"history", "--db", db},
		{"check", "--fomr", "2026-11-01"},
		{"check", "--db", filepath.Join(dir, "typo.db"), "--from", "2026-11-01", "--to", "2026-11-02"},
		{"chek", "--from", "2026-11-01"},
		{"schedule", "list", "--file", filepath.Join(dir, "none.yaml")},
		{"sync", "--what", "statment", "--from", "2026-11-01", "--to", "2026-11-02"},
	} {
		_, _, stderr := runExit(t, append(args, "--log-format", "json")...)
		checkJSONLines(t, strings.Join(args, " "), stderr)
	}
}

// TestDaemonLabelsEveryLine: the scheduler daemon's jobs run side by side,
// so every line it writes says whose it is: its own log lines about a job,
// the job's log lines and what the job prints (stream=stdout) carry the
// job and its run id; with --log-format json each is one JSON object, and
// nothing else reaches stdout.
func TestDaemonLabelsEveryLine(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "jobs.db")
	file := writeFile(t, dir, "schedules.yaml", "jobs:\n  hist:\n    cron: '@every 1s'\n    command: history\n")
	for _, format := range []string{"json", "text"} {
		ctx, cancel := context.WithCancel(context.Background())
		var o bytes.Buffer
		e := &watchWriter{watch: "job finished", then: cancel}
		err := run(ctx, []string{"schedule", "--file", file, "--db", db, "--log-format", format}, &o, e)
		cancel()
		if err != nil {
			t.Fatalf("schedule --log-format %s: %v\n%s", format, err, e.String())
		}
		if o.Len() > 0 {
			t.Errorf("schedule --log-format %s wrote on stdout: %q; want the jobs' output logged", format, o.String())
		}
		stderr := e.String()
		if format == "json" {
			var output bool
			for _, r := range checkJSONLines(t, "schedule", stderr) {
				if strings.HasPrefix(r["msg"].(string), "job ") && r["msg"] != "job scheduled" && (r["job"] != "hist" || r["jobRun"] == nil) {
					t.Errorf("daemon line %v names no job run", r)
				}
				if r["stream"] == "stdout" {
					output = true
					if r["job"] != "hist" || r["jobRun"] == nil {
						t.Errorf("job output %v names no job run", r)
					}
				}
			}
			if !output {
				t.Errorf("the job's output was not logged:\n%s", stderr)
			}
			continue
		}
		if !regexp.MustCompile(`level=INFO msg="RUN +JOB .*" job=hist jobRun=\d+ stream=stdout`).MatchString(stderr) {
			t.Errorf("schedule --log-format text: the job's output is not labelled:\n%s", stderr)
		}
	}
}
