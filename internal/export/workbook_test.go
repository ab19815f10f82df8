package export

import (
	"archive/zip"
	"context"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// rowOf returns the 1-based row of the Summary whose column A is label.
func rowOf(tb testing.TB, r [][]string, label string) int {
	tb.Helper()
	for i, row := range r {
		if len(row) > 0 && row[0] == label {
			return i + 1
		}
	}
	tb.Fatalf("Summary has no row %q", label)
	return 0
}

// exact reads a number cell back as the decimal it was written from.
func exact(tb testing.TB, f *excelize.File, sheet, cell string) decimal.Decimal {
	tb.Helper()
	number(tb, f, sheet, cell) // a number cell
	raw, _ := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
	d, err := decimal.NewFromString(raw)
	if err != nil {
		tb.Fatalf("%s!%s = %q: %v", sheet, cell, raw, err)
	}
	return d
}

// bridgeOf reads the bridge of a pool account back from the Summary: its
// six line amounts (opening … closing), the last call's closing and the
// check text.
func bridgeOf(tb testing.TB, f *excelize.File, acct string) (lines []decimal.Decimal, last decimal.Decimal, check string) {
	tb.Helper()
	r := rows(tb, f, "Summary")
	top := rowOf(tb, r, "Bridge of pool account "+acct)
	labels := []string{"Opening balance (first call's opening)", "− Debits of logged calls",
		"+ Credits (reversals) that explain gaps", "− Debits with no logged call that explain gaps",
		"± Unexplained breaks", "= Closing balance"}
	for i, l := range labels {
		if got := r[top+i][0]; got != l {
			tb.Fatalf("bridge line %d = %q, want %q", i+1, got, l)
		}
		lines = append(lines, exact(tb, f, "Summary", "B"+strconv.Itoa(top+i+1)))
	}
	row := top + len(labels) + 1
	if r[row-1][0] != "Last call's closing" {
		tb.Fatalf("row after the bridge = %q, want the last call's closing", r[row-1])
	}
	check, _ = f.GetCellValue("Summary", "C"+strconv.Itoa(row))
	return lines, exact(tb, f, "Summary", "B"+strconv.Itoa(row)), check
}

func TestExportSummaryVerdictAndBridge(t *testing.T) {
	files, dir := exportFixture(t, Options{})
	f := openBook(t, files.Workbook)
	r := rows(t, f, "Summary")
	want := "Not reconciled: 6.00 unexplained in 2 breaks; 6 exceptions to review; 1 reversal not linked"
	if r[0][0] != want {
		t.Errorf("verdict = %q, want %q", r[0][0], want)
	}
	if _, fill := cellFormat(t, f, "Summary", "A1"); fill != fillBreak {
		t.Errorf("verdict fill = %q, want %q", fill, fillBreak)
	}
	lines, last, check := bridgeOf(t, f, "0409000123456")
	// 1,000,000 − 1,234.57 + 25.25 (the S3 credit) − 0 + 6.00 (gaps of −1 and −5) = 998,796.68
	wantLines := []string{"1000000", "-1234.57", "25.25", "0", "6", "998796.68"}
	for i, w := range wantLines {
		if !lines[i].Equal(decimal.RequireFromString(w)) {
			t.Errorf("bridge line %d = %s, want %s", i+1, lines[i], w)
		}
	}
	sum := decimal.Zero
	for _, d := range lines[:5] {
		sum = sum.Add(d)
	}
	if !sum.Equal(lines[5]) {
		t.Errorf("bridge lines add up to %s, but its closing is %s", sum, lines[5])
	}
	if !last.Equal(lines[5]) || check != "checked" {
		t.Errorf("last call's closing = %s, check %q; want %s, checked", last, check, lines[5])
	}
	// The pool table's closing (the last call's) is the bridge's.
	pool := strconv.Itoa(rowOf(t, r, "0409000123456"))
	if c := exact(t, f, "Summary", "C"+pool); !c.Equal(lines[5]) {
		t.Errorf("pool closing %s, bridge closing %s", c, lines[5])
	}

	// summary.csv carries the same verdict and lines.
	csvRows := readCSV(t, filepath.Join(dir, "summary.csv"))
	get := func(sec, key string) string {
		for _, row := range csvRows {
			if row[0] == sec && row[1] == key {
				return row[2]
			}
		}
		t.Errorf("summary.csv has no %s,%s", sec, key)
		return ""
	}
	if v := get("verdict", "verdict"); v != want {
		t.Errorf("summary.csv verdict = %q", v)
	}
	csvSum := decimal.Zero
	for _, k := range []string{"opening", "debits", "credits", "unloggedDebits", "unexplainedBreaks"} {
		csvSum = csvSum.Add(decimal.RequireFromString(get("bridge 0409000123456", k)))
	}
	if c := get("bridge 0409000123456", "closing"); c != "998796.68" || !csvSum.Equal(decimal.RequireFromString(c)) {
		t.Errorf("summary.csv bridge adds up to %s, closing %s", csvSum, c)
	}
	if v := get("bridge 0409000123456", "check"); v != "checked" {
		t.Errorf("summary.csv check = %q", v)
	}
	if v := get("period", "finishedAt"); v != "2026-11-04T06:30:30+05:30" {
		t.Errorf("summary.csv finishedAt = %q, want it in IST with its offset", v)
	}
}

// runDB makes a database with one current run of the fixture's period
// with the summary sum and the breaks (pool, kind, delta).
func runDB(tb testing.TB, sum string, breaks ...[3]string) *store.DB {
	tb.Helper()
	stmts := []string{`INSERT INTO recon_runs (id, period_from, period_to, as_of, started_at, finished_at, state, summary) VALUES
		(1, '2026-11-01', '2026-11-03', '2026-11-03', '2026-11-04T00:00:00.000Z', '2026-11-04T00:00:01.000Z', 'ok', '` + sum + `')`}
	for _, b := range breaks {
		stmts = append(stmts, `INSERT INTO recon_breaks (run_id, pool_account, kind, ts, expected, actual, delta)
			VALUES (1, '`+b[0]+`', '`+b[1]+`', '2026-11-02 10:00:00', '0', '0', '`+b[2]+`')`)
	}
	return testDB(tb, stmts...)
}

func TestExportSummaryVerdicts(t *testing.T) {
	const clean = `{"pools":[{"account":"P1","opening":"500.00","closing":"479.50","calls":2,"debited":"30.50"}],
		"calls":2,"outcomes":{"matched":{"count":2,"amount":"30.50"}}}`
	for _, tc := range []struct {
		name, sum string
		breaks    [][3]string
		verdict   string
		fill      string
		check     string
	}{
		{"clean run", clean, [][3]string{{"P1", "explainedGap", "-10.00"}}, "Reconciled", fillGood, "checked"},
		{"bridge off", clean, nil, "Not reconciled: the bridge of pool P1 is off by 10.00", fillBreak, "difference 10.00"},
		{"unexplained both ways", `{"pools":[{"account":"P1","opening":"100.00","closing":"85.50","calls":0,"debited":"0"}],"calls":3}`,
			[][3]string{{"P1", "gap", "10.00"}, {"P1", "gap", "-25.50"}, {"P1", "arithmetic", "30.00"}},
			"Not reconciled: 65.50 unexplained in 3 breaks", fillBreak, "checked"},
		{"old run, nothing in it", `{}`, nil, "Nothing to reconcile: no call and no record in 2026-11-01 to 2026-11-03", fillBreak, ""},
		{"one exception", `{"calls":1,"outcomes":{"pending":{"count":1,"amount":"5.00"}}}`, nil,
			"Not reconciled: 1 exception to review", fillBreak, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := runDB(t, tc.sum, tc.breaks...)
			files, err := Reconciliation(context.Background(), db, Options{From: fixFrom, To: fixTo, Dir: t.TempDir(), Format: FormatXLSX})
			if err != nil {
				t.Fatal(err)
			}
			f := openBook(t, files.Workbook)
			if v, _ := f.GetCellValue("Summary", "A1"); v != tc.verdict {
				t.Errorf("verdict = %q, want %q", v, tc.verdict)
			}
			if _, fill := cellFormat(t, f, "Summary", "A1"); fill != tc.fill {
				t.Errorf("verdict fill = %q, want %q", fill, tc.fill)
			}
			if tc.check == "" {
				return
			}
			lines, _, check := bridgeOf(t, f, "P1")
			if check != tc.check {
				t.Errorf("check = %q, want %q", check, tc.check)
			}
			sum := decimal.Zero
			for _, d := range lines[:5] {
				sum = sum.Add(d)
			}
			if !sum.Equal(lines[5]) {
				t.Errorf("bridge lines add up to %s, its closing is %s", sum, lines[5])
			}
		})
	}
}

