package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/redact"
)

// bigTable is a table of every cell kind, marks, masked numbers, empty
// cells and text that wraps, n rows long, each row's cells its own.
func bigTable(n int) (Table, [][]string, []Mark) {
	t := Table{Sheet: "Big", File: "big.csv", Columns: []Column{
		{"id", Text, false}, {"amount", Amount, false}, {"delta", Delta, false}, {"date", Date, false},
		{"at", DateTime, false}, {"stamp", Stamp, false}, {"n", Int, false}, {"flag", Bool, false},
		{"narration", Text, true}, {"maybe", Text, false}}}
	rows, marks := make([][]string, n), make([]Mark, n)
	for i := range n {
		narr := "card 4111111111111111 row " + strconv.Itoa(i)
		if i%13 == 0 {
			narr = strings.Repeat("a long narration that wraps ", 1+i%4)
		}
		maybe := ""
		if i%3 == 0 {
			maybe = "=x" + strconv.Itoa(i)
		}
		rows[i] = []string{fmt.Sprintf("ID%07d", i), fmt.Sprintf("%d.%02d", i, i%100), fmt.Sprintf("-%d.5", i%7),
			fmt.Sprintf("2026-11-%02d", 1+i%30), fmt.Sprintf("2026-11-%02d %02d:%02d:%02d", 1+i%30, i%24, i%60, (i*7)%60),
			fmt.Sprintf("2026-11-21T%02d:%02d:00.000Z", i%24, i%60), strconv.Itoa(i * 3), strconv.FormatBool(i%2 == 0),
			narr, maybe}
		if i%17 == 5 {
			rows[i][1] = "not a number"
		}
		switch {
		case i%7 == 0:
			marks[i] = MarkBreak
		case i%11 == 0:
			marks[i] = MarkLook
		}
	}
	return t, rows, marks
}

