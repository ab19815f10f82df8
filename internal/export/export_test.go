package export

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

var update = flag.Bool("update", false, "rewrite the golden CSV files under testdata/golden")

var wantSheets = []string{"Summary", "Exceptions", "Legend", "Breaks", "Matching", "Differences", "Duplicates", "Reversals", "Unsettled", "Pending", "Fees", "Statement", "Orders"}

func exportFixture(tb testing.TB, o Options) (Files, string) {
	tb.Helper()
	db := fixtureDB(tb)
	withEvidence(tb, db)
	dir := filepath.Join(tb.TempDir(), "out")
	o.From, o.To, o.Dir = fixFrom, fixTo, dir
	o.Evidence = func(ctx context.Context, id int64) (*evidence.View, error) { return evidence.Workbook(ctx, db, id) }
	files, err := Reconciliation(context.Background(), db, o)
	if err != nil {
		tb.Fatalf("Reconciliation: %v", err)
	}
	return files, dir
}

func openBook(tb testing.TB, path string) *excelize.File {
	tb.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

func rows(tb testing.TB, f *excelize.File, sheet string) [][]string {
	tb.Helper()
	r, err := f.GetRows(sheet)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// cellFormat returns the custom number format and fill colour of a cell.
func cellFormat(tb testing.TB, f *excelize.File, sheet, cell string) (numFmt, fill string) {
	tb.Helper()
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		tb.Fatal(err)
	}
	if st.CustomNumFmt != nil {
		numFmt = *st.CustomNumFmt
	}
	if len(st.Fill.Color) > 0 {
		fill = st.Fill.Color[0]
	}
	return numFmt, fill
}

// number reads a cell's raw value and checks that it is a number cell.
func number(tb testing.TB, f *excelize.File, sheet, cell string) float64 {
	tb.Helper()
	typ, err := f.GetCellType(sheet, cell)
	if err != nil {
		tb.Fatal(err)
	}
	if typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
		tb.Fatalf("%s!%s has type %v, want a number", sheet, cell, typ)
	}
	raw, err := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
	if err != nil {
		tb.Fatal(err)
	}
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		tb.Fatalf("%s!%s = %q, want a number", sheet, cell, raw)
	}
	return v
}

func colOf(tb testing.TB, header []string, name string) string {
	tb.Helper()
	for i, h := range header {
		if h == name {
			c, _ := excelize.ColumnNumberToName(i + 1)
			return c
		}
	}
	tb.Fatalf("no column %s in %v", name, header)
	return ""
}

