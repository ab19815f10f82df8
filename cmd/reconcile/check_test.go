package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/store"
)

// flagsOf returns the flags a subcommand's -h lists, sorted ("schedule
// list": a subcommand's subcommand).
func flagsOf(t *testing.T, cmd string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), append(strings.Fields(cmd), "-h"), &out, &errOut); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("%s -h = %v", cmd, err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return names
}

// TestHelpListsOnlyUsedFlags: check and import-calls never call the
// service, so their -h lists no network or sandbox flag.
func TestHelpListsOnlyUsedFlags(t *testing.T) {
	for cmd, want := range map[string][]string{
		"check": {"allow-empty", "as-of", "db", "db-pool", "fail-on-breaks", "from", "log-format", "log-level", "pair-tolerance",
			"pair-tolerance-percent", "pair-window", "rates", "timing-window", "to", "version"},
		"import-calls": {"complete-through", "db", "db-pool", "log-format", "log-level", "version"},
		"export":       {"csv-bom", "csv-raw", "db", "db-pool", "format", "from", "log-format", "log-level", "out", "to", "version"},
	} {
		if got := flagsOf(t, cmd); !slices.Equal(got, want) {
			t.Errorf("%s -h lists %v, want %v", cmd, got, want)
		}
	}
}

// TestCheckPairWindow: --pair-window must be positive, and the
// tolerances within their bounds (exit 2 beyond them); a suggested pair is
// printed and stays a finding for --fail-on-breaks; a tolerance pairs what
// a paisa set apart, saying by how much.
func TestCheckPairWindow(t *testing.T) {
	ctx := context.Background()
	for _, bad := range [][]string{
		{"--pair-window", "0"}, {"--pair-window", "0s"}, {"--pair-window", "-1m"}, {"--pair-window", "ten"}, {"--pair-window", "25h"},
		{"--pair-tolerance", "-0.01"}, {"--pair-tolerance", "100.01"}, {"--pair-tolerance", "0.001"}, {"--pair-tolerance", "a paisa"},
		{"--pair-tolerance-percent", "5.5"}, {"--pair-tolerance-percent", "-1"}, {"--timing-window", "61m"}, {"--timing-window", "-1s"},
	} {
		for _, cmd := range []string{"check", "run"} {
			var out, errOut bytes.Buffer
			err := run(ctx, append([]string{cmd, "--from", "2026-11-21", "--to", "2026-11-21"}, bad...), &out, &errOut)
			if code := cli.Exit(err, &errOut); code != cli.ExitUsage || !strings.Contains(errOut.String(), strings.TrimLeft(bad[0], "-")) {
				t.Errorf("%s %v: exit %d (%q), want %d naming the flag", cmd, bad, code, errOut.String(), cli.ExitUsage)
			}
		}
	}
	db := filepath.Join(t.TempDir(), "t.db")
	// A call whose line lost its orderid and externalRef (a bare envelope
	// without them), and the statement's record of its debit.
	orphan := `{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 10:00:00","orderid":null,` +
		`"data":{"pool":{"openingBal":"100","amount":"10","closingBal":"90"}}}`
	var out, errOut bytes.Buffer
	if _, err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(orphan+"\n"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	addStatementRecord(t, db, "SO1", "R1", "2026-11-21 10:03:00", "10.00")
	out.Reset()
	err := run(ctx, []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21", "--fail-on-breaks"}, &out, &errOut)
	if code := cli.Exit(err, &errOut); code != cli.ExitFindings {
		t.Errorf("check --fail-on-breaks with a suggested pair: exit %d, want %d (a suggestion is no match)", code, cli.ExitFindings)
	}
	if !strings.Contains(out.String(), "↔ statement record SO1 — rule: equal amount 10.00") || !strings.Contains(out.String(), "3m after the call") {
		t.Errorf("check output lacks the suggested pair:\n%s", out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21", "--pair-window", "2m"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "suggested pair 2026") {
		t.Errorf("check --pair-window 2m suggests a pair 3 minutes apart:\n%s", out.String())
	}
	// A second orphan a paisa below its record: paired only with a tolerance.
	orphan2 := strings.ReplaceAll(strings.ReplaceAll(orphan, "10:00:00", "12:00:00"), `"10","closingBal":"90"`, `"5.01","closingBal":"84.99"`)
	orphan2 = strings.Replace(orphan2, `"openingBal":"100"`, `"openingBal":"90"`, 1)
	if _, err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(orphan2+"\n"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	addStatementRecord(t, db, "SO2", "R2", "2026-11-21 12:00:04", "5.00")
	for _, tc := range []struct {
		flags []string
		want  bool
	}{{nil, false}, {[]string{"--pair-tolerance", "0.01"}, true}, {[]string{"--pair-tolerance-percent", "0.2"}, true}} {
		out.Reset()
		args := append([]string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"}, tc.flags...)
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(out.String(), "↔ statement record SO2 — rule: amounts within ")
		if got != tc.want || got && !strings.Contains(out.String(), "(call 5.01, record 5.00: differs by 0.01)") {
			t.Errorf("check %v: the pair a paisa apart suggested %v, want %v:\n%s", tc.flags, got, tc.want, out.String())
		}
	}
}

// addStatementRecord stores a DR statement record.
func addStatementRecord(t *testing.T, path, svc, client, ts, amount string) {
	t.Helper()
	db := openStore(t, path)
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, client_order_id,
		txn_mode, txn_charged_value, first_synced_at, last_synced_at) VALUES ('statement', '0409000123456', ?, ?, ?, ?, 'DR', ?, 'now', 'now')`,
		svc, ts, ts[:10], client, amount); err != nil {
		t.Fatal(err)
	}
}

// TestCheckEmptyPeriodFails: under --fail-on-breaks, a period with no call
// and no record is an error (exit 1) naming the period, unless
// --allow-empty.
func TestCheckEmptyPeriodFails(t *testing.T) {
	db := filepath.Join(t.TempDir(), "empty.db")
	openStore(t, db).Close()
	args := []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-20", "--to", "2026-11-21", "--fail-on-breaks"}
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	errOut.Reset()
	if code := cli.Exit(err, &errOut); code != cli.ExitFailure {
		t.Fatalf("check --fail-on-breaks on an empty period: exit %d (%v), want %d", code, err, cli.ExitFailure)
	}
	if want := "error: nothing to reconcile: no call and no record in 2026-11-20..2026-11-21"; !strings.HasPrefix(errOut.String(), want) ||
		strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("stderr = %q, want one line beginning %q", errOut.String(), want)
	}
	errOut.Reset()
	if err := run(context.Background(), append(args, "--allow-empty"), &out, &errOut); err != nil {
		t.Errorf("check --fail-on-breaks --allow-empty on an empty period = %v, want no error", err)
	}
	// A record alone is something to reconcile.
	addStatementRecord(t, db, "SO1", "R1", "2026-11-21 10:00:00", "1.50")
	err = run(context.Background(), args, &out, &errOut)
	if code := cli.Exit(err, &errOut); code != cli.ExitFindings {
		t.Errorf("check --fail-on-breaks with one statementOnly record: exit %d (%v), want %d", code, err, cli.ExitFindings)
	}
}

// TestImportCallsMissingFile: a file that does not exist is a usage error
// (exit 2), before the database is even created.
func TestImportCallsMissingFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(okEnvelope+"\n"), 0o600)
	for _, args := range [][]string{
		{"import-calls", "--db", db, filepath.Join(dir, "missing.jsonl")},
		{"import-calls", "--db", db, good, filepath.Join(dir, "missing.jsonl")},
		{"import-calls", "--db", db, filepath.Join(dir, "nothing-*.jsonl")},
		{"import-calls", "--db", db, dir},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		errOut.Reset()
		if code := cli.Exit(err, &errOut); code != cli.ExitUsage || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %d and one line", args[3:], code, errOut.String(), cli.ExitUsage)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("%v created the database", args[3:])
		}
	}
}

// TestImportCallsScrubsClientSecret: SVC_CLIENT_SECRET, quoted back in a
// client's log, is not stored.
func TestImportCallsScrubsClientSecret(t *testing.T) {
	const secret = "client-SECRET-marker-91"
	t.Setenv(cli.EnvClientSecret, secret)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	line := `{"at":"2026-11-21T10:00:00+05:30","operation":"litigation","externalRef":"R9","request":{"hdr":"` + secret + `"},` +
		`"response":{"statuscode":"UAD","status":"secret ` + secret + ` refused","timestamp":"2026-11-21 10:00:00"},"error":"UAD: ` + secret + `"}`
	var out, errOut bytes.Buffer
	if _, err := importCalls(context.Background(), []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(line+"\n"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, db)
	var n, leaks int
	if err := s.QueryRow(`SELECT count(*), coalesce(sum(instr(coalesce(request,'') || coalesce(response,'') || error || status, ?) > 0), 0)
		FROM calls`, secret).Scan(&n, &leaks); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if n != 1 || leaks != 0 {
		t.Errorf("calls = %d, %d holding the secret; want 1 and 0", n, leaks)
	}
	for _, suffix := range []string{"", "-wal"} {
		if b, _ := os.ReadFile(db + suffix); bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret", filepath.Base(db+suffix))
		}
	}
}

// TestCheckAndImportJobsReturnTheirSummary: the scheduler records the
// summary check and import-calls return, not the tail of their output.
func TestCheckAndImportJobsReturnTheirSummary(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	log := filepath.Join(dir, "calls.jsonl")
	os.WriteFile(log, []byte(okEnvelope+"\n"), 0o600)
	var out, errOut bytes.Buffer
	sum, err := runJob(ctx, "import-calls", []string{"--db", db, "--log-level", "warn", log}, nil, &out, &errOut)
	if err != nil || sum != "imported 1 files, 1 lines: 1 imported, 0 already imported, 0 bad" {
		t.Errorf("import-calls job = %q, %v", sum, err)
	}
	sum, err = runJob(ctx, "check", []string{"--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"}, nil, &out, &errOut)
	if err != nil || !regexp.MustCompile(`^check 2026-11-21\.\.2026-11-21 run \d+: findings: 1 callOnly$`).MatchString(sum) {
		t.Errorf("check job = %q, %v; want \"check 2026-11-21..2026-11-21 run N: findings: 1 callOnly\"", sum, err)
	}
}

// openStore opens the database file of a test.
func openStore(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDBPoolBelowWhatACheckHolds: a --db-pool below store.CheckConns is a
// usage error of the commands that run a check (a check with fewer
// connections waited for ever), naming the flag and the least it takes;
// the least runs a check, and a command without a check (import-calls)
// takes a pool of one.
func TestDBPoolBelowWhatACheckHolds(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "t.db")
	addStatementRecord(t, db, "SO1", "R1", "2026-11-21 10:03:00", "10.00")
	for _, n := range []string{"1", "3"} {
		for _, cmd := range []string{"check", "run"} {
			var out, errOut bytes.Buffer
			err := run(ctx, []string{cmd, "--db", db, "--db-pool", n, "--from", "2026-11-21", "--to", "2026-11-21"}, &out, &errOut)
			if code := cli.Exit(err, &errOut); code != cli.ExitUsage ||
				!strings.Contains(errOut.String(), "--db-pool "+n+": a check holds 4 connections at once; give at least 4") {
				t.Errorf("%s --db-pool %s: exit %d (%q), want %d naming the flag and 4", cmd, n, code, errOut.String(), cli.ExitUsage)
			}
		}
	}
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"check", "--db", db, "--db-pool", "4", "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"}, &out, &errOut)
	if code := cli.Exit(err, &errOut); code != cli.ExitOK || !strings.Contains(out.String(), "statementOnly") {
		t.Errorf("check --db-pool 4: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	line := `{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 10:00:00","orderid":"O1","externalRef":"R1"}`
	if _, err := importCalls(ctx, []string{"--db", db, "--db-pool", "1", "--log-level", "warn", "-"}, strings.NewReader(line+"\n"), &out, &errOut); err != nil {
		t.Errorf("import-calls --db-pool 1: %v\n%s", err, errOut.String())
	}
}