// TestExportLargeTable writes a table of 12,000 rows, continued on two
// more sheets, through the writer (the rows made while the sheet and the
// file are written, the workbook's large parts deflated in parallel), and
// checks it against the same rows written the plain way: by a bare
// StreamWriter, one row after another, and by encoding/csv. Every cell's
// value and style, every row's height and every column's width read back
// the same, and the CSV file is byte for byte the same.
func TestExportLargeTable(t *testing.T) {
	const n, maxRows = 12000, 5001
	table, cells, marks := bigTable(n)
	dir := t.TempDir()
	w, err := NewWriter(Options{Dir: dir, MaxRows: maxRows}, "big.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	err = w.Write(context.Background(), table, func(yield func(Row, error) bool) {
		row := make([]string, len(table.Columns)) // reused, as the store's streams do
		for i := range n {
			copy(row, cells[i])
			if !yield(Row{Cells: row, Mark: marks[i]}, nil) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	ref := plainTable(t, table, cells, marks, maxRows)
	got, want := openBook(t, files.Workbook), openBook(t, ref.book)
	sheets := []string{"Big", "Big (2)", "Big (3)"}
	if l := got.GetSheetList(); !reflect.DeepEqual(l, sheets) {
		t.Fatalf("sheets %v, want %v", l, sheets)
	}
	for _, s := range sheets {
		sameSheet(t, got, want, s, len(table.Columns))
		for i, wd := range ref.widths {
			name, _ := excelize.ColumnNumberToName(i + 1)
			if w, _ := got.GetColWidth(s, name); w != wd {
				t.Errorf("%s column %s width %v, want %v", s, name, w, wd)
			}
		}
	}
	csvGot, err := os.ReadFile(filepath.Join(dir, "big.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if string(csvGot) != ref.csv {
		t.Errorf("big.csv (%d bytes) differs from encoding/csv's (%d bytes)", len(csvGot), len(ref.csv))
	}
}

// sameSheet compares two sheets cell by cell: raw values, the styles'
// number formats, fills, fonts and alignments, and the rows' heights.
func sameSheet(t *testing.T, got, want *excelize.File, sheet string, cols int) {
	t.Helper()
	opt := excelize.Options{RawCellValue: true}
	styles := map[*excelize.File]map[int]*excelize.Style{got: {}, want: {}}
	g, err := got.GetRows(sheet, opt)
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.GetRows(sheet, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: the values read back differ (%d rows, want %d)", sheet, len(g), len(w))
	}
	for r := 1; r <= len(w); r++ {
		gh, _ := got.GetRowHeight(sheet, r)
		wh, _ := want.GetRowHeight(sheet, r)
		if gh != wh {
			t.Fatalf("%s row %d height %v, want %v", sheet, r, gh, wh)
		}
		for c := 1; c <= cols; c++ {
			cell, _ := excelize.CoordinatesToCellName(c, r)
			gi, err := got.GetCellStyle(sheet, cell)
			if err != nil {
				t.Fatal(err)
			}
			wi, err := want.GetCellStyle(sheet, cell)
			if err != nil {
				t.Fatal(err)
			}
			if gs, ws := styleOf(t, got, gi, styles[got]), styleOf(t, want, wi, styles[want]); !reflect.DeepEqual(gs, ws) {
				t.Fatalf("%s!%s style %+v, want %+v", sheet, cell, gs, ws)
			}
		}
	}
}

// styleOf is the style id of f, read once into seen.
func styleOf(t *testing.T, f *excelize.File, id int, seen map[int]*excelize.Style) *excelize.Style {
	if st, ok := seen[id]; ok {
		return st
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	seen[id] = st
	return st
}

// plain is a table written the plain way.
type plain struct {
	book   string
	widths []float64
	csv    string
}

// plainTable writes the table with a bare StreamWriter, a row at a time,
// its cells made as xlsxSheet.values makes them, and its CSV file with
// encoding/csv alone.
func plainTable(t *testing.T, table Table, cells [][]string, marks []Mark, maxRows int) plain {
	w := &Writer{o: Options{MaxRows: maxRows}, f: excelize.NewFile(), styles: map[styleKey]int{}}
	defer w.f.Close()
	masked := make([][]string, len(cells))
	for i, r := range cells {
		masked[i] = append([]string(nil), r...)
		masked[i][8] = redact.Numbers(r[8])
	}
	sample := make([]Row, min(sampleRows, len(cells)))
	for i := range sample {
		sample[i] = Row{Cells: masked[i], Mark: marks[i]}
	}
	wd, wrap := widths(table.Columns, sample)
	x := newXLSXSheet(w, &table, wd, wrap)
	vals, row := make([]any, len(table.Columns)), make([]excelize.Cell, len(table.Columns))
	var sw *excelize.StreamWriter
	var line int
	for i := range cells {
		if i%(maxRows-1) == 0 {
			if sw != nil {
				if err := sw.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			name := table.Sheet
			if i > 0 {
				name = fmt.Sprintf("%s (%d)", table.Sheet, 1+i/(maxRows-1))
			}
			if err := w.newSheet(name); err != nil {
				t.Fatal(err)
			}
			var err error
			if sw, err = w.f.NewStreamWriter(name); err != nil {
				t.Fatal(err)
			}
			if err := sw.SetRow("A1", x.header()); err != nil {
				t.Fatal(err)
			}
			line = 1
		}
		line++
		h := x.values(Row{Cells: masked[i], Mark: marks[i]}, row, vals)
		var err error
		if h > 0 {
			err = sw.SetRow("A"+strconv.Itoa(line), vals, excelize.RowOpts{Height: h})
		} else {
			err = sw.SetRow("A"+strconv.Itoa(line), vals)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(t.TempDir(), "plain.xlsx")
	if err := w.f.SaveAs(book); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	rec := make([]string, len(table.Columns))
	for i, c := range table.Columns {
		rec[i] = csvText(Text, c.Name, false)
	}
	cw.Write(rec)
	for _, r := range masked {
		for i, c := range table.Columns {
			rec[i] = csvText(c.Kind, r[i], false)
		}
		cw.Write(rec)
	}
	cw.Flush()
	bw.Flush()
	return plain{book: book, widths: wd, csv: b.String()}
}