func TestExportLegend(t *testing.T) {
	files, _ := exportFixture(t, Options{Format: FormatXLSX})
	f := openBook(t, files.Workbook)
	r := rows(t, f, "Legend")
	if want := []string{"term", "kind", "meaning", "whatToDo"}; !reflect.DeepEqual(r[0], want) {
		t.Fatalf("Legend header = %v, want %v", r[0], want)
	}
	byTerm := map[string][]string{}
	for _, row := range r[1:] {
		byTerm[row[0]] = row
	}
	terms := append(append(append([]string{}, recon.Outcomes...), recon.BreakKinds...), recon.BucketNames()...)
	for _, term := range append(terms, "suggestedPair", "beforePeriod", "reversalFound") {
		row, ok := byTerm[term]
		if !ok {
			t.Errorf("Legend has no row for %q", term)
			continue
		}
		if len(row) != 4 || !strings.HasSuffix(row[2], ".") || !strings.HasSuffix(row[3], ".") {
			t.Errorf("Legend %q = %q, want a sentence of meaning and one of what to do", term, row)
		}
	}
	id, _ := f.GetCellStyle("Legend", "C2")
	if st, _ := f.GetStyle(id); st.Alignment == nil || !st.Alignment.WrapText {
		t.Errorf("Legend meaning is not wrapped: %+v", st.Alignment)
	}
}

