package export

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// xlsxSheet streams rows to a sheet and its continuation sheets. Its
// values method runs in the goroutine that reads the rows, the others
// (but the last close) in the sheet's writer (see pipe); values reads
// only what newXLSXSheet set.
type xlsxSheet struct {
	w      *Writer
	t      *Table
	widths []float64
	wraps  []int // the columns whose text wraps
	kinds  []CellKind
	part   int
	name   string
	sw     *excelize.StreamWriter // the part's header and all but its rows
	rows   *sheetRows             // the part's rows
	enc    *rowXML
	line   []byte // a row's XML
	row    int    // rows written to the current part, header included
}

// open starts a part: a new sheet, its print setup, widths, frozen header
// row and the header.
func (x *xlsxSheet) open() error {
	header := x.header()
	w := x.w
	w.mu.Lock()
	defer w.mu.Unlock()
	x.name = x.t.Sheet
	if x.part > 1 {
		x.name = fmt.Sprintf("%s (%d)", x.t.Sheet, x.part)
	}
	if err := w.newSheet(x.name); err != nil {
		return err
	}
	// Before the stream writer: it writes the sheet properties first.
	if err := w.printSetup(x.name, page{portrait: x.t.Portrait, widths: x.widths, header: true, keys: x.t.Keys}); err != nil {
		return err
	}
	if x.t.Note != "" {
		last, err := excelize.ColumnNumberToName(len(x.t.Columns))
		if err != nil {
			return err
		}
		if err := w.f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area",
			RefersTo: fmt.Sprintf("%s!$A:$%s", quoteSheet(x.name), last), Scope: x.name}); err != nil {
			return err
		}
	}
	if err := w.dropDowns(x.name, x.t.Choices); err != nil { // before the stream writer too
		return err
	}
	sw, err := w.f.NewStreamWriter(x.name)
	if err != nil {
		return err
	}
	x.sw = sw
	for i, wd := range x.widths {
		if err := sw.SetColWidth(i+1, i+1, wd); err != nil {
			return err
		}
	}
	err = sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}}})
	if err != nil {
		return err
	}
	x.row = 1
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	rows, err := newSheetRows(w.o.Dir, w.book, w.o.Log)
	if err != nil {
		return err
	}
	x.rows = rows
	w.allRows = append(w.allRows, rows)
	return nil
}

// header is the header row's cells, and the note beside it.
func (x *xlsxSheet) header() []any {
	header := make([]any, len(x.t.Columns), len(x.t.Columns)+2)
	for i, c := range x.t.Columns {
		k := Text
		if c.Kind == Amount || c.Kind == Delta || c.Kind == Int {
			k = Amount // right-aligned over numbers
		}
		header[i] = excelize.Cell{StyleID: x.w.style(k, MarkNone, roleHeader), Value: c.Name}
	}
	if x.t.Note != "" { // one empty column, then the note
		header = append(header, nil, excelize.Cell{StyleID: x.w.style(Text, MarkMuted, roleNote), Value: x.t.Note})
	}
	return header
}

// newXLSXSheet starts a table's sheet with its column widths and which of
// its columns wrap (widths).
func newXLSXSheet(w *Writer, t *Table, widths []float64, wrap []bool) *xlsxSheet {
	x := &xlsxSheet{w: w, t: t, widths: widths, part: 1, kinds: make([]CellKind, len(t.Columns)), enc: newRowXML(len(t.Columns))}
	for i, c := range t.Columns {
		x.kinds[i] = c.Kind
		if wrap[i] {
			x.kinds[i] = Prose // wrapped, top-aligned
			x.wraps = append(x.wraps, i)
		}
	}
	return x
}

// height is the height in points of a row whose wrapped cells take more
// than one line; 0 (the default height) when none does. It is at most
// Excel's maximum (rowHeight): a taller cell's text stays whole in the
// cell, and the reader scrolls it or widens the row's cell to read it.
func (x *xlsxSheet) height(cells []string) float64 {
	n := 1
	for _, i := range x.wraps {
		if i < len(cells) && len(cells[i]) > int(x.widths[i])-2 {
			n = max(n, lines(cells[i], x.widths[i]))
		}
	}
	if n == 1 {
		return 0
	}
	return rowHeight(float64(n * lineHeight))
}

