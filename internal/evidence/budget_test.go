package evidence_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
)

// TestImportWorkbookZipBomb: a reviewed workbook that unzips to far more
// than it holds (256 MiB of zeros in a part, a file of a few hundred KiB)
// is refused before a part is unzipped, naming the file, in bounded
// memory; nothing is read from the database.
func TestImportWorkbookZipBomb(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("xl/worksheets/_rels/sheet1.xml.rels")
	zeros := make([]byte, 1<<20)
	for range 256 {
		f.Write(zeros)
	}
	w.Close()
	path := filepath.Join(t.TempDir(), "reviewed.xlsx")
	os.WriteFile(path, buf.Bytes(), 0o600)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := evidence.ImportWorkbook(context.Background(), nil, path, "asha", time.Now())
	runtime.ReadMemStats(&after)
	var re *evidence.RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), path+": its part") || !strings.Contains(err.Error(), "unzips to 256 MiB") {
		t.Errorf("ImportWorkbook(a zip bomb of %d KiB) = %v; want it refused naming the file", buf.Len()>>10, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("refusing the bomb allocated %d MiB", alloc>>20)
	}
}

// TestVerifyManifestNotAFile: reconcile verify /dev/zero (or a FIFO) is
// refused by what the name is, before anything is read: a manifest is a
// file of at most 16 MiB.
func TestVerifyManifestNotAFile(t *testing.T) {
	var v evidence.Verification
	err := evidence.VerifyManifest(context.Background(), nil, "/dev/zero", &v)
	if err == nil || !strings.HasPrefix(err.Error(), "/dev/zero: not a regular file") {
		t.Errorf("VerifyManifest(/dev/zero) = %v", err)
	}
}