func TestExportPrintSetup(t *testing.T) {
	files, _ := exportFixture(t, Options{Format: FormatXLSX})
	f := openBook(t, files.Workbook)
	titles := map[string]string{}
	areas := map[string]string{}
	for _, dn := range f.GetDefinedName() {
		switch dn.Name {
		case "_xlnm.Print_Titles":
			titles[dn.Scope] = dn.RefersTo
		case "_xlnm.Print_Area":
			areas[dn.Scope] = dn.RefersTo
		}
	}
	for _, s := range f.GetSheetList() {
		lo, err := f.GetPageLayout(s)
		if err != nil {
			t.Fatal(err)
		}
		want := "landscape"
		if s == "Summary" || s == "Legend" {
			want = "portrait"
		}
		if lo.Size == nil || *lo.Size != 9 || lo.Orientation == nil || *lo.Orientation != want {
			t.Errorf("%s page layout = %s, want A4 (9) %s", s, layout(lo), want)
		}
		props, err := f.GetSheetProps(s)
		if err != nil {
			t.Fatal(err)
		}
		// Fitted one page wide when that prints at 75% or more, else at
		// 75% across pages: never smaller (11 pt prints at 8.25 pt).
		var width float64
		cols, _ := f.GetCols(s)
		for c := range cols {
			name, _ := excelize.ColumnNumberToName(c + 1)
			wd, _ := f.GetColWidth(s, name)
			width += (wd*7 + 5) * 0.75
		}
		if s == "Unsettled" { // the note beside the table is outside the print area
			width = 0
			for _, name := range []string{"A", "B", "C", "D", "E", "F", "G"} {
				wd, _ := f.GetColWidth(s, name)
				width += (wd*7 + 5) * 0.75
			}
		}
		page := 841.89 - 72
		if want == "portrait" {
			page = 595.28 - 72
		}
		fit := props.FitToPage != nil && *props.FitToPage
		switch {
		case fit && (lo.FitToWidth == nil || *lo.FitToWidth != 1 || lo.FitToHeight == nil || *lo.FitToHeight != 0):
			t.Errorf("%s page layout = %s, want 1 page wide and as many down as it takes", s, layout(lo))
		case fit && page/width < 0.75:
			t.Errorf("%s is fitted one page wide at %.0f%%, under 75%%", s, 100*page/width)
		case !fit && (lo.AdjustTo == nil || *lo.AdjustTo != 75 || lo.PageOrder == nil || *lo.PageOrder != "overThenDown"):
			t.Errorf("%s is not fitted, but prints at %s, want 75%%, across then down", s, layout(lo))
		case !fit && page/width >= 0.75:
			t.Errorf("%s would fit one page wide at %.0f%%, but is not fitted", s, 100*page/width)
		}
		if (s == "Summary" || s == "Legend") && !fit {
			t.Errorf("%s is not fitted one page wide", s)
		}
		m, err := f.GetPageMargins(s)
		if err != nil || m.Left == nil || *m.Left != 0.5 || m.Bottom == nil || *m.Bottom != 0.75 {
			t.Errorf("%s margins = %+v, %v; want 0.5 in at the sides, 0.75 in at the bottom", s, m, err)
		}
		hf, err := f.GetHeaderFooter(s)
		if err != nil || hf == nil || !strings.Contains(hf.OddFooter, "&A") || !strings.Contains(hf.OddFooter, "Page &P of &N") ||
			!strings.Contains(hf.OddFooter, "reconciliation run 2") {
			t.Errorf("%s footer = %+v, %v; want the sheet, the page of N and the run", s, hf, err)
		}
		if s == "Summary" {
			continue
		}
		want = "'" + s + "'!$1:$1"
		if s == "Statement" || s == "Orders" {
			want = "'" + s + "'!$A:$D," + want // accountNumber … svcOrderId on every page across
			if fit {
				t.Errorf("%s is fitted one page wide: %d columns cannot print at 75%% on one page", s, len(cols))
			}
		}
		if titles[s] != want {
			t.Errorf("%s print titles = %q, want %q (the header row on every page)", s, titles[s], want)
		}
	}
	if want := "'Unsettled'!$A:$I"; areas["Unsettled"] != want {
		t.Errorf("Unsettled print area = %q, want %q (the table, not its note)", areas["Unsettled"], want)
	}
}

