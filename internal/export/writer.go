package export

import (
	"archive/zip"
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// sampleRows is how many rows of a sheet are read before its column widths
// are fixed (the StreamWriter needs the widths before the first row).
const sampleRows = 200

// Number formats of the workbook.
const (
	fmtAmount   = "#,##0.00"
	fmtDelta    = "#,##0.00;[Red]-#,##0.00"
	fmtDate     = "yyyy-mm-dd"
	fmtDateTime = "yyyy-mm-dd hh:mm:ss"
)

// Colours of the row marks (Excel's "Bad", "Neutral" cell styles).
const (
	fillBreak  = "FFC7CE"
	fontBreak  = "9C0006"
	fillLook   = "FFEB9C"
	fontLook   = "9C5700"
	fontMuted  = "808080"
	fillHeader = "DDEBF7"
	fontFamily = "Calibri"
)

// writer writes one workbook and its CSV files.
type writer struct {
	o      Options
	f      *excelize.File // nil: no workbook
	book   string         // workbook file name
	sheets int            // sheets created so far
	styles map[styleKey]int
	outs   []*output // CSV files written, committed by finish
	done   bool
}

type styleKey struct {
	kind kind
	mark mark
	role int
}

// Roles of a cell, for its style.
const (
	roleCell    = iota
	roleHeader  // a sheet's header row
	roleTitle   // the Summary's title
	roleSection // a section header of the Summary
	roleLabel   // a left-aligned label (Summary, column A)
)

func newWriter(o Options, book string) (*writer, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	w := &writer{o: o, book: book, styles: map[styleKey]int{}}
	if o.Format.xlsx() {
		w.f = excelize.NewFile()
	}
	return w, nil
}

// newSheet adds a sheet (renaming the new file's Sheet1 the first time).
func (w *writer) newSheet(name string) error {
	w.sheets++
	if w.sheets == 1 {
		return w.f.SetSheetName("Sheet1", name)
	}
	_, err := w.f.NewSheet(name)
	return err
}

// style returns the style ID for a cell of kind k with mark m.
func (w *writer) style(k kind, m mark, role int) int {
	key := styleKey{k, m, role}
	if id, ok := w.styles[key]; ok {
		return id
	}
	st := &excelize.Style{}
	var nf string
	switch k {
	case kAmount:
		nf = fmtAmount
	case kDelta:
		nf = fmtDelta
	case kDate:
		nf = fmtDate
		st.Alignment = &excelize.Alignment{Horizontal: "left", Indent: 1}
	case kDateTime, kStamp:
		nf = fmtDateTime
		st.Alignment = &excelize.Alignment{Horizontal: "left", Indent: 1}
	case kInt:
		st.NumFmt = 1 // 0
	}
	if nf != "" {
		st.CustomNumFmt = &nf
	}
	font := &excelize.Font{Family: fontFamily, Size: 11}
	switch m {
	case markBreak:
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fillBreak}}
		font.Color = fontBreak
	case markLook:
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fillLook}}
		font.Color = fontLook
	case markMuted:
		font.Color = fontMuted
	}
	switch role {
	case roleHeader, roleSection:
		font.Bold = true
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fillHeader}}
		st.Border = []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 1}}
		if k != kText {
			st.Alignment = &excelize.Alignment{Horizontal: "right"}
		}
	case roleTitle:
		font.Bold, font.Size = true, 14
	case roleLabel:
		st.Alignment = &excelize.Alignment{Horizontal: "left"}
	}
	st.Font = font
	id, err := w.f.NewStyle(st)
	if err != nil {
		panic(fmt.Sprintf("export: style %+v: %v", key, err)) // the styles above are fixed
	}
	w.styles[key] = id
	return id
}

// cellValue converts a stored value to what a workbook cell holds: a
// float64 for amounts, a time.Time (IST wall clock) for dates, an int64, a
// bool, or the text itself when it does not parse.
func cellValue(k kind, s string) any {
	switch k {
	case kAmount, kDelta:
		if plainDecimal(s) {
			// The only float: the cell write. ParseFloat rounds the exact
			// decimal text to the nearest float64.
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return f
			}
		}
	case kDate:
		if t, err := time.ParseInLocation(time.DateOnly, s, svcapi.IST); err == nil {
			return t
		}
	case kDateTime:
		if t, err := time.ParseInLocation(time.DateTime, s, svcapi.IST); err == nil {
			return t
		}
	case kStamp:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.In(svcapi.IST)
		}
	case kInt:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case kBool:
		return s == "1" || s == "true"
	}
	return s
}

