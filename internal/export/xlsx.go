package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// xlsxSheet streams rows to a sheet and its continuation sheets.
type xlsxSheet struct {
	w      *Writer
	t      *Table
	widths []float64
	wraps  []int // the columns whose text wraps
	kinds  []CellKind
	part   int
	name   string
	sw     *excelize.StreamWriter
	row    int // rows written to the current part, header included
	cells  []excelize.Cell
	ptrs   []any // &cells[i]
	vals   []any // a row's values: ptrs[i], or nil for an empty unmarked cell
}

func (x *xlsxSheet) open() error {
	x.name = x.t.Sheet
	if x.part > 1 {
		x.name = fmt.Sprintf("%s (%d)", x.t.Sheet, x.part)
	}
	if err := x.w.newSheet(x.name); err != nil {
		return err
	}
	// Before the stream writer: it writes the sheet properties first.
	if err := x.w.printSetup(x.name, page{portrait: x.t.Portrait, widths: x.widths, header: true, keys: x.t.Keys}); err != nil {
		return err
	}
	if x.t.Note != "" {
		last, err := excelize.ColumnNumberToName(len(x.t.Columns))
		if err != nil {
			return err
		}
		if err := x.w.f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area",
			RefersTo: fmt.Sprintf("%s!$A:$%s", quoteSheet(x.name), last), Scope: x.name}); err != nil {
			return err
		}
	}
	if err := x.w.dropDowns(x.name, x.t.Choices); err != nil { // before the stream writer too
		return err
	}
	sw, err := x.w.f.NewStreamWriter(x.name)
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
	if x.cells == nil {
		x.cells = make([]excelize.Cell, len(x.t.Columns))
		x.ptrs = make([]any, len(x.t.Columns))
		for i := range x.cells {
			x.ptrs[i] = &x.cells[i]
		}
	}
	for i, c := range x.t.Columns {
		k := Text
		if c.Kind == Amount || c.Kind == Delta || c.Kind == Int {
			k = Amount // right-aligned over numbers
		}
		x.cells[i] = excelize.Cell{StyleID: x.w.style(k, MarkNone, roleHeader), Value: c.Name}
	}
	x.row = 1
	header := x.ptrs
	if x.t.Note != "" { // one empty column, then the note
		header = append(append(header[:len(header):len(header)], nil),
			excelize.Cell{StyleID: x.w.style(Text, MarkMuted, roleNote), Value: x.t.Note})
	}
	return sw.SetRow("A1", header)
}

// newXLSXSheet starts a table's sheet with its column widths and which of
// its columns wrap (widths).
func newXLSXSheet(w *Writer, t *Table, widths []float64, wrap []bool) *xlsxSheet {
	x := &xlsxSheet{w: w, t: t, widths: widths, part: 1, kinds: make([]CellKind, len(t.Columns))}
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
// than one line; 0 (the default height) when none does.
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
	return float64(n * lineHeight)
}

func (x *xlsxSheet) add(r Row) error {
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
	if x.vals == nil {
		x.vals = make([]any, len(x.t.Columns))
	}
	for i := range x.t.Columns {
		cell := &x.cells[i]
		x.vals[i] = x.ptrs[i]
		if i >= len(r.Cells) || r.Cells[i] == "" {
			cell.Value = nil
			cell.StyleID = 0
			if r.Mark != MarkNone { // an empty cell of a marked row keeps the row's fill
				cell.StyleID = x.w.cellStyle(Text, r.Mark)
			} else {
				x.vals[i] = nil // no cell at all: StreamWriter skips nil
			}
			continue
		}
		k := x.kinds[i]
		val := cellValue(k, r.Cells[i])
		if _, ok := val.(string); ok && k != Prose {
			k = Text // did not parse: keep the text as it is
		}
		cell.Value = val
		cell.StyleID = x.w.cellStyle(k, r.Mark)
	}
	if h := x.height(r.Cells); h > 0 {
		return x.sw.SetRow("A"+strconv.Itoa(x.row), x.vals, excelize.RowOpts{Height: h})
	}
	return x.sw.SetRow("A"+strconv.Itoa(x.row), x.vals)
}

// cellStyle is style(k, m, roleCell), kept in an array: a lookup per
// cell of a million rows.
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

// close adds the table (filter buttons on the header) and flushes the part.
// A header that cannot head an Excel table (an empty or repeated name) gets
// no table, only the frozen row.
func (x *xlsxSheet) close() error {
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
	return x.sw.Flush()
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
