package budget

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeZip writes a zip of the named parts; a part's declared size can be
// set apart from what it holds (declared > 0: raw, deflated content).
func writeZip(t *testing.T, name string, parts func(w *zip.Writer)) string {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	parts(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func part(t *testing.T, w *zip.Writer, name string, data []byte) {
	t.Helper()
	f, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data)
}

// TestWorkbookBudgets: an xlsx is a zip, and a small one can unzip to
// gigabytes. A workbook read back is checked from its zip directory: a
// part held in memory larger than its budget (a zip bomb of zeros), parts
// that declare more than the budget together, too many parts, or what is
// no zip at all are refused naming the file; a workbook within them
// passes.
func TestWorkbookBudgets(t *testing.T) {
	bomb := writeZip(t, "bomb.xlsx", func(w *zip.Writer) {
		part(t, w, "xl/workbook.xml", []byte("<workbook/>"))
		part(t, w, "xl/media/image1.png", make([]byte, WorkbookPart+1))
	})
	huge := writeZip(t, "huge.xlsx", func(w *zip.Writer) {
		var z bytes.Buffer
		fw, _ := flate.NewWriter(&z, flate.BestCompression)
		fw.Write(make([]byte, 1<<20))
		fw.Close()
		h := &zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Deflate, UncompressedSize64: WorkbookUnzipped + 1,
			CompressedSize64: uint64(z.Len())}
		f, err := w.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(z.Bytes())
	})
	many := writeZip(t, "many.xlsx", func(w *zip.Writer) {
		for i := range WorkbookEntries + 1 {
			part(t, w, "xl/p"+strconv.Itoa(i), nil)
		}
	})
	text := filepath.Join(t.TempDir(), "text.xlsx")
	os.WriteFile(text, []byte("id,decision\n"), 0o600)
	for path, want := range map[string]string{
		bomb:        `its part "xl/media/image1.png" unzips to 16.0 MiB`,
		huge:        "its parts unzip to more than 4 GiB",
		many:        "10001 parts, more than 10000",
		text:        "no zip directory",
		"/dev/zero": "not a regular file (a character device)",
	} {
		err := Workbook(path, "a reviewed workbook")
		var be *Error
		if !errors.As(err, &be) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("Workbook(%s) = %v, want %q", filepath.Base(path), err, want)
		}
	}
	ok := writeZip(t, "ok.xlsx", func(w *zip.Writer) {
		part(t, w, "xl/workbook.xml", []byte("<workbook/>"))
		part(t, w, "xl/worksheets/sheet1.xml", make([]byte, WorkbookPart+1)) // a sheet: to a temporary file
	})
	if err := Workbook(ok, "a reviewed workbook"); err != nil {
		t.Errorf("Workbook(ok) = %v", err)
	}
}
