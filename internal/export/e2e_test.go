package export

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestExportEndToEndSandbox syncs the sandbox, imports its call log, reconciles
// with the ledger and exports; then checks that the workbook, the CSV
// files and the run's summary tell the same story, that the planted breaks
// are on the Breaks sheet and that the client secret is nowhere. With
// EXPORT_SAMPLE_DIR set the files are written there (to look at them).
func TestExportEndToEndSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	srv, err := sandbox.Start(sandbox.Options{Seed: 7, Days: 20, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	if err != nil {
		if strings.Contains(err.Error(), "not implemented") {
			t.Skipf("sandbox: %v", err)
		}
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "svcrecon.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cl, err := svcapi.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	from, to := srv.Period()
	quiet := slog.New(slog.DiscardHandler)
	acct := srv.Credentials().Account
	if _, err := statement.Sync(ctx, statement.Options{DB: db, Client: cl, Account: acct, From: from, To: to,
		Kinds: []recon.Kind{recon.Statement, recon.Orders}, Log: quiet}); err != nil {
		t.Fatalf("sync: %v", err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(srv.Sandbox.WriteCallLog(pw)) }()
	if _, err := calllog.Import(ctx, db, "sandbox-calls.jsonl", pr, calllog.Options{}); err != nil {
		t.Fatalf("import: %v", err)
	}
	if _, err := ledger.Check(ctx, db, ledger.CheckOptions{From: from, To: to, Log: quiet}); err != nil {
		t.Fatalf("check: %v", err)
	}
	dir := os.Getenv("EXPORT_SAMPLE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	files, err := Reconciliation(ctx, db, Options{From: from, To: to, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	f := openBook(t, files.Workbook)
	f0, t0 := from.Format(time.DateOnly), to.Format(time.DateOnly)
	run, found, err := db.ReportRun(ctx, f0, t0)
	if err != nil || !found {
		t.Fatalf("ReportRun(%s, %s) = %v, %v", f0, t0, found, err)
	}
	runID, sum := run.ID, run.Summary

	// Each sheet has as many rows as its CSV file and as the database.
	count := func(q string, args ...any) int {
		var n int
		if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := map[string]int{
		"Breaks": count(`SELECT count(*) FROM recon_breaks WHERE run_id = ?`, runID),
		"Matching": count(`SELECT (SELECT count(*) FROM recon_matches WHERE run_id = ?1)
			+ (SELECT count(*) FROM recon_matched WHERE run_id = ?1)`, runID),
		"Duplicates": int(sum.Outcomes["duplicateDebit"].Count),
		"Pending":    int(sum.Outcomes["pending"].Count),
		"Reversals":  int(sum.Reversals.Count),
		"Unsettled":  count(`SELECT count(*) FROM recon_unsettled WHERE run_id = ?`, runID),
		"Statement":  count(`SELECT count(*) FROM records WHERE kind = 'statement' AND txn_date BETWEEN ? AND ?`, f0, t0),
		"Orders":     count(`SELECT count(*) FROM records WHERE kind = 'orders' AND txn_date BETWEEN ? AND ?`, f0, t0),
	}
	breaks := 0
	for _, k := range recon.BreakKinds {
		breaks += int(sum.Breaks[k].Count)
	}
	if breaks != want["Breaks"] || breaks == 0 {
		t.Errorf("summary breaks %d, recon_breaks rows %d: want the same, and some", breaks, want["Breaks"])
	}
	for sheet, n := range want {
		if got := len(rows(t, f, sheet)) - 1; got != n {
			t.Errorf("%s sheet has %d rows, want %d", sheet, got, n)
		}
		recs := readCSV(t, filepath.Join(dir, strings.ToLower(sheet)+".csv"))
		if len(recs)-1 != n {
			t.Errorf("%s.csv has %d rows, want %d", strings.ToLower(sheet), len(recs)-1, n)
		}
	}

	// The Statement CSV's DR and CR totals are the Summary's daily totals.
	days, err := db.ReportDays(ctx, f0, t0)
	if err != nil {
		t.Fatal(err)
	}
	var dr, cr, wantDR, wantCR decimal.Decimal
	st := readCSV(t, filepath.Join(dir, "statement.csv"))
	mode, amt := colIndex(st[0], "txnMode"), colIndex(st[0], "txnChargedValue")
	for _, r := range st[1:] {
		a := decimal.RequireFromString(r[amt])
		switch r[mode] {
		case "DR":
			dr = dr.Add(a)
		case "CR":
			cr = cr.Add(a)
		}
	}
	for _, d := range days {
		wantDR, wantCR = wantDR.Add(d.Debits), wantCR.Add(d.Credits)
	}
	if !dr.Equal(wantDR) || !cr.Equal(wantCR) || dr.IsZero() {
		t.Errorf("statement.csv DR %s CR %s, daily totals DR %s CR %s", dr, cr, wantDR, wantCR)
	}

	// The ledger's own results bridge every pool from its opening to the
	// last call's closing, and the verdict says what is left.
	if len(sum.Pools) == 0 {
		t.Fatal("the sandbox run has no pool account")
	}
	for _, p := range sum.Pools {
		lines, last, check := bridgeOf(t, f, p.Account)
		if check != "checked" || !last.Equal(lines[5]) {
			t.Errorf("pool %s bridge closes at %s, last call's closing %s: %q", p.Account, lines[5], last, check)
		}
	}
	if v, _ := f.GetCellValue("Summary", "A1"); !strings.HasPrefix(v, "Not reconciled: ") || !strings.Contains(v, " unexplained in ") {
		t.Errorf("verdict = %q, want the planted breaks unexplained", v)
	}

	// Every planted arithmetic break and gap is on the Breaks sheet.
	onSheet := map[string]bool{}
	br := rows(t, f, "Breaks")
	for _, r := range br[1:] {
		onSheet[r[0]+" "+r[colIndex(br[0], "externalRef")]] = true
	}
	for _, d := range srv.Planted() {
		if (d.Kind == "arithmetic" || d.Kind == "gap") && d.ExternalRef != "" && !onSheet[d.Kind+" "+d.ExternalRef] {
			t.Errorf("planted %s at %s (%s) is not on the Breaks sheet", d.Kind, d.ExternalRef, d.At)
		}
	}

	// The client secret is in no file (the workbook's parts uncompressed).
	secret := []byte(srv.Config().ClientSecret)
	if len(secret) == 0 {
		t.Fatal("the sandbox has no client secret to look for")
	}
	for _, p := range files.CSV {
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, secret) {
			t.Errorf("%s holds the client secret", p)
		}
	}
	z, err := zip.OpenReader(files.Workbook)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, zf := range z.File {
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if bytes.Contains(b, secret) {
			t.Errorf("%s in the workbook holds the client secret", zf.Name)
		}
	}
}

func readCSV(tb testing.TB, path string) [][]string {
	tb.Helper()
	fh, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return recs
}
