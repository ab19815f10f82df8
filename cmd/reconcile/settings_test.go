package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
)

// TestBadSettingsRefusedBeforeTheFirstCall: every setting that cannot
// work is refused by sync and run with one line naming it and what is
// wrong, exit 2, before any request, database, call log or report.
func TestBadSettingsRefusedBeforeTheFirstCall(t *testing.T) {
	svc := clitest.NewService(t)
	for _, bad := range clitest.BadSettings(t, svc.URL) {
		if bad.Needs == "outlet-id" { // the statement needs none
			continue
		}
		for _, cmd := range [][]string{
			{"sync", "--from", "2026-11-20", "--to", "2026-11-20"},
			{"run", "--date", "2026-11-20", "--fail-on-breaks"},
		} {
			t.Run(bad.Name+"/"+cmd[0], func(t *testing.T) {
				clitest.Setenv(t, append(slices.Clone(svc.Env), bad.Env...))
				dir := t.TempDir()
				args := append(slices.Clone(cmd), "--db", filepath.Join(dir, "svcrecon.db"), "--call-log", filepath.Join(dir, "calls.jsonl"))
				if cmd[0] == "run" {
					args = append(args, "--out", filepath.Join(dir, "reports"))
				}
				var stderr bytes.Buffer
				code := cli.Exit(run(context.Background(), append(args, bad.Args...), io.Discard, &stderr), &stderr)
				if wrong := clitest.CheckRefusal(bad, code, stderr.String()); wrong != "" {
					t.Errorf("%q: %s:\nexit %d\n%s", args, wrong, code, stderr.String())
				}
				if left, _ := os.ReadDir(dir); len(left) != 0 {
					t.Errorf("%v left %v behind", args, left)
				}
			})
		}
	}
	if n := svc.Requests(); n != 0 {
		t.Errorf("%d requests reached the service, want none", n)
	}
}

// TestScheduleRefusesACronThatNeverFires: a job on 30 February is refused
// by the daemon, schedule list and schedule run alike, as
// schedules.yaml:LINE, exit 2, before the database is created.
func TestScheduleRefusesACronThatNeverFires(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", "jobs:\n  nightly:\n    cron: \"30 2 * * *\"\n    command: history\n"+
		"  month-end:\n    cron: \"0 23 30 2 *\"\n    command: history\n")
	db := filepath.Join(dir, "jobs.db")
	want := file + `:5: job month-end: cron "0 23 30 2 *" never fires`
	for _, args := range [][]string{
		{"schedule", "--file", file, "--db", db},
		{"schedule", "list", "--file", file},
		{"schedule", "run", "--file", file, "--db", db, "nightly"},
		{"schedule", "run", "--file", file, "--db", db, "month-end"},
	} {
		var stderr bytes.Buffer
		code := cli.Exit(run(context.Background(), args, io.Discard, &stderr), &stderr)
		if code != cli.ExitUsage || !strings.HasPrefix(stderr.String(), "error: "+want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want 2 and %q", args, code, stderr.String(), want)
		}
	}
	for _, args := range [][]string{
		{"schedule", "--file", file, "--db", db, "--stop-grace", "0s"},
		{"schedule", "run", "--file", file, "--db", db, "--stop-grace", "-5s", "nightly"},
	} {
		var stderr bytes.Buffer
		code := cli.Exit(run(context.Background(), args, io.Discard, &stderr), &stderr)
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), "--stop-grace") {
			t.Errorf("%v: exit %d, %q; want 2 naming --stop-grace", args, code, stderr.String())
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a refused schedule created its database")
	}
}

// TestDatabasePasswordNeverShown: a password in a database URL — a job's
// args, SVC_DB — is shown by no command: not schedule list, not the log of
// schedule run nor its error, not history, not -h's default.
func TestDatabasePasswordNeverShown(t *testing.T) {
	const pw = "Pa55w0rdXYZ"
	dsn := "postgres://svc:" + pw + "@127.0.0.1:1/svcrecon?sslmode=disable&password=" + pw
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", "jobs:\n  remote:\n    cron: \"30 2 * * *\"\n    command: history\n"+
		"    args: [\"--db\", \""+dsn+"\"]\n  remote2:\n    cron: \"30 3 * * *\"\n    command: history\n    args: [\"--db="+dsn+"\"]\n")
	jobs := filepath.Join(dir, "jobs.db")
	t.Setenv("SVC_DB", dsn)
	var out bytes.Buffer
	for _, args := range [][]string{
		{"schedule", "list", "--file", file},
		{"schedule", "run", "--file", file, "--db", jobs, "remote"},
		{"schedule", "run", "--file", file, "--db", jobs, "remote2"},
		{"history", "--db", jobs, "-v"},
		{"check", "-h"},
		{"schedule", "-h"},
	} {
		var stdout, stderr bytes.Buffer
		code := cli.Exit(run(context.Background(), args, &stdout, &stderr), &stderr)
		fmt.Fprintf(&out, "$ %s (exit %d)\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	if strings.Contains(out.String(), pw) {
		t.Fatalf("the password was shown:\n%s", out.String())
	}
	for _, want := range []string{"runs: reconcile history --db postgres://svc@127.0.0.1:1/svcrecon\n",
		"runs: reconcile history --db=postgres://svc@127.0.0.1:1/svcrecon\n", "args=\"--db postgres://svc@127.0.0.1:1/svcrecon\"",
		"(default postgres://svc@127.0.0.1:1/svcrecon)", "127.0.0.1:1/svcrecon"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output does not show %q:\n%s", want, out.String())
		}
	}
}
