package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// readCSV reads an exported CSV file as maps keyed by the header.
func readCSV(tb testing.TB, path string) []map[string]string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	if len(recs) == 0 {
		tb.Fatalf("%s is empty, want at least a header", path)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// hasRow reports whether a row has all the given column values.
func hasRow(rows []map[string]string, want map[string]string) bool {
	for _, r := range rows {
		ok := true
		for k, v := range want {
			if r[k] != v {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// needSandbox skips a test until the sandbox is implemented.
func needSandbox(tb testing.TB) {
	tb.Helper()
	if _, err := sandbox.New(sandbox.Options{Days: 1}); errors.Is(err, sandbox.ErrNotImplemented) {
		tb.Skip("the sandbox is not implemented yet")
	}
}

func runCmd(tb testing.TB, args ...string) (stdout, stderr string, err error) {
	tb.Helper()
	var o, e bytes.Buffer
	err = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), err
}

// TestRunSandbox is the README's first command end to end: every planted
// defect of the sandbox shows up in the reports, and a second run of the
// same period changes nothing.
func TestRunSandbox(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "reports")
	db := filepath.Join(dir, "recon.db")
	// A week of history keeps the test quick under -race; every kind of
	// defect is planted in it all the same.
	const days = "7"
	stdout, stderr, err := runCmd(t, "run", "--sandbox", "--sandbox-days", days, "--out", out, "--db", db)
	if err != nil {
		t.Fatalf("run --sandbox: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	books, _ := filepath.Glob(filepath.Join(out, "reconciliation-*.xlsx"))
	if len(books) != 1 {
		t.Fatalf("workbooks in %s: %v, want one", out, books)
	}
	wb, err := excelize.OpenFile(books[0])
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	sheets := []string{"Summary", "Exceptions", "Legend", "Breaks", "Matching", "Differences", "Duplicates", "Reversals", "Unsettled", "Pending", "Fees", "Statement", "Orders"}
	if got := wb.GetSheetList(); !slices.Equal(got[:min(len(got), len(sheets))], sheets) {
		t.Errorf("sheets = %v, want %v", got, sheets)
	}
	for _, s := range sheets {
		if s == "Legend" {
			continue // the workbook only
		}
		p := filepath.Join(out, strings.ToLower(s)+".csv")
		if _, err := os.Stat(p); err != nil {
			t.Errorf("missing %s: %v", p, err)
		}
		if !strings.Contains(stdout, p) {
			t.Errorf("stdout does not name %s", p)
		}
	}
	if !strings.Contains(stdout, books[0]) {
		t.Errorf("stdout does not name the workbook %s:\n%s", books[0], stdout)
	}

	breaks := readCSV(t, filepath.Join(out, "breaks.csv"))
	matching := readCSV(t, filepath.Join(out, "matching.csv"))
	reversals := readCSV(t, filepath.Join(out, "reversals.csv"))
	for _, kind := range []string{recon.BreakArithmetic, recon.BreakGap} {
		if !hasRow(breaks, map[string]string{"kind": kind}) {
			t.Errorf("breaks.csv has no %s row", kind)
		}
	}
	// The breaks to look at come before the explained gaps.
	explained := false
	for _, r := range breaks {
		if r["kind"] == recon.BreakExplainedGap {
			explained = true
		} else if explained {
			t.Errorf("breaks.csv: %s at %s after the explained gaps", r["kind"], r["timestamp"])
		}
	}
	for _, o := range recon.Outcomes {
		if !hasRow(matching, map[string]string{"outcome": o}) {
			t.Errorf("matching.csv has no %s row", o)
		}
	}

	// Each planted defect where the sandbox says it is (same options, same world).
	sb, err := sandbox.New(sandbox.Options{Seed: 1, Days: 7})
	if err != nil {
		t.Fatal(err)
	}
	planted := sb.Planted()
	if len(planted) == 0 {
		t.Fatal("the sandbox planted no defects")
	}
	seen := map[string]bool{}
	for _, d := range planted {
		seen[d.Kind] = true
		var ok bool
		switch d.Kind {
		case sandbox.DefectUnloggedDebit:
			ok = hasRow(matching, map[string]string{"outcome": recon.StatementOnly, "svcOrderId": d.SvcOrderID})
		case sandbox.DefectOrphanPair: // the record; its call lost its keys (a callOnly row without externalRef)
			ok = hasRow(matching, map[string]string{"outcome": recon.StatementOnly, "svcOrderId": d.SvcOrderID}) &&
				hasRow(matching, map[string]string{"outcome": recon.CallOnly, "externalRef": "", "svcOrderId": ""})
		case sandbox.DefectAmountMismatch, sandbox.DefectDuplicateDebit, sandbox.DefectPending, sandbox.DefectCallOnly:
			ok = hasRow(matching, map[string]string{"outcome": d.Kind, "externalRef": d.ExternalRef})
		case sandbox.DefectArithmetic:
			ok = hasRow(breaks, map[string]string{"kind": recon.BreakArithmetic, "externalRef": d.ExternalRef})
		case sandbox.DefectGap:
			ok = hasRow(breaks, map[string]string{"kind": recon.BreakGap, "delta": recon.Money(d.Delta)})
		case sandbox.DefectReversalUnlinked:
			ok = hasRow(reversals, map[string]string{"svcOrderId": d.SvcOrderID, "reversalFound": "false"})
		case sandbox.DefectOnePaisa: // no pair at tolerance 0: the record alone
			ok = hasRow(matching, map[string]string{"outcome": recon.StatementOnly, "svcOrderId": d.SvcOrderID, "suggestedPair": ""})
		case sandbox.DefectSplitPosting: // one group of the call and its two records
			ok = hasRow(matching, map[string]string{"outcome": recon.Matched, "svcOrderId": d.SvcOrderID, "group": "G-" + d.ExternalRef})
		case sandbox.DefectMidnight:
			ok = hasRow(matching, map[string]string{"outcome": recon.Timing, "externalRef": d.ExternalRef})
		default:
			t.Errorf("unknown planted defect %+v", d)
			continue
		}
		if !ok {
			t.Errorf("planted %s (%+v) is not in the reports", d.Kind, d)
		}
	}
	for _, k := range []string{sandbox.DefectUnloggedDebit, sandbox.DefectAmountMismatch, sandbox.DefectDuplicateDebit,
		sandbox.DefectArithmetic, sandbox.DefectPending, sandbox.DefectCallOnly, sandbox.DefectGap, sandbox.DefectOrphanPair,
		sandbox.DefectReversalUnlinked, sandbox.DefectOnePaisa, sandbox.DefectSplitPosting, sandbox.DefectMidnight} {
		if !seen[k] {
			t.Errorf("the sandbox planted no %s defect", k)
		}
	}
	for _, step := range []string{"  sync ", "  import-calls ", "  check ", "  export ", "Reports:", "findings: "} {
		if !strings.Contains(stdout, step) {
			t.Errorf("stdout lacks %q:\n%s", step, stdout)
		}
	}

	// Started again: nothing is fetched, imported or counted twice, and
	// --fail-on-breaks turns the findings into exit status 3.
	before := readCSV(t, filepath.Join(out, "matching.csv"))
	stdout2, stderr2, err := runCmd(t, "run", "--sandbox", "--sandbox-days", days, "--out", out, "--db", db, "--fail-on-breaks")
	if code := cli.Exit(err, io.Discard); code != cli.ExitFindings {
		t.Fatalf("second run: exit %d (%v), want %d\n%s", code, err, cli.ExitFindings, stderr2)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "run ") || strings.Count(msg, "findings") != 1 {
		t.Errorf("second run's error = %q, want one \"run PERIOD: findings: …\"", msg)
	}
	if !strings.Contains(stdout2, " 0 imported, ") {
		t.Errorf("second run imported lines again:\n%s", stdout2)
	}
	if after := readCSV(t, filepath.Join(out, "matching.csv")); len(after) != len(before) {
		t.Errorf("matching.csv has %d rows after the second run, %d before", len(after), len(before))
	}
}

// TestRunSandboxFreshDB: without --db the sandbox gets a fresh database in
// --out, recreated on every run.
func TestRunSandboxFreshDB(t *testing.T) {
	needSandbox(t)
	out := filepath.Join(t.TempDir(), "reports")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(out, sandboxDBName)
	if err := os.WriteFile(stale, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runCmd(t, "run", "--sandbox", "--out", out, "--sandbox-days", "3")
	if err != nil {
		t.Fatalf("run --sandbox: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "database "+stale) {
		t.Errorf("stdout does not name the database %s:\n%s", stale, stdout)
	}
	if !strings.Contains(stdout, " 0 already imported, ") {
		t.Errorf("the fresh database had calls already:\n%s", stdout)
	}
}

func TestRunUsage(t *testing.T) {
	dir := t.TempDir()
	// A call-log pattern that matches nothing: said before anything is synced.
	for _, calls := range []string{filepath.Join(dir, "nope-*.jsonl"), filepath.Join(dir, "nope.jsonl"), dir} {
		_, _, err := runCmd(t, "run", "--sandbox", "--out", dir, "--calls", calls)
		if code := cli.Exit(err, io.Discard); code != cli.ExitUsage || !strings.Contains(err.Error(), calls) {
			t.Errorf("--calls %s: exit %d, %v; want %d naming it", calls, code, err, cli.ExitUsage)
		}
	}
	// No account and no sandbox: a configuration error, nothing done.
	t.Setenv("SVC_ACCOUNT", "")
	_, _, err := runCmd(t, "run", "--db", filepath.Join(dir, "x.db"), "--out", dir)
	if code := cli.Exit(err, io.Discard); code != cli.ExitUsage {
		t.Errorf("no account: exit %d, %v", code, err)
	}
	for _, args := range [][]string{
		{"run", "--date", "2026-11-21", "--from", "2026-11-01", "--to", "2026-11-02"},
		{"run", "--date", "21/11/2026"},
		{"run", "--from", "2026-11-02", "--to", "2026-11-01"},
		{"run", "--from", "2026-11-02"},
		{"run", "--date", "2026-11-21", "--as-of", "2026-11-20"},
		{"run", "--concurrency", "0"},
		{"run", "extra.jsonl"},
	} {
		_, _, err := runCmd(t, args...)
		if code := cli.Exit(err, io.Discard); code != cli.ExitUsage {
			t.Errorf("%v: exit %d (%v), want %d", args, code, err, cli.ExitUsage)
		}
	}
	var errb bytes.Buffer
	if err := run(context.Background(), []string{"run", "-h"}, &errb, io.Discard); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(errb.String(), "reconcile run --sandbox") {
		t.Errorf("run -h: %v\n%s", err, errb.String())
	}
}

func TestRunStepErrors(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	// A bad call log: the import step says so, the reports are written all the same.
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCmd(t, "run", "--sandbox", "--sandbox-days", "3", "--out", filepath.Join(dir, "r"), "--calls", bad)
	if code := cli.Exit(err, io.Discard); code != cli.ExitFailure || !strings.HasPrefix(err.Error(), "import-calls: 1 bad lines") {
		t.Errorf("bad call log: exit %d, %v", code, err)
	}
	if !strings.Contains(stdout, "Reports:") {
		t.Errorf("reports not written after a bad line:\n%s", stdout)
	}

	// The workbook cannot be written: the export step says so, after the check.
	day := cli.Yesterday(time.Now()).Format(time.DateOnly)
	out := filepath.Join(dir, "x")
	if err := os.MkdirAll(filepath.Join(out, "reconciliation-"+day+"_"+day+".xlsx"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, _, err = runCmd(t, "run", "--sandbox", "--sandbox-days", "3", "--date", day, "--out", out)
	if code := cli.Exit(err, io.Discard); code != cli.ExitFailure || !strings.HasPrefix(err.Error(), "export: ") ||
		strings.HasPrefix(err.Error(), "export: export") {
		t.Errorf("unwritable workbook: exit %d, %v; want 1 and one export: prefix", code, err)
	}
	if !strings.Contains(stdout, "  check ") || strings.Contains(stdout, "Reports:") {
		t.Errorf("want the check done and no reports listed:\n%s", stdout)
	}

	// --out under a file: said before anything is synced.
	stdout, _, err = runCmd(t, "run", "--sandbox", "--sandbox-days", "3", "--out", filepath.Join(bad, "r"))
	if code := cli.Exit(err, io.Discard); code != cli.ExitFailure || !strings.HasPrefix(err.Error(), "run: --out: ") || strings.Contains(stdout, "sync") {
		t.Errorf("--out under a file: exit %d, %v\n%s", code, err, stdout)
	}
}

// TestRunSyncFails: a service that refuses every page makes the run stop
// at its sync step, named as such, before importing or checking anything.
func TestRunSyncFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"statuscode":"IAC","actcode":"","status":"Invalid account","data":null,"timestamp":"2026-11-22 10:00:00"}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("SVC_CLIENT_SECRET", "s3cret")
	stdout, stderr, err := runCmd(t, "run", "--date", "2026-11-21", "--base-url", srv.URL, "--client-id", "c",
		"--account", "0409000123456", "--endpoint-ip", "203.0.113.1", "--db", filepath.Join(dir, "r.db"), "--out", filepath.Join(dir, "out"))
	if code := cli.Exit(err, io.Discard); code != cli.ExitFailure || !strings.HasPrefix(err.Error(), "sync: ") {
		t.Fatalf("run: exit %d, err %v; want exit 1 and a sync: error\n%s", code, err, stderr)
	}
	if strings.Contains(stdout, "import-calls") || strings.Contains(stdout, "Reports:") {
		t.Errorf("steps after the failed sync ran:\n%s", stdout)
	}
	if strings.Contains(stdout+stderr, "s3cret") {
		t.Error("the client secret was printed")
	}
}