func layout(lo excelize.PageLayoutOptions) string {
	s := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	i := func(p *int) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(*p)
	}
	u := func(p *uint) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(int(*p)) + "%"
	}
	return i(lo.Size) + " " + s(lo.Orientation) + " " + i(lo.FitToWidth) + "x" + i(lo.FitToHeight) + " " + u(lo.AdjustTo) + " " + s(lo.PageOrder)
}

func TestExportSheetsThatAnswer(t *testing.T) {
	files, _ := exportFixture(t, Options{Format: FormatXLSX})
	f := openBook(t, files.Workbook)

	t.Run("matching lists exceptions first", func(t *testing.T) {
		m := rows(t, f, "Matching")
		var got []string
		for _, row := range m[1:] {
			got = append(got, row[0])
		}
		want := []string{"amountMismatch", "duplicateDebit", "duplicateDebit", "pending", "callOnly", "statementOnly", "matched", "reversed"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Matching outcomes = %v, want %v (exceptions by time, then matched)", got, want)
		}
		sp := colOf(t, m[0], "suggestedPair")
		if v, _ := f.GetCellValue("Matching", sp+"6"); v != "statement record S5 — rule: same amount, 45s apart, product agrees" {
			t.Errorf("callOnly suggestedPair = %q", v)
		}
	})

	t.Run("summary lists suggested pairs", func(t *testing.T) {
		r := rows(t, f, "Summary")
		n := rowOf(t, r, "callOnly calls with a likely statementOnly record")
		if got := number(t, f, "Summary", "B"+strconv.Itoa(n)); got != 1 {
			t.Errorf("suggested pairs = %v, want 1", got)
		}
		// Both sides' ids: the call's callId (and externalRef), the
		// statement record's svcOrderId.
		if row := r[n]; row[0] != "call 4 at 2026-11-03 09:00:00 IST" ||
			row[2] != "externalRef R8; statement record S5 — rule: same amount, 45s apart, product agrees" {
			t.Errorf("suggested pair row = %q", row)
		}
		if got := number(t, f, "Summary", "B"+strconv.Itoa(n+1)); got != 10 {
			t.Errorf("suggested pair amount = %v, want the number 10", got)
		}
	})

	t.Run("reversals: only the unlinked row is red", func(t *testing.T) {
		r := rows(t, f, "Reversals")
		for c := 1; c <= len(r[0]); c++ {
			col, _ := excelize.ColumnNumberToName(c)
			if _, fill := cellFormat(t, f, "Reversals", col+"2"); fill != "" {
				t.Errorf("linked reversal %s2 fill = %q, want none", col, fill)
			}
			if _, fill := cellFormat(t, f, "Reversals", col+"3"); fill != fillBreak {
				t.Errorf("unlinked reversal %s3 fill = %q, want %q", col, fill, fillBreak)
			}
		}
		s := rows(t, f, "Summary")
		if _, fill := cellFormat(t, f, "Summary", "A"+strconv.Itoa(rowOf(t, s, "Reversed records"))); fill != "" {
			t.Errorf("Summary reversed records fill = %q, want none", fill)
		}
		if _, fill := cellFormat(t, f, "Summary", "A"+strconv.Itoa(rowOf(t, s, "Reversal record not synced (unlinked)"))); fill != fillBreak {
			t.Errorf("Summary unlinked fill = %q, want %q", fill, fillBreak)
		}
	})

	t.Run("unsettled says which orders are older than the period", func(t *testing.T) {
		u := rows(t, f, "Unsettled")
		bp := colIndex(u[0], "beforePeriod")
		var got []string
		for _, row := range u[1:] {
			got = append(got, row[0]+"="+row[bp])
		}
		if want := []string{"O0=TRUE", "O1=FALSE", "O2=FALSE"}; !reflect.DeepEqual(got, want) {
			t.Errorf("beforePeriod = %v, want %v", got, want)
		}
		note := u[0][len(u[0])-1]
		if !strings.Contains(note, "before 2026-11-01") || len(u[0]) != bp+5 { // exception, life, a gap, the note
			t.Errorf("Unsettled header row = %q, want a note after one empty column", u[0])
		}
		if tb, _ := f.GetTables("Unsettled"); len(tb) != 1 || tb[0].Range != "A1:I4" {
			t.Errorf("Unsettled tables = %+v, want A1:I4 (the note outside)", tb)
		}
	})

	t.Run("every time shows IST", func(t *testing.T) {
		s := rows(t, f, "Summary")
		fin := "B" + strconv.Itoa(rowOf(t, s, "Finished"))
		if v, _ := f.GetCellValue("Summary", fin); v != "2026-11-04 06:30:30 IST" {
			t.Errorf("Finished = %q, want 2026-11-04 06:30:30 IST", v)
		}
		number(t, f, "Summary", fin) // still a date-time
		for _, sh := range []string{"Matching", "Breaks", "Statement", "Orders", "Reversals", "Unsettled"} {
			h := rows(t, f, sh)[0]
			col := "timestamp"
			if colIndex(h, col) < 0 {
				col = "txnDateTime"
			}
			if v, _ := f.GetCellValue(sh, colOf(t, h, col)+"2"); !strings.HasSuffix(v, " IST") {
				t.Errorf("%s %s = %q, want its zone", sh, col, v)
			}
		}
	})

	t.Run("chart: credits on an axis of their own", func(t *testing.T) {
		z, err := zip.OpenReader(files.Workbook)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		rc, err := z.Open("xl/charts/chart1.xml")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		x := string(b)
		bar := regexp.MustCompile(`(?s)<barChart>.*?</barChart>`).FindString(x)
		line := regexp.MustCompile(`(?s)<lineChart>.*?</lineChart>`).FindString(x)
		if !strings.Contains(bar, "Summary!$B$") || strings.Contains(bar, "Summary!$C$") {
			t.Errorf("the columns are not the debits alone: %.200s", bar)
		}
		if !strings.Contains(line, "Summary!$C$") {
			t.Errorf("the line is not the credits: %.200s", line)
		}
		if n := strings.Count(x, "<valAx>"); n != 2 || !strings.Contains(x, `<axPos val="r">`) {
			t.Errorf("chart has %d value axes, want 2 with one on the right", n)
		}
	})
}