// plainDecimal reports whether s is a plain decimal number: an optional
// sign, digits, and at most one point with digits after it (no exponent,
// no NaN or Inf, which ParseFloat would take).
func plainDecimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	digits, point := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point && digits > 0 && i < len(s)-1:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// displayWidth estimates how many characters a value takes in its cell.
func displayWidth(k kind, s string) int {
	switch k {
	case kAmount, kDelta:
		if d, err := decimal.NewFromString(s); err == nil {
			ip := d.Abs().Truncate(0).String()
			n := len(ip) + (len(ip)-1)/3 + 3
			if d.IsNegative() {
				n++
			}
			return n
		}
	case kDate:
		return 12 // with the indent
	case kDateTime, kStamp:
		return 22
	case kBool:
		return 5
	}
	return utf8.RuneCountInString(s)
}

// widths computes column widths from the header and a sample of rows.
func widths(cols []column, sample [][]sql.NullString) []float64 {
	out := make([]float64, len(cols))
	for i, c := range cols {
		n := len(c.name) + 3 // the filter button
		for _, r := range sample {
			if m := displayWidth(c.kind, r[i].String); m > n {
				n = m
			}
		}
		out[i] = float64(min(max(n+2, 8), 60))
	}
	return out
}

// sheet streams one sheet's rows from the database to the workbook and the
// CSV file.
func (w *writer) sheet(ctx context.Context, db *sql.DB, s sheet) error {
	start := time.Now()
	var bar *progress.Bar
	if w.o.Progress != nil && s.count != "" {
		var n int64
		if err := db.QueryRowContext(ctx, s.count, s.countArgs...).Scan(&n); err != nil {
			return fmt.Errorf("export %s: count rows: %w", s.name, err)
		}
		bar = progress.New(w.o.Progress, "export "+s.name, n, w.o.Log)
		defer bar.Done()
	}
	rows, err := db.QueryContext(ctx, s.query, s.args...)
	if err != nil {
		return fmt.Errorf("export %s: query: %w", s.name, err)
	}
	defer rows.Close()
	vals := make([]sql.NullString, len(s.cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	scan := func() error {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, c := range s.cols {
			if c.mask && vals[i].String != "" {
				vals[i].String = maskNumbers(vals[i].String)
			}
		}
		return nil
	}
	var sample [][]sql.NullString
	more := true
	for len(sample) < sampleRows {
		if more = rows.Next(); !more {
			break
		}
		if err := scan(); err != nil {
			return fmt.Errorf("export %s: row %d: %w", s.name, len(sample)+1, err)
		}
		sample = append(sample, append([]sql.NullString(nil), vals...))
	}
	var xs *xlsxSheet
	if w.f != nil {
		xs = &xlsxSheet{w: w, s: &s, widths: widths(s.cols, sample), part: 1}
		if err := xs.open(); err != nil {
			return fmt.Errorf("export %s: %w", s.name, err)
		}
	}
	var cs *csvSheet
	if w.o.Format.csv() {
		if cs, err = w.openCSV(&s); err != nil {
			return err
		}
	}
	var n int64
	put := func(v []sql.NullString) error {
		n++
		m := markNone
		if s.mark != nil {
			m = s.mark(v)
		}
		if xs != nil {
			if err := xs.add(v, m); err != nil {
				return err
			}
		}
		if cs != nil {
			if err := cs.add(v); err != nil {
				return err
			}
		}
		if n%4096 == 0 {
			bar.Add(4096)
			return ctx.Err()
		}
		return nil
	}
	for _, v := range sample {
		if err := put(v); err != nil {
			return fmt.Errorf("export %s: row %d: %w", s.name, n, err)
		}
	}
	sample = nil
	for more && rows.Next() {
		if err := scan(); err != nil {
			return fmt.Errorf("export %s: row %d: %w", s.name, n+1, err)
		}
		if err := put(vals); err != nil {
			return fmt.Errorf("export %s: row %d: %w", s.name, n, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export %s: read rows: %w", s.name, err)
	}
	bar.Add(n % 4096)
	if xs != nil {
		if err := xs.close(); err != nil {
			return fmt.Errorf("export %s: %w", s.name, err)
		}
	}
	if cs != nil {
		if err := cs.close(); err != nil {
			return fmt.Errorf("export %s: %w", s.file, err)
		}
	}
	w.o.Log.Info("sheet exported", "sheet", s.name, "rows", n, "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// xlsxSheet streams rows to a sheet and its continuation sheets.
type xlsxSheet struct {
	w      *writer
	s      *sheet
	widths []float64
	part   int
	name   string
	sw     *excelize.StreamWriter
	row    int // rows written to the current part, header included
	cells  []excelize.Cell
	ptrs   []any
}

func (x *xlsxSheet) open() error {
	x.name = x.s.name
	if x.part > 1 {
		x.name = fmt.Sprintf("%s (%d)", x.s.name, x.part)
	}
	if err := x.w.newSheet(x.name); err != nil {
		return err
	}
	sw, err := x.w.f.NewStreamWriter(x.name)
	if err != nil {
		return err
	}
	x.sw = sw
	if err := x.w.printLandscape(x.name, false); err != nil {
		return err
	}
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
		x.cells = make([]excelize.Cell, len(x.s.cols))
		x.ptrs = make([]any, len(x.s.cols))
		for i := range x.cells {
			x.ptrs[i] = &x.cells[i]
		}
	}
	for i, c := range x.s.cols {
		k := kText
		if c.kind == kAmount || c.kind == kDelta || c.kind == kInt {
			k = kAmount // right-aligned over numbers
		}
		x.cells[i] = excelize.Cell{StyleID: x.w.style(k, markNone, roleHeader), Value: c.name}
	}
	x.row = 1
	return sw.SetRow("A1", x.ptrs, excelize.RowOpts{StyleID: 0})
}

func (x *xlsxSheet) add(v []sql.NullString, m mark) error {
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
	for i, c := range x.s.cols {
		cell := &x.cells[i]
		if !v[i].Valid || v[i].String == "" {
			cell.Value = nil
			cell.StyleID = 0
			if m != markNone {
				cell.StyleID = x.w.style(kText, m, 0)
			}
			continue
		}
		val := cellValue(c.kind, v[i].String)
		k := c.kind
		if _, ok := val.(string); ok {
			k = kText // did not parse: keep the text as it is
		}
		cell.Value = val
		cell.StyleID = x.w.style(k, m, 0)
	}
	return x.sw.SetRow("A"+strconv.Itoa(x.row), x.ptrs)
}

// close adds the table (filter buttons on the header) and flushes the part.
func (x *xlsxSheet) close() error {
	last, err := excelize.ColumnNumberToName(len(x.s.cols))
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
	return x.sw.Flush()
}

// printLandscape sets a sheet to print landscape; fit scales it to one page
// wide.
func (w *writer) printLandscape(sheet string, fit bool) error {
	landscape := "landscape"
	lo := &excelize.PageLayoutOptions{Orientation: &landscape}
	if fit {
		one, auto := 1, 0
		lo.FitToWidth, lo.FitToHeight = &one, &auto
		if err := w.f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
			return err
		}
	}
	return w.f.SetPageLayout(sheet, lo)
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

// csvSheet streams rows to one CSV file.
type csvSheet struct {
	s   *sheet
	out *output
	cw  *csv.Writer
	rec []string
}

func (w *writer) openCSV(s *sheet) (*csvSheet, error) {
	out, err := create(w.o.Dir, s.file)
	if err != nil {
		return nil, err
	}
	w.outs = append(w.outs, out)
	cs := &csvSheet{s: s, out: out, rec: make([]string, len(s.cols))}
	if w.o.BOM {
		if _, err := out.f.WriteString("\uFEFF"); err != nil {
			return nil, fmt.Errorf("write %s: %w", s.file, err)
		}
	}
	cs.cw = csv.NewWriter(out.f)
	cs.cw.UseCRLF = true
	for i, c := range s.cols {
		cs.rec[i] = c.name
	}
	if err := cs.cw.Write(cs.rec); err != nil {
		return nil, fmt.Errorf("write %s: %w", s.file, err)
	}
	return cs, nil
}

func (cs *csvSheet) add(v []sql.NullString) error {
	for i, c := range cs.s.cols {
		s := v[i].String
		if c.kind == kBool && v[i].Valid {
			s = strconv.FormatBool(s == "1" || s == "true")
		}
		cs.rec[i] = s
	}
	return cs.cw.Write(cs.rec)
}

func (cs *csvSheet) close() error {
	cs.cw.Flush()
	return cs.cw.Error()
}

// finish writes the workbook and renames every file to its final name.
func (w *writer) finish() (Files, error) {
	var files Files
	if w.f != nil {
		out, err := create(w.o.Dir, w.book)
		if err != nil {
			return files, err
		}
		w.outs = append([]*output{out}, w.outs...)
		// The first sheet (Summary) is active by default. Never call
		// SetActiveSheet: it parses every streamed sheet back into memory.
		// excelize's Write builds the whole zip in a bytes.Buffer first
		// (hundreds of MB for a million rows). A zip writer on the file
		// itself streams it instead; the buffer Write fills stays empty.
		// (excelize then skips its ZIP64 header fix-up, needed only for a
		// sheet over 4 GB uncompressed: far beyond Excel's row limit
		// times our row width.)
		w.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zip.NewWriter(out.f) })
		if err := w.f.Write(io.Discard); err != nil {
			return files, fmt.Errorf("write %s: %w", out.final, err)
		}
	}
	for i, out := range w.outs {
		p, err := out.commit()
		if err != nil {
			w.outs = w.outs[i+1:]
			return files, err
		}
		if w.f != nil && i == 0 {
			files.Workbook = p
		} else {
			files.CSV = append(files.CSV, p)
		}
	}
	w.outs = nil
	w.done = true
	if w.f != nil {
		w.f.Close()
	}
	return files, nil
}

// abort removes what was not committed.
func (w *writer) abort() {
	if w.done {
		return
	}
	for _, out := range w.outs {
		out.discard()
	}
	if w.f != nil {
		w.f.Close()
	}
}
