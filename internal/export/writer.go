package export

import (
	"archive/zip"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/redact"
)

// sampleRows is how many rows of a sheet are read before its column widths
// are fixed (the StreamWriter needs the widths before the first row).
const sampleRows = 200

// Number formats of the workbook.
const (
	fmtAmount   = "#,##0.00"
	fmtDelta    = "#,##0.00;[Red]-#,##0.00"
	fmtDate     = "yyyy-mm-dd"
	fmtDateTime = `yyyy-mm-dd hh:mm:ss "IST"` // every time is IST, and says so
)

// Colours of the row marks (Excel's "Bad", "Neutral", "Good" cell styles).
const (
	fillBreak  = "FFC7CE"
	fontBreak  = "9C0006"
	fillLook   = "FFEB9C"
	fontLook   = "9C5700"
	fillGood   = "C6EFCE"
	fontGood   = "006100"
	fontMuted  = "808080"
	fillHeader = "DDEBF7"
	fontFamily = "Calibri"
)

// Type sizes in points.
const (
	fontSize    = 11
	verdictSize = 16
)

// Writer is the one table writer: it streams tables to the sheets of one
// workbook (excelize's StreamWriter) and/or to one CSV file each, in
// Options.Dir, as Options.Format asks. Every file is written under a
// temporary name in the same directory; Finish renames them all, Abort
// removes them. The reconciliation and biller exports and bulk results
// write through it.
type Writer struct {
	o      Options
	f      *excelize.File // nil: no workbook
	book   string         // workbook file name
	sheets int            // sheets created so far
	styles map[styleKey]int
	cells  [Prose + 1][MarkGood + 1]int // cell styles by kind and mark (0: not made yet)
	outs   []*output                    // CSV files written, committed by Finish
	done   bool
	tables []TableRows    // the tables written, with their rows
	ev     *evidence.View // the run's evidence (the reconciliation workbook)
}

type styleKey struct {
	kind CellKind
	mark Mark
	role int
}

// Roles of a cell, for its style.
const (
	roleCell    = iota
	roleHeader  // a sheet's header row
	roleTitle   // the Summary's title
	roleSection // a section header of the Summary
	roleLabel   // a left-aligned label (Summary, column A)
	roleNote    // a note beside a table or under a Summary section: italic
	roleVerdict // the Summary's verdict: large and bold
	roleSpan    // a note across the Summary's columns: italic, wrapped
)

// NewWriter starts the files of one export in o.Dir (created when
// missing): the workbook book when o.Format asks for xlsx, and a CSV file
// per table when it asks for csv. The caller must call Finish or Abort.
func NewWriter(o Options, book string) (*Writer, error) {
	o.defaults()
	if err := os.MkdirAll(o.Dir, 0o777); err != nil { // less the umask
		return nil, fmt.Errorf("output directory: %w", err)
	}
	w := &Writer{o: o, book: book, styles: map[styleKey]int{}}
	if o.Format.xlsx() {
		w.f = excelize.NewFile()
		if err := w.docProps(); err != nil {
			w.f.Close()
			return nil, err
		}
	}
	return w, nil
}

// newSheet adds a sheet (renaming the new file's Sheet1 the first time).
func (w *Writer) newSheet(name string) error {
	w.sheets++
	if w.sheets == 1 {
		return w.f.SetSheetName("Sheet1", name)
	}
	_, err := w.f.NewSheet(name)
	return err
}