func TestExportDocProps(t *testing.T) {
	at := time.Date(2026, 11, 4, 6, 31, 0, 0, recon.IST)
	files, _ := exportFixture(t, Options{Format: FormatXLSX, Version: "svcrecon v1.2.3 0aab28a3c1f2", Now: func() time.Time { return at }})
	f := openBook(t, files.Workbook)
	p, err := f.GetDocProps()
	if err != nil {
		t.Fatal(err)
	}
	want := excelize.DocProperties{Creator: "svcrecon", LastModifiedBy: "svcrecon", Created: "2026-11-04T01:01:00Z",
		Modified: "2026-11-04T01:01:00Z", Title: "Reconciliation 2026-11-01 to 2026-11-03",
		Description: "Written by svcrecon v1.2.3 0aab28a3c1f2", Version: "svcrecon v1.2.3 0aab28a3c1f2"}
	if *p != want {
		t.Errorf("document properties = %+v\nwant %+v", *p, want)
	}
	if a, err := f.GetAppProps(); err != nil || a.Application != "svcrecon" {
		t.Errorf("application = %+v, %v; want svcrecon", a, err)
	}
	// Without a version, the build's: svcrecon and the module version.
	files, _ = exportFixture(t, Options{Format: FormatXLSX})
	if p, _ := openBook(t, files.Workbook).GetDocProps(); !strings.HasPrefix(p.Version, "svcrecon ") || p.Created < "2026" {
		t.Errorf("default document properties = %+v, want svcrecon's version and the time of writing", *p)
	}
}