// values makes a row's cells: vals[i] is &cells[i], or nil for an empty
// cell of an unmarked row (no cell at all: StreamWriter skips nil). It
// returns the row's height (height).
func (x *xlsxSheet) values(r Row, cells []excelize.Cell, vals []any) float64 {
	for i := range x.kinds {
		cell := &cells[i]
		vals[i] = cell
		if i >= len(r.Cells) || r.Cells[i] == "" {
			*cell = excelize.Cell{}
			if r.Mark != MarkNone { // an empty cell of a marked row keeps the row's fill
				cell.StyleID = x.w.cellStyle(Text, r.Mark)
			} else {
				vals[i] = nil
			}
			continue
		}
		k := x.kinds[i]
		val := cellValue(k, r.Cells[i])
		if _, ok := val.(string); ok && k != Prose {
			k = Text // did not parse: keep the text as it is
		}
		*cell = excelize.Cell{StyleID: x.w.cellStyle(k, r.Mark), Value: val}
	}
	return x.height(r.Cells)
}

// write writes a batch's rows (the sheet's writer).
func (x *xlsxSheet) write(b *rowBatch) error {
	for i := range b.n {
		if err := x.add(b.vals[i], b.height[i]); err != nil {
			return err
		}
	}
	return nil
}

// add writes one row, starting the next part when this one is full.
func (x *xlsxSheet) add(vals []any, height float64) error {
	if x.row >= x.w.o.MaxRows {
		if err := x.close(); err != nil {
			return err
		}
		x.part++
		if err := x.open(); err != nil {
			return err
		}
	}
	x.row++
	var err error
	if x.line, err = x.enc.appendRow(x.line[:0], x.row, vals, height); err != nil {
		return err
	}
	x.rows.write(x.line)
	return nil
}

// cellStyle is style(k, m, roleCell), kept in an array: a lookup per
// cell of a million rows. Only the goroutine that makes the rows calls
// it.
func (w *Writer) cellStyle(k CellKind, m Mark) int {
	if int(k) < len(w.cells) && int(m) < len(w.cells[k]) {
		if id := w.cells[k][m]; id != 0 {
			return id
		}
		w.cells[k][m] = w.style(k, m, roleCell)
		return w.cells[k][m]
	}
	return w.style(k, m, roleCell)
}

// close adds the table (filter buttons on the header), flushes the part
// and hands its rows to the workbook's zip writer.
// A header that cannot head an Excel table (an empty or repeated name) gets
// no table, only the frozen row.
func (x *xlsxSheet) close() error {
	x.w.mu.Lock()
	defer x.w.mu.Unlock()
	if tableHeader(x.t.Columns) {
		last, err := excelize.ColumnNumberToName(len(x.t.Columns))
		if err != nil {
			return err
		}
		stripes := true
		err = x.sw.AddTable(&excelize.Table{
			Range:          fmt.Sprintf("A1:%s%d", last, max(x.row, 2)),
			Name:           tableName(x.name),
			StyleName:      "TableStyleLight9",
			ShowRowStripes: &stripes,
		})
		if err != nil {
			return fmt.Errorf("add table: %w", err)
		}
	}
	if err := x.sw.Flush(); err != nil {
		return err
	}
	if err := x.rows.close(); err != nil {
		return err
	}
	// The part of a sheet made by NewSheet (or the first, Sheet1).
	x.w.rows[fmt.Sprintf("xl/worksheets/sheet%d.xml", x.sw.SheetID)] = x.rows
	return nil
}

// tableHeader reports whether the column names can head an Excel table:
// at least one, none empty, no two the same (Excel compares them without
// case).
func tableHeader(cols []Column) bool {
	seen := make(map[string]bool, len(cols))
	for _, c := range cols {
		k := strings.ToLower(c.Name)
		if k == "" || seen[k] {
			return false
		}
		seen[k] = true
	}
	return len(cols) > 0
}

// quoteSheet quotes a sheet name for a reference: 'Statement (2)'.
func quoteSheet(name string) string {
	return "'" + strings.ReplaceAll(name, "'", "''") + "'"
}

// tableName makes a valid, unique Excel table name of a sheet name:
// "Statement (2)" -> "tblStatement_2".
func tableName(sheet string) string {
	var b strings.Builder
	b.WriteString("tbl")
	for _, r := range sheet {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('_')
		}
	}
	return b.String()
}