// style returns the style ID for a cell of kind k with mark m.
func (w *Writer) style(k CellKind, m Mark, role int) int {
	key := styleKey{k, m, role}
	if id, ok := w.styles[key]; ok {
		return id
	}
	st := &excelize.Style{}
	var nf string
	switch k {
	case Amount:
		nf = fmtAmount
	case Delta:
		nf = fmtDelta
	case Date:
		nf = fmtDate
		st.Alignment = &excelize.Alignment{Horizontal: "left", Indent: 1}
	case DateTime, Stamp:
		nf = fmtDateTime
		st.Alignment = &excelize.Alignment{Horizontal: "left", Indent: 1}
	case Int:
		st.NumFmt = 1 // 0
	case Prose:
		st.Alignment = &excelize.Alignment{WrapText: true, Vertical: "top"}
	}
	if nf != "" {
		st.CustomNumFmt = &nf
	}
	font := &excelize.Font{Family: fontFamily, Size: fontSize}
	switch m {
	case MarkBreak:
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fillBreak}}
		font.Color = fontBreak
	case MarkLook:
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fillLook}}
		font.Color = fontLook
	case MarkGood:
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fillGood}}
		font.Color = fontGood
	case MarkMuted:
		font.Color = fontMuted
	}
	switch role {
	case roleHeader, roleSection:
		font.Bold = true
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fillHeader}}
		st.Border = []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 1}}
		if k != Text {
			st.Alignment = &excelize.Alignment{Horizontal: "right"}
		}
	case roleTitle:
		font.Bold, font.Size = true, 14
	case roleVerdict:
		font.Bold, font.Size = true, verdictSize
		st.Alignment = &excelize.Alignment{Horizontal: "left", Vertical: "center", WrapText: true}
	case roleNote:
		font.Italic = true
		st.Alignment = &excelize.Alignment{Horizontal: "left"}
	case roleSpan:
		font.Italic = true
		st.Alignment = &excelize.Alignment{Horizontal: "left", WrapText: true}
	case roleLabel:
		st.Alignment = &excelize.Alignment{Horizontal: "left"}
	}
	st.Font = font
	if st.Alignment == nil {
		st.Alignment = &excelize.Alignment{}
	}
	if st.Alignment.Vertical == "" {
		st.Alignment.Vertical = "top" // beside a cell whose text wraps
	}
	id, err := w.f.NewStyle(st)
	if err != nil {
		panic(fmt.Sprintf("export: style %+v: %v", key, err)) // the styles above are fixed
	}
	w.styles[key] = id
	return id
}

// Write streams one table's rows to its sheet (continued on "Sheet (2)" …
// past Options.MaxRows) and its CSV file (none when t.File is ""), in one
// pass over rows. Columns marked Mask have card and Aadhaar numbers
// masked. The first error of rows, of the context (checked every 4096
// rows) or of a write is returned, wrapped with the table's name.
func (w *Writer) Write(ctx context.Context, t Table, rows Rows) error {
	if w.f == nil && (t.File == "" || !w.o.Format.csv()) {
		return nil // neither a sheet nor a file to write (the Legend of a CSV export)
	}
	start := time.Now()
	tw := &tableWrite{w: w, ctx: ctx, t: &t}
	if w.o.Progress != nil && t.Count != nil {
		n, err := t.Count()
		if err != nil {
			return fmt.Errorf("export %s: count rows: %w", t.Sheet, err)
		}
		tw.bar = progress.New(w.o.Progress, "export "+t.Sheet, n, w.o.Log)
		defer tw.bar.Done()
	}
	for r, err := range rows {
		if err != nil {
			return fmt.Errorf("export %s: row %d: %w", t.Sheet, tw.n+int64(len(tw.sample))+1, err)
		}
		if err := tw.row(r); err != nil {
			return err
		}
	}
	if err := tw.close(); err != nil {
		return err
	}
	w.o.Log.Info("sheet exported", "sheet", t.Sheet, "rows", tw.n, "elapsed", time.Since(start).Round(time.Millisecond))
	w.tables = append(w.tables, TableRows{Sheet: t.Sheet, File: t.File, Rows: tw.n})
	return nil
}

// tableWrite is one Write under way: the first rows are held as a sample
// until the column widths are known (the StreamWriter needs them before
// the first row), then every row goes to the sheet and the CSV file.
type tableWrite struct {
	w      *Writer
	ctx    context.Context
	t      *Table
	bar    *progress.Bar
	sample []Row
	opened bool
	xs     *xlsxSheet
	cf     *csvFile
	n      int64 // rows written
}