func TestExportCellsFit(t *testing.T) {
	files, _ := exportFixture(t, Options{Format: FormatXLSX})
	f := openBook(t, files.Workbook)
	s := rows(t, f, "Summary")

	t.Run("verdict fill across the row", func(t *testing.T) {
		for _, col := range []string{"A", "B", "C", "D", "E"} {
			if _, fill := cellFormat(t, f, "Summary", col+"1"); fill != fillBreak {
				t.Errorf("verdict %s1 fill = %q, want %q", col, fill, fillBreak)
			}
		}
		if m, _ := f.GetMergeCells("Summary"); len(m) == 0 || m[0].GetStartAxis() != "A1" || m[0].GetEndAxis() != "E1" {
			t.Errorf("Summary merged cells = %v, want the verdict across A1:E1", m)
		}
	})

	t.Run("date-times fit their column", func(t *testing.T) {
		fin := rowOf(t, s, "Finished")
		v, _ := f.GetCellValue("Summary", "B"+strconv.Itoa(fin))
		if wd, _ := f.GetColWidth("Summary", "B"); wd < float64(len(v)+2) {
			t.Errorf("Summary column B is %v wide: %q shows ###", wd, v)
		}
		for i, row := range s {
			if len(row) > 0 && len(row[0]) > 0 {
				if wd, _ := f.GetColWidth("Summary", "A"); float64(len([]rune(row[0]))) > wd && !merged(t, f, "A"+strconv.Itoa(i+1)) {
					t.Errorf("Summary A%d %q is wider than column A (%v)", i+1, row[0], wd)
				}
			}
		}
	})

	t.Run("wrapped rows are as high as their text", func(t *testing.T) {
		for i, row := range rows(t, f, "Legend")[1:] {
			h, _ := f.GetRowHeight("Legend", i+2)
			need := 15.0 * float64(max(lines(row[2], 40), lines(row[3], 40)))
			if h < need {
				t.Errorf("Legend row %d (%s) is %v pt high, want %v for its wrapped text", i+2, row[0], h, need)
			}
		}
		m := rows(t, f, "Matching")
		wd, _ := f.GetColWidth("Matching", colOf(t, m[0], "suggestedPair"))
		if wd > 40 {
			t.Errorf("suggestedPair is %v wide, want it wrapped at 40", wd)
		}
		tall := 0
		for i, row := range m[1:] {
			need := 1
			for c, text := range row {
				if name, _ := excelize.ColumnNumberToName(c + 1); text != "" {
					if wd, _ := f.GetColWidth("Matching", name); wd == 40 {
						need = max(need, lines(text, wd))
					}
				}
			}
			if h, _ := f.GetRowHeight("Matching", i+2); h != float64(15*need) {
				t.Errorf("Matching row %d is %v pt high, want %d lines (%q)", i+2, h, need, row)
			}
			if need > 1 {
				tall++
			}
		}
		if tall < 2 { // the suggested pair, the long note
			t.Errorf("%d Matching rows wrap, want 2", tall)
		}
		pair := rowOf(t, s, "call 4 at 2026-11-03 09:00:00 IST")
		if h, _ := f.GetRowHeight("Summary", pair); h < 30 {
			t.Errorf("Summary suggested pair row is %v pt high, want its text's lines", h)
		}
	})
}