func TestExportWorkbook(t *testing.T) {
	files, dir := exportFixture(t, Options{})
	if want := filepath.Join(dir, "reconciliation-2026-11-01_2026-11-03.xlsx"); files.Workbook != want {
		t.Fatalf("Workbook = %q, want %q", files.Workbook, want)
	}
	f := openBook(t, files.Workbook)
	if got := f.GetSheetList(); !reflect.DeepEqual(got, wantSheets) {
		t.Fatalf("sheets = %v, want %v", got, wantSheets)
	}

	t.Run("frozen header and table on every data sheet", func(t *testing.T) {
		for _, s := range wantSheets[1:] {
			p, err := f.GetPanes(s)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Freeze || p.YSplit != 1 || p.TopLeftCell != "A2" {
				t.Errorf("%s panes = %+v, want the first row frozen", s, p)
			}
			tables, err := f.GetTables(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(tables) != 1 || !strings.HasPrefix(tables[0].Range, "A1:") {
				t.Errorf("%s tables = %+v, want one table from A1", s, tables)
			}
			w, err := f.GetColWidth(s, "A")
			if err != nil || w < 8 {
				t.Errorf("%s column A width = %v, %v; want a fitted width", s, w, err)
			}
		}
	})

	t.Run("statement", func(t *testing.T) {
		r := rows(t, f, "Statement")
		h := r[0]
		for _, name := range []string{"accountNumber", "txnDateTime", "svcOrderId", "clientOrderId", "txnMode",
			"txnChargedValue", "narrationValue0", "narrationValue9", "responseMsg", "reversalSvcOrderId", "closingBalance", "reversed"} {
			colOf(t, h, name)
		}
		if len(r) != 6 {
			t.Fatalf("Statement has %d rows, want header + 5 (S0 is before the period)", len(r))
		}
		amt := colOf(t, h, "txnChargedValue")
		// S4 is row 5 (ordered by time).
		if got := number(t, f, "Statement", amt+"5"); got != 1234567.89 {
			t.Errorf("S4 txnChargedValue = %v, want 1234567.89", got)
		}
		if nf, _ := cellFormat(t, f, "Statement", amt+"5"); nf != fmtAmount {
			t.Errorf("amount format = %q, want %q", nf, fmtAmount)
		}
		if v, _ := f.GetCellValue("Statement", amt+"5"); v != "1,234,567.89" {
			t.Errorf("S4 amount shows %q, want 1,234,567.89", v)
		}
		at := colOf(t, h, "txnDateTime")
		serial := number(t, f, "Statement", at+"2")
		// 2026-11-01 10:00:00 IST as an Excel serial (days since 1899-12-30).
		if want := 46327 + 10.0/24; abs(serial-want) > 1e-6 {
			t.Errorf("txnDateTime serial = %v, want %v", serial, want)
		}
		if nf, _ := cellFormat(t, f, "Statement", at+"2"); nf != fmtDateTime {
			t.Errorf("txnDateTime format = %q, want %q", nf, fmtDateTime)
		}
		if v, _ := f.GetCellValue("Statement", colOf(t, h, "txnDate")+"2"); v != "2026-11-01" {
			t.Errorf("txnDate shows %q, want 2026-11-01", v)
		}
		nar := colOf(t, h, "narrationValue0")
		if v, _ := f.GetCellValue("Statement", nar+"2"); v != "card XXXXXXXXXXXX1111 paid" {
			t.Errorf("card narration = %q, want the card masked", v)
		}
		if v, _ := f.GetCellValue("Statement", nar+"3"); v != "rrn 987654321090" {
			t.Errorf("rrn narration = %q, want it unmasked", v)
		}
		if v, _ := f.GetCellValue("Statement", nar+"6"); !strings.HasPrefix(v, "aadhaar XXXXXXXX0124,") {
			t.Errorf("aadhaar narration = %q, want the number masked", v)
		}
		// A masked closing balance stays text.
		cb := colOf(t, h, "closingBalance")
		if v, _ := f.GetCellValue("Statement", cb+"3"); v != "XXXXXX.XX" {
			t.Errorf("masked closingBalance = %q", v)
		}
		rev := colOf(t, h, "reversed")
		if typ, _ := f.GetCellType("Statement", rev+"5"); typ != excelize.CellTypeBool {
			t.Errorf("reversed cell type = %v, want bool", typ)
		}
		if v, _ := f.GetCellValue("Statement", rev+"5"); v != "TRUE" {
			t.Errorf("S4 reversed = %q, want TRUE", v)
		}
	})

	t.Run("orders", func(t *testing.T) {
		r := rows(t, f, "Orders")
		h := r[0]
		if len(r) != 4 {
			t.Fatalf("Orders has %d rows, want header + 3", len(r))
		}
		got := [][]string{}
		for _, row := range r[1:] {
			get := func(n string) string {
				v, _ := f.GetCellValue("Orders", colOf(t, h, n)+strconv.Itoa(len(got)+2))
				return v
			}
			got = append(got, []string{get("svcOrderId"), get("settlementSvcOrderId"), get("unsettled"), get("ageDays"), get("ageBucket")})
			_ = row
		}
		want := [][]string{{"O1", "", "TRUE", "2", "2-3"}, {"O2", "", "TRUE", "1", "0-1"}, {"O3", "SET3", "FALSE", "", ""}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("orders = %v, want %v", got, want)
		}
	})

	t.Run("breaks", func(t *testing.T) {
		r := rows(t, f, "Breaks")
		if len(r) != 4 {
			t.Fatalf("Breaks has %d rows, want header + 3 of the current run", len(r))
		}
		h := r[0]
		want := []string{"kind", "poolAccount", "timestamp", "operation", "externalRef", "orderid", "expected", "actual", "delta", "explainedBy", "note", "callId", "prevCallId", "exception", "life"}
		if !reflect.DeepEqual(h, want) {
			t.Errorf("Breaks header = %v, want %v", h, want)
		}
		d := colOf(t, h, "delta")
		if got := number(t, f, "Breaks", d+"2"); got != -1 {
			t.Errorf("arithmetic delta = %v, want -1", got)
		}
		nf, fill := cellFormat(t, f, "Breaks", d+"2")
		if nf != fmtDelta || !strings.Contains(nf, "[Red]") {
			t.Errorf("delta format = %q, want red negatives", nf)
		}
		if fill != fillBreak {
			t.Errorf("arithmetic break fill = %q, want %q", fill, fillBreak)
		}
		if _, fill := cellFormat(t, f, "Breaks", "A4"); fill != fillLook {
			t.Errorf("explainedGap fill = %q, want %q", fill, fillLook)
		}
		if v, _ := f.GetCellValue("Breaks", colOf(t, h, "orderid")+"2"); v != "S2" {
			t.Errorf("break orderid = %q, want S2 (from the call)", v)
		}
	})

	t.Run("matching, duplicates, pending", func(t *testing.T) {
		if n := len(rows(t, f, "Matching")); n != 9 {
			t.Errorf("Matching has %d rows, want header + 8", n)
		}
		d := rows(t, f, "Duplicates")
		if len(d) != 3 || d[1][0] != "duplicateDebit" || d[2][0] != "duplicateDebit" {
			t.Errorf("Duplicates = %v, want the two duplicate debits", d)
		}
		p := rows(t, f, "Pending")
		if len(p) != 2 || p[1][0] != "pending" || p[1][colIndex(p[0], "statuscode")] != "TUP" {
			t.Errorf("Pending = %v, want the TUP call", p)
		}
		m := rows(t, f, "Matching")
		for i, row := range m[1:] {
			_, fill := cellFormat(t, f, "Matching", "A"+strconv.Itoa(i+2))
			want := ""
			switch row[0] {
			case "amountMismatch", "callOnly", "statementOnly", "duplicateDebit":
				want = fillBreak
			case "pending":
				want = fillLook
			}
			if fill != want {
				t.Errorf("Matching %s fill = %q, want %q", row[0], fill, want)
			}
		}
	})

	t.Run("reversals and unsettled", func(t *testing.T) {
		r := rows(t, f, "Reversals")
		if len(r) != 3 || r[2][colIndex(r[0], "reversalFound")] != "FALSE" {
			t.Fatalf("Reversals = %v", r)
		}
		if _, fill := cellFormat(t, f, "Reversals", "A3"); fill != fillBreak {
			t.Errorf("unlinked reversal fill = %q, want %q", fill, fillBreak)
		}
		u := rows(t, f, "Unsettled")
		want := []string{"svcOrderId", "clientOrderId", "txnDateTime", "txnChargedValue", "ageDays", "ageBucket", "beforePeriod"}
		if !reflect.DeepEqual(u[0][:len(want)], want) || len(u) != 4 || u[1][0] != "O0" {
			t.Errorf("Unsettled = %v", u)
		}
	})

	t.Run("summary", func(t *testing.T) {
		r := rows(t, f, "Summary")
		find := func(label string) int {
			for i, row := range r {
				if len(row) > 0 && row[0] == label {
					return i + 1
				}
			}
			t.Fatalf("Summary has no row %q", label)
			return 0
		}
		if !strings.Contains(r[1][0], "2026-11-01 to 2026-11-03") {
			t.Errorf("title = %q", r[1][0])
		}
		pool := find("0409000123456")
		if got := number(t, f, "Summary", "B"+strconv.Itoa(pool)); got != 1000000 {
			t.Errorf("opening = %v", got)
		}
		if got := number(t, f, "Summary", "C"+strconv.Itoa(pool)); got != 998796.68 {
			t.Errorf("closing = %v", got)
		}
		if nf, _ := cellFormat(t, f, "Summary", "C"+strconv.Itoa(pool)); nf != fmtAmount {
			t.Errorf("closing format = %q", nf)
		}
		dup := find("duplicateDebit")
		if got := number(t, f, "Summary", "B"+strconv.Itoa(dup)); got != 2 {
			t.Errorf("duplicateDebit count = %v, want 2", got)
		}
		if _, fill := cellFormat(t, f, "Summary", "A"+strconv.Itoa(dup)); fill != fillBreak {
			t.Errorf("duplicateDebit fill = %q, want %q", fill, fillBreak)
		}
		gap := find("gap")
		if got := number(t, f, "Summary", "C"+strconv.Itoa(gap)); got != -5 {
			t.Errorf("gap delta = %v, want -5", got)
		}
		if got := number(t, f, "Summary", "B"+strconv.Itoa(find("2-3"))); got != 1 {
			t.Errorf("unsettled 2-3 = %v", got)
		}
		if got := number(t, f, "Summary", "B"+strconv.Itoa(find("Pending calls"))); got != 1 {
			t.Errorf("pending = %v", got)
		}
		// Daily table: 3 days, exact sums.
		d1 := find("Statement per day (txnDate)") + 1
		if nf, _ := cellFormat(t, f, "Summary", "A"+strconv.Itoa(d1)); nf != fmtDate {
			t.Errorf("daily date format = %q, want %q", nf, fmtDate)
		}
		wantDaily := [][2]float64{{150.50, 0}, {1234567.89, 25.25}, {0.10, 0}}
		for i, w := range wantDaily {
			row := strconv.Itoa(d1 + i)
			if got := [2]float64{number(t, f, "Summary", "B"+row), number(t, f, "Summary", "C"+row)}; got != w {
				t.Errorf("day %d debits/credits = %v, want %v", i+1, got, w)
			}
		}
	})

	t.Run("no secrets", func(t *testing.T) {
		for _, p := range files.Paths() {
			if strings.HasSuffix(p, ".xlsx") {
				continue // compressed; its cells are read above
			}
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte("hunter2")) || bytes.Contains(b, []byte("4111111111111111")) || bytes.Contains(b, []byte("234567890124")) {
				t.Errorf("%s holds a secret or an unmasked number", p)
			}
		}
		r := rows(t, f, "Statement")
		for _, row := range r {
			for _, c := range row {
				if strings.Contains(c, "4111111111111111") || strings.Contains(c, "234567890124") {
					t.Errorf("Statement cell %q is unmasked", c)
				}
			}
		}
	})
}