// row masks a row's numbers and holds it in the sample or writes it.
func (tw *tableWrite) row(r Row) error {
	for i, c := range tw.t.Columns {
		if c.Mask && i < len(r.Cells) && r.Cells[i] != "" {
			r.Cells[i] = redact.Numbers(r.Cells[i])
		}
	}
	if !tw.opened {
		if len(tw.sample) < sampleRows {
			tw.sample = append(tw.sample, Row{Cells: append([]string(nil), r.Cells...), Mark: r.Mark})
			return nil
		}
		if err := tw.flush(); err != nil {
			return err
		}
	}
	if err := tw.put(r); err != nil {
		return fmt.Errorf("export %s: row %d: %w", tw.t.Sheet, tw.n, err)
	}
	return nil
}

// open opens the sheet (its widths from the sample) and the CSV file.
func (tw *tableWrite) open() error {
	t, w := tw.t, tw.w
	if w.f != nil {
		wd, wrap := widths(t.Columns, tw.sample)
		tw.xs = newXLSXSheet(w, t, wd, wrap)
		if err := tw.xs.open(); err != nil {
			return fmt.Errorf("export %s: %w", t.Sheet, err)
		}
	}
	if w.o.Format.csv() && t.File != "" {
		header := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			header[i] = c.Name
		}
		var err error
		if tw.cf, err = w.openCSV(t.File, header); err != nil {
			return err
		}
	}
	return nil
}

// put writes one row; every 4096 rows it moves the progress bar and
// checks the context.
func (tw *tableWrite) put(r Row) error {
	tw.n++
	if tw.xs != nil {
		if err := tw.xs.add(r); err != nil {
			return err
		}
	}
	if tw.cf != nil {
		if err := tw.cf.add(tw.t.Columns, r.Cells); err != nil {
			return err
		}
	}
	if tw.n%4096 == 0 {
		tw.bar.Add(4096)
		return tw.ctx.Err()
	}
	return nil
}

// flush opens the sheet and the file, the widths being known, and writes
// the sample.
func (tw *tableWrite) flush() error {
	if err := tw.open(); err != nil {
		return err
	}
	tw.opened = true
	for _, s := range tw.sample {
		if err := tw.put(s); err != nil {
			return fmt.Errorf("export %s: row %d: %w", tw.t.Sheet, tw.n, err)
		}
	}
	tw.sample = nil
	return nil
}

// close writes what is left of the sample and closes the sheet and file.
func (tw *tableWrite) close() error {
	if !tw.opened {
		if err := tw.flush(); err != nil {
			return err
		}
	}
	tw.bar.Add(tw.n % 4096)
	if tw.xs != nil {
		if err := tw.xs.close(); err != nil {
			return fmt.Errorf("export %s: %w", tw.t.Sheet, err)
		}
	}
	if tw.cf != nil {
		if err := tw.cf.close(); err != nil {
			return fmt.Errorf("export %s: %w", tw.t.File, err)
		}
	}
	return nil
}

// testHookBeforeCommit, when set (by tests), runs when every file of an
// export is written under its temporary name, before the first rename.
var testHookBeforeCommit func()

// Finish writes the workbook and renames every file to its final name.
func (w *Writer) Finish() (Files, error) {
	var files Files
	if w.f != nil {
		out, err := create(w.o.Dir, w.book, w.o.Log)
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
		// Deflated at BestSpeed: about 3 times faster than the default
		// level, for a file about a fifth larger (the XML of a million rows
		// compresses well either way).
		w.f.SetZipWriter(func(io.Writer) excelize.ZipWriter {
			zw := zip.NewWriter(out.f)
			zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
				return flate.NewWriter(out, flate.BestSpeed)
			})
			return zw
		})
		if err := w.f.Write(io.Discard); err != nil {
			return files, fmt.Errorf("write %s: %w", out.final, err)
		}
	}
	if testHookBeforeCommit != nil {
		testHookBeforeCommit()
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
	files.Tables = w.tables
	if w.f != nil {
		w.f.Close()
	}
	return files, nil
}

// Abort removes what was not committed. It is safe after Finish.
func (w *Writer) Abort() {
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
