package export

import (
	"fmt"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// Printing: A4 paper, margins of half an inch at the sides, a footer with
// the sheet's name, the page number and the run on every page.
const (
	paperA4 = 9 // the page setup's paper size code of A4

	marginSide   = 0.5 // inches
	marginTop    = 0.6
	marginBottom = 0.75
	marginHF     = 0.3 // from the paper's edge to the header and footer

	// minScale is the smallest print scale: the workbook's 11 pt type
	// prints at 8.25 pt. A sheet too wide to fit one page wide at this
	// scale prints at it across several pages (its key columns repeated
	// on each), not smaller.
	minScale = 0.75
	// fitSafety keeps room for a spreadsheet that lays the columns out
	// a little wider than colPoints estimates.
	fitSafety = 0.95
)

// printable is the width of an A4 page between the side margins, in
// points: portrait and landscape.
func printable(portrait bool) float64 {
	const a4Short, a4Long = 595.28, 841.89 // 210 mm × 297 mm
	if portrait {
		return a4Short - 2*marginSide*72
	}
	return a4Long - 2*marginSide*72
}

// colPoints is the printed width in points of a column width given in
// characters (Excel's conversion for Calibri 11: 7 pixels a character
// and 5 of padding, at 96 pixels an inch).
func colPoints(chars float64) float64 { return (chars*7 + 5) * 0.75 }

// page is how one sheet prints.
type page struct {
	portrait bool
	widths   []float64 // the columns' widths, in characters
	header   bool      // repeat the first row at the top of every page
	keys     int       // the leading columns repeated at the left of each page when it prints more than one page wide
}

// fits reports whether the sheet fits one page wide at minScale or more.
func (p page) fits() bool {
	var total float64
	for _, w := range p.widths {
		total += colPoints(w)
	}
	return total*minScale <= printable(p.portrait)*fitSafety
}

// printSetup prepares a sheet for printing on A4: portrait or landscape;
// scaled to one page wide and as many pages down as it takes, or, when
// that would print smaller than minScale, at minScale across pages (page
// by page across, then down; its key columns repeated); its header row
// repeated at the top of every page; margins and a footer that names the
// sheet, the page and the run. On a streamed sheet it must run before
// the sheet's StreamWriter is made.
func (w *Writer) printSetup(sheet string, p page) error {
	fit := p.fits()
	if err := w.f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	orient, size := "landscape", paperA4
	if p.portrait {
		orient = "portrait"
	}
	lo := &excelize.PageLayoutOptions{Size: &size, Orientation: &orient}
	titles := ""
	if fit {
		wide, tall := 1, 0 // 0: as many pages down as it takes
		lo.FitToWidth, lo.FitToHeight = &wide, &tall
	} else {
		scale, order := uint(minScale*100), "overThenDown"
		lo.AdjustTo, lo.PageOrder = &scale, &order
		if p.keys > 0 {
			last, err := excelize.ColumnNumberToName(p.keys)
			if err != nil {
				return err
			}
			titles = quoteSheet(sheet) + "!$A:$" + last
		}
	}
	if err := w.f.SetPageLayout(sheet, lo); err != nil {
		return err
	}
	side, top, bottom, hf := marginSide, marginTop, marginBottom, marginHF
	err := w.f.SetPageMargins(sheet, &excelize.PageLayoutMarginsOptions{Left: &side, Right: &side, Top: &top,
		Bottom: &bottom, Header: &hf, Footer: &hf})
	if err != nil {
		return err
	}
	if err := w.f.SetHeaderFooter(sheet, &excelize.HeaderFooterOptions{OddFooter: w.footer()}); err != nil {
		return err
	}
	if p.header {
		if titles != "" {
			titles += ","
		}
		titles += quoteSheet(sheet) + "!$1:$1"
	}
	if titles == "" {
		return nil
	}
	return w.f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", RefersTo: titles, Scope: sheet})
}

// footerSize is the footer's type size in points: the page's scale
// applies to it too (LibreOffice scales it whatever scaleWithDoc says), so
// it is the cells' size, which prints at 8 pt or more.
const footerSize = fontSize

// footer is every printed page's footer: the sheet's name on the left,
// "Page 2 of 7" in the centre, the run on the right.
func (w *Writer) footer() string {
	size := fmt.Sprintf("&%d", footerSize)
	f := "&L" + size + "&A&C" + size + "Page &P of &N"
	if w.o.Run != "" {
		f += "&R" + size + strings.ReplaceAll(w.o.Run, "&", "&&")
	}
	return f
}

// docProps names svcrecon, its version and the time of writing in the
// workbook's document properties (File > Properties), in place of
// excelize's defaults.
func (w *Writer) docProps() error {
	now := w.o.Now().UTC().Format(time.RFC3339)
	err := w.f.SetDocProps(&excelize.DocProperties{
		Creator:        "svcrecon",
		LastModifiedBy: "svcrecon",
		Created:        now,
		Modified:       now,
		Title:          w.o.Title,
		Description:    "Written by " + w.o.Version,
		Version:        w.o.Version,
	})
	if err != nil {
		return fmt.Errorf("document properties: %w", err)
	}
	if err := w.f.SetAppProps(&excelize.AppProperties{Application: "svcrecon"}); err != nil {
		return fmt.Errorf("document properties: %w", err)
	}
	return nil
}