func parseDate(s string) (time.Time, error) {
	return time.ParseInLocation(time.DateOnly, s, recon.IST)
}

func colIndex(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	return -1
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestExportContinuationSheets(t *testing.T) {
	files, _ := exportFixture(t, Options{Format: FormatXLSX, MaxRows: 3})
	f := openBook(t, files.Workbook)
	want := []string{"Summary", "Exceptions", "Exceptions (2)", "Exceptions (3)", "Exceptions (4)", "Exceptions (5)",
		"Exceptions (6)", "Legend", "Legend (2)", "Legend (3)", "Legend (4)", "Legend (5)", "Legend (6)",
		"Legend (7)", "Legend (8)", "Legend (9)", "Legend (10)", "Legend (11)", "Legend (12)", "Legend (13)", "Legend (14)", "Breaks", "Breaks (2)", "Matching", "Matching (2)", "Matching (3)", "Matching (4)",
		"Differences", "Duplicates", "Reversals", "Unsettled", "Unsettled (2)", "Pending", "Fees", "Statement", "Statement (2)", "Statement (3)", "Orders", "Orders (2)"}
	if got := f.GetSheetList(); !reflect.DeepEqual(got, want) {
		t.Fatalf("sheets = %v, want %v", got, want)
	}
	var ids []string
	for _, s := range []string{"Statement", "Statement (2)", "Statement (3)"} {
		r := rows(t, f, s)
		if r[0][colIndex(r[0], "svcOrderId")] != "svcOrderId" {
			t.Errorf("%s has no header row: %v", s, r[0])
		}
		if len(r) > 3 {
			t.Errorf("%s has %d rows, want at most MaxRows 3", s, len(r))
		}
		for _, row := range r[1:] {
			ids = append(ids, row[colIndex(r[0], "svcOrderId")])
		}
		if p, _ := f.GetPanes(s); !p.Freeze {
			t.Errorf("%s header not frozen", s)
		}
		if tb, _ := f.GetTables(s); len(tb) != 1 {
			t.Errorf("%s has %d tables, want 1", s, len(tb))
		}
	}
	if want := []string{"S1", "S2", "S3", "S4", "S5"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("statement rows across the sheets = %v, want %v", ids, want)
	}
	if len(files.CSV) != 0 {
		t.Errorf("CSV files = %v with --format xlsx", files.CSV)
	}
}

func TestExportGoldenCSV(t *testing.T) {
	files, dir := exportFixture(t, Options{Format: FormatCSV})
	if files.Workbook != "" {
		t.Errorf("Workbook = %q with --format csv", files.Workbook)
	}
	var names []string
	for _, p := range files.CSV {
		names = append(names, filepath.Base(p))
	}
	want := []string{"summary.csv", "exceptions.csv", "breaks.csv", "matching.csv", "differences.csv", "duplicates.csv", "reversals.csv", "unsettled.csv", "pending.csv", "fees.csv", "statement.csv", "orders.csv"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("CSV files = %v, want %v", names, want)
	}
	for _, n := range names {
		golden(t, filepath.Join(dir, n), filepath.Join("testdata", "golden", n))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want) {
		t.Errorf("%d files in the output directory, want %d (no leftovers)", len(entries), len(want))
	}
}

func golden(t *testing.T, got, want string) {
	t.Helper()
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(want, g, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/export -update)", err)
	}
	if !bytes.Equal(g, w) {
		t.Errorf("%s differs from %s:\n got: %q\nwant: %q", filepath.Base(got), want, g, w)
	}
}

