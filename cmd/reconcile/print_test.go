package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// minPrintedPoints is the smallest type a printed page may carry.
const minPrintedPoints = 8

// TestWorkbookPrints prints the sandbox run's workbook to PDF with
// LibreOffice, one sheet at a time, and reads every page back: A4, the
// Summary and Legend portrait and the other sheets landscape, no text under
// 8 pt, the Summary on few pages. It logs pages and the smallest type per
// sheet (go test -v, or scripts/print-check.sh). PRINT_CHECK_WORKBOOK=FILE
// checks that workbook instead of a fresh sandbox run's, PRINT_CHECK_KEEP=DIR
// keeps the copies and PDF files there. Skipped without LibreOffice or
// Calibri's metrics (apt-get install libreoffice-calc fonts-crosextra-carlito).
func TestWorkbookPrints(t *testing.T) {
	office := ""
	for _, name := range []string{"soffice", "libreoffice"} {
		if p, err := exec.LookPath(name); err == nil {
			office = p
			break
		}
	}
	if office == "" {
		t.Skip("LibreOffice is not installed (apt-get install libreoffice-calc): the print check is skipped")
	}
	// Without Calibri or Carlito (its metrics) LibreOffice lays the
	// columns out in a wider font, and the pages differ from Excel's.
	if font, err := exec.Command("fc-match", "Calibri").Output(); err != nil ||
		!strings.Contains(string(font), "Carlito") && !strings.Contains(string(font), "Calibri") {
		t.Skip("no Calibri or Carlito (apt-get install fonts-crosextra-carlito): the print check is skipped")
	}
	dir := t.TempDir()
	if keep := os.Getenv("PRINT_CHECK_KEEP"); keep != "" {
		dir = keep // the copies and PDF files stay there
	}
	book := os.Getenv("PRINT_CHECK_WORKBOOK")
	if book == "" {
		needSandbox(t)
		out := filepath.Join(dir, "reports")
		if stdout, stderr, err := runCmd(t, "run", "--sandbox", "--out", out, "--db", filepath.Join(dir, "r.db")); err != nil {
			t.Fatalf("run --sandbox: %v\n%s\n%s", err, stdout, stderr)
		}
		books, _ := filepath.Glob(filepath.Join(out, "reconciliation-*.xlsx"))
		if len(books) != 1 {
			t.Fatalf("workbooks: %v", books)
		}
		book = books[0]
	}
	sheets, copies := sheetCopies(t, book, filepath.Join(dir, "sheets"))
	pdfDir := filepath.Join(dir, "pdf")
	args := append([]string{"-env:UserInstallation=file://" + filepath.Join(dir, "profile"),
		"--headless", "--convert-to", "pdf", "--outdir", pdfDir}, copies...)
	if out, err := exec.Command(office, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", office, err, out)
	}
	total := 0
	smallest := math.Inf(1)
	for i, s := range sheets {
		name := strings.TrimSuffix(filepath.Base(copies[i]), ".xlsx") + ".pdf"
		p := readPDF(t, filepath.Join(pdfDir, name))
		total += p.pages
		smallest = min(smallest, p.minFont)
		t.Logf("%-12s %3d pages, %-9s smallest type %.1f pt", s, p.pages, p.orientation(), p.minFont)
		if p.minFont < minPrintedPoints {
			t.Errorf("%s prints type of %.1f pt, want %d pt or more", s, p.minFont, minPrintedPoints)
		}
		if !p.a4 {
			t.Errorf("%s does not print on A4", s)
		}
		want := "landscape"
		if s == "Summary" || s == "Legend" {
			want = "portrait"
		}
		if p.orientation() != want {
			t.Errorf("%s prints %s, want %s", s, p.orientation(), want)
		}
		if s == "Summary" && p.pages > 3 {
			t.Errorf("the Summary prints on %d pages, want 3 at most", p.pages)
		}
	}
	t.Logf("%-12s %3d pages, smallest type %.1f pt", "all", total, smallest)
}

// sheetCopies writes a copy of the workbook per sheet with only that
// sheet in it: the sheets and the copies' paths.
func sheetCopies(tb testing.TB, book, dir string) (sheets, copies []string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		tb.Fatal(err)
	}
	f, err := excelize.OpenFile(book)
	if err != nil {
		tb.Fatal(err)
	}
	sheets = f.GetSheetList()
	f.Close()
	for i, s := range sheets {
		f, err := excelize.OpenFile(book)
		if err != nil {
			tb.Fatal(err)
		}
		for _, other := range sheets {
			if other != s {
				if err := f.DeleteSheet(other); err != nil {
					tb.Fatal(err)
				}
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("%02d-%s.xlsx", i+1, strings.ReplaceAll(s, " ", "_")))
		if err := f.SaveAs(p); err != nil {
			tb.Fatal(err)
		}
		f.Close()
		copies = append(copies, p)
	}
	return sheets, copies
}

// printed is what readPDF finds in a PDF.
type printed struct {
	pages              int
	portrait, landscap int     // pages of each orientation
	a4                 bool    // every page is A4
	minFont            float64 // the smallest type size set (Tf) on any page
}

func (p printed) orientation() string {
	switch {
	case p.portrait > 0 && p.landscap > 0:
		return "mixed"
	case p.portrait > 0:
		return "portrait"
	}
	return "landscape"
}

var (
	pdfStream   = regexp.MustCompile(`stream\r?\n`)
	pdfFontSize = regexp.MustCompile(`([0-9.]+)\s+Tf\b`)
	pdfPage     = regexp.MustCompile(`/Type\s*/Page\b`)
	pdfMediaBox = regexp.MustCompile(`/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\]`)
)

// readPDF reads LibreOffice's PDF: its pages and their sizes (the page
// objects and their media boxes) and the smallest type size its content
// streams set (LibreOffice sets every text's size with Tf, at scale 1).
func readPDF(tb testing.TB, path string) printed {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	p := printed{pages: len(pdfPage.FindAll(b, -1)), a4: true, minFont: math.Inf(1)}
	for _, m := range pdfMediaBox.FindAllSubmatch(b, -1) {
		w, _ := strconv.ParseFloat(string(m[1]), 64)
		h, _ := strconv.ParseFloat(string(m[2]), 64)
		if w < h {
			p.portrait++
		} else {
			p.landscap++
		}
		short, long := min(w, h), max(w, h)
		p.a4 = p.a4 && math.Abs(short-595.3) < 1.5 && math.Abs(long-841.9) < 1.5
	}
	for _, loc := range pdfStream.FindAllIndex(b, -1) {
		end := bytes.Index(b[loc[1]:], []byte("endstream"))
		if end < 0 {
			continue
		}
		zr, err := zlib.NewReader(bytes.NewReader(b[loc[1] : loc[1]+end]))
		if err != nil {
			continue // not deflated: a font or an image
		}
		content, _ := io.ReadAll(zr)
		for _, m := range pdfFontSize.FindAllSubmatch(content, -1) {
			if v, err := strconv.ParseFloat(string(m[1]), 64); err == nil && v > 0 {
				p.minFont = min(p.minFont, v)
			}
		}
	}
	return p
}
