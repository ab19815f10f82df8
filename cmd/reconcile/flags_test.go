package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// serviceFlags are the flags of the commands that call the service: the
// service's settings, the sandbox, the client's limits, the database and
// the logs (cli.Common.Bind).
var serviceFlags = []string{"account", "base-url", "call-log", "client-id", "db", "db-pool", "endpoint-ip", "log-format", "log-level",
	"max-body", "outlet-id", "rate", "sandbox", "sandbox-days", "sandbox-seed", "timeout", "version"}

// without returns flags less the named ones, plus more, sorted.
func without(flags []string, drop []string, more ...string) []string {
	var out []string
	for _, f := range flags {
		if !slices.Contains(drop, f) {
			out = append(out, f)
		}
	}
	out = append(out, more...)
	slices.Sort(out)
	return out
}

// TestEveryHelpListsOnlyUsedFlags: each subcommand's -h lists the flags it
// uses and no other. Only run, sync and billersync call the service (and
// the statement needs no outlet id, the biller list no account); history
// and the schedule commands work on the database and the schedules file
// (schedule list on the file only). Every command takes the log flags: they
// say how its lines on stderr are written. check, import-calls and export are in
// TestHelpListsOnlyUsedFlags.
func TestEveryHelpListsOnlyUsedFlags(t *testing.T) {
	want := map[string][]string{
		"run": without(serviceFlags, []string{"outlet-id"}, "allow-empty", "allow-long-period", "as-of", "calls", "complete-through", "concurrency", "csv-raw", "date",
			"fail-on-breaks", "from", "notify", "orders-lookback", "out", "pair-tolerance", "pair-tolerance-percent", "pair-window", "rates", "recheck-days", "refresh", "timing-window", "to"),
		"sync": without(serviceFlags, []string{"outlet-id"}, "allow-long-period", "concurrency", "from", "max-walks", "page-size", "recheck-days",
			"refresh", "to", "what"),
		"billersync":         without(serviceFlags, []string{"account"}, "category", "csv-raw", "full", "out", "page-size"),
		"history":            {"db", "job", "limit", "log-format", "log-level", "v", "version"},
		"schedule":           {"db", "file", "log-format", "log-level", "stop-grace", "version"},
		"schedule run":       {"db", "file", "log-format", "log-level", "stop-grace", "version"},
		"schedule list":      {"file", "log-format", "log-level", "n", "version"},
		"calls show":         {"db", "log-format", "log-level", "version"},
		"calls":              nil, // only the action: calls show
		"exceptions":         nil, // only the actions:
		"exceptions list":    {"db", "db-pool", "format", "kind", "log-format", "log-level", "min-age", "status", "version"},
		"exceptions show":    {"db", "db-pool", "format", "log-format", "log-level", "version"},
		"exceptions resolve": {"as", "by", "db", "db-pool", "log-format", "log-level", "note", "version"},
		"exceptions assign":  {"by", "db", "db-pool", "log-format", "log-level", "to", "version"},
		"exceptions import":  {"by", "db", "db-pool", "log-format", "log-level", "version"},
		"signoff":            {"as", "by", "db", "db-pool", "log-format", "log-level", "note", "version"},
		"verify":             {"db", "db-pool", "log-format", "log-level", "version"},
		// TestHelpListsOnlyUsedFlags:
		"check": nil, "import-calls": nil, "export": nil,
	}
	for cmd, flags := range want {
		if flags == nil {
			continue
		}
		if got := flagsOf(t, cmd); !slices.Equal(got, flags) {
			t.Errorf("%s -h lists %v, want %v", cmd, got, flags)
		}
	}
	for _, c := range commands() {
		if _, ok := want[c.Name]; !ok {
			t.Errorf("subcommand %s: add its flags to this test", c.Name)
		}
	}
}

// TestSuggestions: a misspelt subcommand, flag, --what kind or job name is
// answered with the nearest name, exit 2.
func TestSuggestions(t *testing.T) {
	dir := t.TempDir()
	sched := writeFile(t, dir, "schedules.yaml", "jobs:\n  nightly:\n    cron: \"30 2 * * *\"\n    command: history\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chek"}, "did you mean reconcile check?"},
		{[]string{"sync", "--form", "2026-11-01"}, "did you mean --from?"},
		{[]string{"sync", "--what", "statment", "--from", "2026-11-01", "--to", "2026-11-01"}, `--what "statment": want statement, orders or statement,orders; did you mean statement?`},
		{[]string{"sync", "--what", "statement,order", "--from", "2026-11-01", "--to", "2026-11-01"}, "; did you mean orders?"},
		{[]string{"schedule", "run", "--file", sched, "--db", dir + "/s.db", "nightyl"}, `no job "nightyl" in ` + sched + "; did you mean nightly? (jobs: nightly)"},
		{[]string{"schedule", "lsit"}, "the subcommands are list and run; did you mean schedule list? (see reconcile schedule -h)"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), c.args, &stdout, &stderr)
		code := cli.Exit(err, &stderr)
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("reconcile %q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestNamesInAnyCase: subcommands, --what kinds, --format, the log flags'
// values and job names match in any case.
func TestNamesInAnyCase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	openStore(t, db).Close()
	sched := writeFile(t, dir, "schedules.yaml", "jobs:\n  nightly:\n    cron: \"30 2 * * *\"\n    command: history\n")
	for _, args := range [][]string{
		{"CHECK", "--db", db, "--from", "2026-11-01", "--to", "2026-11-01", "--log-format", "JSON", "--log-level", "WARN"},
		{"export", "--db", db, "--from", "2026-11-01", "--to", "2026-11-01", "--out", filepath.Join(dir, "r"), "--format", "CSV", "--log-format", "Text"},
		{"Calls", "Show", "--db", db, "--log-level", "Error", "RC1"},
		{"schedule", "run", "--file", sched, "--db", db, "NIGHTLY"},
		{"History", "--db", db, "--job", "nightly"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if code := cli.Exit(err, &stderr); code != cli.ExitOK && !(args[0] == "Calls" && strings.Contains(stderr.String(), `no call with id or externalRef "RC1"`)) {
			t.Errorf("reconcile %q: exit %d\n%s", args, code, stderr.String())
		}
		if args[0] == "History" && !strings.Contains(stdout.String(), " nightly ") {
			t.Errorf("schedule run NIGHTLY did not run the job nightly:\n%s", stdout.String())
		}
	}
	kinds, err := parseKinds("Orders, STATEMENT")
	if err != nil || len(kinds) != 2 || kinds[0] != recon.Orders || kinds[1] != recon.Statement {
		t.Errorf("parseKinds(Orders, STATEMENT) = %v, %v; want orders and statement", kinds, err)
	}
}

// TestVersion: --version on reconcile and on its subcommands prints the
// version line, exit 0, and nothing else.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"sync", "--version"}, {"check", "--version"}, {"schedule", "list", "--version"},
		{"billersync", "--version"}, {"history", "--version"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code := cli.Exit(err, &stderr); code != 0 || !strings.HasPrefix(out, "svcrecon ") || strings.Count(out, "\n") != 1 {
			t.Errorf("reconcile %q: exit %d, output %q; want one line svcrecon …", args, code, out)
		}
	}
}