func TestExportCSVBOM(t *testing.T) {
	files, _ := exportFixture(t, Options{Format: FormatCSV, BOM: true})
	for _, p := range files.CSV {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
			t.Errorf("%s does not start with a BOM", filepath.Base(p))
		}
		plain, _ := os.ReadFile(filepath.Join("testdata", "golden", filepath.Base(p)))
		if !bytes.Equal(b[3:], plain) {
			t.Errorf("%s with BOM differs from the golden file after the BOM", filepath.Base(p))
		}
	}
}

func TestExportNoRun(t *testing.T) {
	db := fixtureDB(t)
	dir := filepath.Join(t.TempDir(), "out")
	for _, period := range [][2]string{{"2026-11-01", "2026-11-02"}, {"2026-10-01", "2026-10-31"}} {
		from, _ := parseDate(period[0])
		to, _ := parseDate(period[1])
		_, err := Reconciliation(context.Background(), db, Options{From: from, To: to, Dir: dir})
		var nr *NoRunError
		if !errors.Is(err, ErrNoRun) || !errors.As(err, &nr) || nr.From != period[0] {
			t.Errorf("Reconciliation(%v) = %v, want a NoRunError", period, err)
		}
		if err != nil && !strings.Contains(err.Error(), "run reconcile check first") {
			t.Errorf("error %q does not say what to do", err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left after a failed export: %v", entries)
	}
}

func TestFailedExportLeavesNothing(t *testing.T) {
	db := fixtureDB(t)
	// A missing table fails the export half-way, after the Summary and
	// several sheets were written.
	if _, err := db.ExecContext(context.Background(), `DROP TABLE recon_unsettled`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Reconciliation(context.Background(), db, Options{From: fixFrom, To: fixTo, Dir: dir}); err == nil {
		t.Fatal("Reconciliation without the unsettled table succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left after a failed export: %v", entries)
	}
}
