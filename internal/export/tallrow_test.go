package export

import (
	"context"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/evidence"
)

// TestExportTallRowCapped: a wrapped cell taller than Excel's 409 pt row
// (28 lines, or ~1,150 characters in a 40-wide column) is written, at
// most 409 pt high, and its text reads back whole.
func TestExportTallRowCapped(t *testing.T) {
	table := Table{Sheet: "S", File: "s.csv", Columns: []Column{{"id", Text, false}, {"narration", Text, true}}}
	for _, text := range []string{
		strings.Repeat("word ", 230),
		strings.Repeat("checked with bank\n", 28),
	} {
		files := writeTable(t, Options{Format: FormatBoth}, t.TempDir(), "r.xlsx", table, [][]string{{"a", text}})
		f := openBook(t, files.Workbook)
		if got, err := f.GetCellValue("S", "B2"); err != nil || got != text {
			t.Errorf("B2 = %q (%v), want the %d characters written", got, err, len(text))
		}
		h, err := f.GetRowHeight("S", 2)
		if err != nil || h != excelize.MaxRowHeight {
			t.Errorf("row 2 height = %v (%v), want %v", h, err, excelize.MaxRowHeight)
		}
		if recs := readCSV(t, files.CSV[0]); recs[1][1] != text {
			t.Errorf("s.csv narration = %q, want the text whole", recs[1][1])
		}
	}
}

// TestExportExceptionsLongNote: an exception's 28-line note does not stop
// the workbook.
func TestExportExceptionsLongNote(t *testing.T) {
	note := strings.Repeat("checked with bank\n", 28)
	v := &evidence.View{Rows: []evidence.Row{{Exception: evidence.Exception{ID: "EX-1", Kind: "gap", Key: "k",
		Day: "2026-11-01", Status: evidence.StatusExplained, Note: note}, Life: "new"}}}
	s := exceptionsSheet(v)
	w, err := NewWriter(Options{Dir: t.TempDir()}, "reconciliation.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Write(context.Background(), s.Table, s.rows); err != nil {
		t.Fatalf("Exceptions sheet with a 28-line note: %v", err)
	}
	files, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f := openBook(t, files.Workbook)
	r := rows(t, f, s.Sheet)
	col := colIndex(r[0], evidence.ColNote)
	if col < 0 {
		t.Fatalf("no note column in %q", r[0])
	}
	if got := r[1][col]; got != note {
		t.Errorf("note = %q, want it whole", got)
	}
}