// merged reports whether a cell of the Summary is the first of a merged range.
func merged(tb testing.TB, f *excelize.File, cell string) bool {
	tb.Helper()
	m, err := f.GetMergeCells("Summary")
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range m {
		if r.GetStartAxis() == cell {
			return true
		}
	}
	return false
}

// TestVerdictAsSummary: the evidence's verdict (Verdict, which does not
// read the period's daily totals) is the Summary's, also where only a
// record of the period tells "Reconciled" from "Nothing to reconcile": a
// run with no call and no finding over a statement holding one credit.
func TestVerdictAsSummary(t *testing.T) {
	credit := rec("statement", "SO-1", "2026-11-02 09:00:00", "CR", "100.00", "", "", "", "600.00")
	outside := rec("statement", "SO-2", "2026-11-09 09:00:00", "CR", "100.00", "", "", "", "700.00")
	for _, tc := range []struct {
		name    string
		records []string
		want    string
	}{
		{"no record", nil, "Nothing to reconcile: no call and no record in 2026-11-01 to 2026-11-03"},
		{"a record after the period", []string{outside}, "Nothing to reconcile: no call and no record in 2026-11-01 to 2026-11-03"},
		{"a credit in the period", []string{credit}, "Reconciled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := runDB(t, `{}`)
			for _, q := range tc.records {
				if _, err := db.ExecContext(context.Background(), q); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Verdict(context.Background(), db, fixFrom, fixTo)
			if err != nil || got != tc.want {
				t.Errorf("Verdict = %q, %v; want %q", got, err, tc.want)
			}
			files, err := Reconciliation(context.Background(), db, Options{From: fixFrom, To: fixTo, Dir: t.TempDir(), Format: FormatXLSX})
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := openBook(t, files.Workbook).GetCellValue("Summary", "A1"); v != got {
				t.Errorf("Summary verdict %q, Verdict %q", v, got)
			}
		})
	}
}
