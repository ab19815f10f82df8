package calllog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// failingWriter is a database that fails the batch number failAt (1 is the
// first) and stores the others.
type failingWriter struct {
	*store.DB
	failAt  int32
	batches atomic.Int32
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error) {
	if w.batches.Add(1) == w.failAt {
		return 0, errDiskFull
	}
	return w.DB.InsertCalls(ctx, at, calls, bad)
}

// TestImportStoreFailsMidway: the batches are stored by a goroutine of
// their own while the next is decoded; when one fails, the import stops
// with that error, what was stored before stays (and is counted), and
// importing the file again adds the rest, nothing twice.
func TestImportStoreFailsMidway(t *testing.T) {
	db := openDB(t)
	const n = 2*BatchLines + 5000
	var b strings.Builder
	start := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	for i := range n {
		b.WriteString(goodLine(fmt.Sprintf("R%06d", i), fmt.Sprintf("O%06d", i), start.Add(time.Duration(i)*time.Second).Format(time.DateTime)))
		b.WriteByte('\n')
	}
	p := writeFile(t, "calls.jsonl", b.String())

	w := &failingWriter{DB: db, failAt: 2}
	sum, err := ImportFiles(context.Background(), w, []string{p}, Options{Workers: 2})
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("import with the second batch failing: %v, want %v", err, errDiskFull)
	}
	if sum.Imported != BatchLines || sum.Lines != BatchLines {
		t.Errorf("summary %+v: want the first batch (%d lines) imported and counted", sum, BatchLines)
	}
	if got := countRows(t, db, `SELECT count(*) FROM calls`); got != BatchLines {
		t.Errorf("calls stored = %d, want the first batch's %d", got, BatchLines)
	}
	if got := w.batches.Load(); got != 2 {
		t.Errorf("batches tried = %d, want 2: nothing is sent after a failure", got)
	}

	sum, err = ImportFiles(context.Background(), db, []string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != n-BatchLines || sum.Duplicates != BatchLines {
		t.Errorf("again: %+v, want %d imported and %d already imported", sum, n-BatchLines, BatchLines)
	}
	if got := countRows(t, db, `SELECT count(*) FROM calls`); got != n {
		t.Errorf("calls stored = %d, want %d", got, n)
	}
}
