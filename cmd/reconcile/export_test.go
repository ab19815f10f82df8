package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/store"
)

// exportDB makes a database with one current reconciliation run of
// 2026-11-01..2026-11-02 and one statement record.
func exportDB(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "svcrecon.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	err = db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, finished_at, state, summary)
			VALUES ('2026-11-01', '2026-11-02', '2026-11-02', '2026-11-03T00:00:00.000Z', '2026-11-03T00:00:01.000Z', 'ok', '{"calls": 1}')`)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, txn_mode,
			txn_charged_value, narration_value0, first_synced_at, last_synced_at) VALUES ('statement', 'A1', 'S1', '2026-11-01 10:00:00',
			'2026-11-01', 'DR', '12.50', '=HYPERLINK("http://evil.example")', '2026-11-03T00:00:00.000Z', '2026-11-03T00:00:00.000Z')`)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

func TestExportCommand(t *testing.T) {
	db := exportDB(t)
	out := filepath.Join(t.TempDir(), "reports")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"export", "--db", db, "--from", "2026-11-01", "--to", "2026-11-02", "--out", out, "--log-level", "warn"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("export: %v (stderr %s)", err, stderr.String())
	}
	paths := strings.Fields(stdout.String())
	if len(paths) != 13 || paths[0] != filepath.Join(out, "reconciliation-2026-11-01_2026-11-02.xlsx") {
		t.Fatalf("printed paths = %v, want the workbook and 12 CSV files (a run without a manifest: none)", paths)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("printed %s: %v", p, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "statement.csv"))
	if !bytes.Contains(b, []byte(",12.50,")) || bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
		t.Errorf("statement.csv = %q, want the record's exact amount and no BOM", b)
	}

	stdout.Reset()
	err = run(context.Background(), []string{"export", "--db", db, "--from", "2026-11-01", "--to", "2026-11-02", "--out", out, "--format", "csv", "--csv-bom"}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if paths := strings.Fields(stdout.String()); len(paths) != 12 || strings.HasSuffix(paths[0], ".xlsx") {
		t.Errorf("--format csv printed %v", paths)
	}
	b, _ = os.ReadFile(filepath.Join(out, "statement.csv"))
	if !bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
		t.Errorf("--csv-bom: statement.csv starts %q", b[:min(len(b), 8)])
	}
}

func TestExportCommandCSVRaw(t *testing.T) {
	db := exportDB(t)
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, `"'=HYPERLINK(""http://evil.example"")"`},
		{[]string{"--csv-raw"}, `"=HYPERLINK(""http://evil.example"")"`},
	} {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"export", "--db", db, "--from", "2026-11-01", "--to", "2026-11-02", "--out", out,
			"--format", "csv", "--log-level", "warn"}, tc.flags...)
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("export %v: %v (stderr %s)", tc.flags, err, stderr.String())
		}
		b, _ := os.ReadFile(filepath.Join(out, "statement.csv"))
		if !bytes.Contains(b, []byte(","+tc.want+",")) || !bytes.Contains(b, []byte(",12.50,")) {
			t.Errorf("export %v: statement.csv = %s, want the narration as %s and the amount a number", tc.flags, b, tc.want)
		}
	}
}

func TestExportCommandErrors(t *testing.T) {
	db := exportDB(t)
	out := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no period", []string{"--db", db}, cli.ExitUsage, "--from"},
		{"bad date", []string{"--db", db, "--from", "2026-11-1", "--to", "2026-11-02"}, cli.ExitUsage, "--from"},
		{"bad format", []string{"--db", db, "--from", "2026-11-01", "--to", "2026-11-02", "--format", "pdf"}, cli.ExitUsage, "--format"},
		{"unknown flag", []string{"--db", db, "--bogus"}, cli.ExitUsage, "bogus"},
		{"no run", []string{"--db", db, "--from", "2026-11-01", "--to", "2026-11-03", "--out", out}, cli.ExitFailure, "run reconcile check first"},
		{"no database", []string{"--db", filepath.Join(out, "none.db"), "--from", "2026-11-01", "--to", "2026-11-02", "--out", out}, cli.ExitUsage, "no database " + filepath.Join(out, "none.db")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"export", "--log-level", "error"}, tc.args...), &stdout, &stderr)
			stderr.Reset()
			if code := cli.Exit(err, &stderr); code != tc.code {
				t.Errorf("exit = %d, want %d (err %v)", code, tc.code, err)
			}
			line := stderr.String()
			if strings.Count(line, "\n") != 1 || !strings.Contains(line, tc.want) {
				t.Errorf("stderr = %q, want one line naming %s", line, tc.want)
			}
			if tc.name == "no run" && !errors.Is(err, export.ErrNoRun) {
				t.Errorf("err = %v, want ErrNoRun", err)
			}
		})
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("files written by failed exports: %v", entries)
	}
}

func TestExportHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"export", "-h"}, &stdout, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("export -h = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"Examples:", "reconcile export --from", "--csv-bom", "--csv-raw", "--format", "Legend"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestExportJobSummary: the scheduler records what an export job wrote, in
// one line of its own, not the tail of its output.
func TestExportJobSummary(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	if _, stderr, err := runCmd(t, "run", "--sandbox", "--sandbox-days", "9", "--out", filepath.Join(dir, "night"), "--db", db); err != nil {
		t.Fatalf("run --sandbox: %v\n%s", err, stderr)
	}
	// The sandbox's period, as the workbook's name says.
	books, _ := filepath.Glob(filepath.Join(dir, "night", "reconciliation-*.xlsx"))
	if len(books) != 1 {
		t.Fatalf("workbooks: %v", books)
	}
	period := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(books[0]), "reconciliation-"), ".xlsx")
	from, to, _ := strings.Cut(period, "_")
	var out, errb bytes.Buffer
	sum, err := runJob(context.Background(), "export", []string{"--db", db, "--from", from, "--to", to, "--out", filepath.Join(dir, "x"), "--format", "csv"}, nil, &out, &errb)
	if err != nil {
		t.Fatalf("export job: %v\n%s", err, errb.String())
	}
	want := "export " + from + ".." + to + ": 12 files in " + filepath.Join(dir, "x")
	if !strings.HasPrefix(sum, want) {
		t.Errorf("summary = %q, want it to start %q", sum, want)
	}
}
