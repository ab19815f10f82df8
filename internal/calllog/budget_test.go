package calllog

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/svcrecon/svcrecon/internal/budget"
)

// zeros is /dev/zero: a reader that never ends and holds no line break.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// endlessLines is an endless call log: good lines, each of its own
// externalRef (R0, R1 …), then bad ones from line bad on (0: none).
type endlessLines struct {
	n, bad int
	buf    bytes.Buffer
}

func (e *endlessLines) Read(p []byte) (int, error) {
	for e.buf.Len() < len(p) {
		if e.bad > 0 && e.n >= e.bad-1 {
			e.buf.WriteString("not a call {\n")
		} else {
			e.buf.WriteString(goodLine(fmt.Sprintf("R%d", e.n), "", ts1) + "\n")
		}
		e.n++
	}
	return e.buf.Read(p)
}

// allocated returns the bytes f allocated (runtime TotalAlloc): what an
// input held whole would show as at least its size.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// budgetError returns err as a *budget.Error naming file and line, or
// fails.
func budgetError(t *testing.T, err error, file string, line int, reason string) {
	t.Helper()
	var be *budget.Error
	if !errors.As(err, &be) {
		t.Fatalf("error %v (%T), want a *budget.Error", err, err)
	}
	if be.Input != file || be.Line != line || !strings.Contains(be.Reason, reason) {
		t.Errorf("error %q: want it to name %s:%d and say %q", err, file, line, reason)
	}
	want := fmt.Sprintf("%s:%d: ", file, line)
	if line == 0 {
		want = file + ": "
	}
	if msg := err.Error(); !strings.HasPrefix(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line starting %q", msg, want)
	}
}

// TestImportEndlessInput: /dev/zero (no line break, never ending), read
// as standard input, is refused at its first line once the budget of a
// run without a line break is read, without holding it: the import
// allocates far less than the 256 MiB it read.
func TestImportEndlessInput(t *testing.T) {
	db := openDB(t)
	var err error
	alloc := allocated(func() {
		_, err = Import(context.Background(), db, "-", zeros{}, Options{})
	})
	budgetError(t, err, "-", 1, "no line break in 256 MiB: not a call log")
	if alloc > 96<<20 {
		t.Errorf("reading %s of zeros allocated %s: the input is held, not skipped", budget.Size(MaxRunBytes), budget.Size(int64(alloc)))
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls`); n != 0 {
		t.Errorf("%d calls stored from zeros", n)
	}
}

// TestImportHugeSparseFile: a 2 GiB sparse file (zeros) given as a file is
// refused at its line 1 the same way, in bounded memory.
func TestImportHugeSparseFile(t *testing.T) {
	db := openDB(t)
	p := filepath.Join(t.TempDir(), "sparse.jsonl")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 2<<30); err != nil {
		t.Fatal(err)
	}
	var err error
	alloc := allocated(func() {
		_, err = ImportFiles(context.Background(), db, []string{p}, Options{})
	})
	budgetError(t, err, p, 1, "no line break in 256 MiB")
	if alloc > 96<<20 {
		t.Errorf("a 2 GiB sparse file allocated %s", budget.Size(int64(alloc)))
	}
	// Larger than a call-log file may hold: refused before anything is read.
	_, err = ImportFiles(context.Background(), db, []string{p}, Options{Limits: Limits{File: 1 << 30}})
	budgetError(t, err, p, 0, "2 GiB: more than the 1 GiB a call-log file may hold")
}

// TestImportGzipBomb: a small gzip file that unzips to far more than it
// holds is refused by the same budgets, read as it unzips: zeros at the
// budget of a run without a line break, line breaks alone at the budget
// of a file.
func TestImportGzipBomb(t *testing.T) {
	bomb := func(b byte, n int) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		chunk := bytes.Repeat([]byte{b}, 1<<20)
		for range n >> 20 {
			zw.Write(chunk)
		}
		zw.Close()
		return buf.Bytes()
	}
	db := openDB(t)
	zs := bomb(0, 64<<20)
	var err error
	alloc := allocated(func() {
		_, err = Import(context.Background(), db, "bomb.gz", bytes.NewReader(zs), Options{Limits: Limits{Line: 1 << 20, Run: 16 << 20}})
	})
	budgetError(t, err, "bomb.gz", 1, "no line break in 16 MiB")
	if alloc > 48<<20 {
		t.Errorf("a gzip bomb of %s allocated %s", budget.Size(int64(len(zs))), budget.Size(int64(alloc)))
	}
	nl := bomb('\n', 64<<20)
	p := writeFile(t, "newlines.jsonl.gz", string(nl))
	_, err = ImportFiles(context.Background(), db, []string{p}, Options{Limits: Limits{File: 16 << 20}})
	budgetError(t, err, p, 16<<20+1, "more than 16 MiB read")
	// Line breaks alone are no call log either: they end the import once
	// the budget of a run without a call is read (checked a chunk at a
	// time), long before the budget of a file.
	sum, err := Import(context.Background(), db, "blank.gz", bytes.NewReader(nl), Options{Limits: Limits{Run: 8 << 20}})
	var be *budget.Error
	if !errors.As(err, &be) || be.Input != "blank.gz" || be.Line <= 8<<20 || be.Line > 10<<20 ||
		!strings.Contains(be.Reason, "no call in 8 MiB, only blank lines") || sum.Lines != 0 {
		t.Errorf("a gzip bomb of line breaks = %+v, %v; want it refused past line %d", sum, err, 8<<20)
	}
}

// TestImportFileBudgetKeepsLines: a stream that goes on past the budget of
// a file is refused naming the line it reached; every whole line before it
// is stored, as after a read error, so that importing the same input again
// (as one does after any failed import) stores each line once.
func TestImportFileBudgetKeepsLines(t *testing.T) {
	db := openDB(t)
	lim := Limits{File: 4 << 20}
	sum, err := Import(context.Background(), db, "calls.jsonl", &endlessLines{}, Options{Limits: lim})
	var be *budget.Error
	if !errors.As(err, &be) || be.Input != "calls.jsonl" || !strings.Contains(be.Reason, "more than 4 MiB read") {
		t.Fatalf("Import = %+v, %v; want the budget of a file named", sum, err)
	}
	stored := countRows(t, db, `SELECT count(*) FROM calls`)
	if stored != be.Line-1 || sum.Imported != stored || stored == 0 {
		t.Errorf("refused at line %d: %d calls stored, summary %+v; want every line before it stored", be.Line, stored, sum)
	}
	sum, err = Import(context.Background(), db, "calls.jsonl", &endlessLines{}, Options{Limits: lim})
	if !errors.As(err, &be) || sum.Imported != 0 || sum.Duplicates != stored {
		t.Errorf("the same input again = %+v, %v; want %d duplicates and nothing new", sum, err, stored)
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls`); n != stored {
		t.Errorf("%d calls after importing twice, want %d", n, stored)
	}
}

// TestImportBadLinesBudget: a file whose bad lines pass the budget and
// outnumber its good ones is not a call log: the import stops there,
// having stored the lines before. A file with as many bad lines among
// more good ones is imported whole, and its summary names only the first
// MaxErrors bad lines.
func TestImportBadLinesBudget(t *testing.T) {
	db := openDB(t)
	sum, err := Import(context.Background(), db, "junk.jsonl", &endlessLines{bad: 11}, Options{Limits: Limits{Bad: 100}})
	budgetError(t, err, "junk.jsonl", 111, "more than 100 bad lines")
	if sum.Imported != 10 || sum.Bad != 101 {
		t.Errorf("summary %+v, want 10 imported and 101 bad", sum)
	}
	var b strings.Builder
	for i := range 2*MaxErrors + 2 {
		if i%2 == 0 {
			b.WriteString(goodLine(fmt.Sprintf("G%d", i), "", ts1) + "\n")
		} else {
			b.WriteString("not a call\n")
		}
	}
	sum, err = Import(context.Background(), db, "mixed.jsonl", strings.NewReader(b.String()), Options{Limits: Limits{Bad: 100}})
	if err != nil || sum.Bad != MaxErrors+1 || len(sum.Errors) != MaxErrors || sum.Imported != MaxErrors+1 {
		t.Errorf("mixed file = %d bad, %d errors named, %d imported, %v; want all read, %d named", sum.Bad, len(sum.Errors), sum.Imported, err, MaxErrors)
	}
}

// blockingReader gives its lines, then blocks (a pipe whose writer went
// quiet) until the test ends; started is closed at the first blocked read.
type blockingReader struct {
	r       io.Reader
	started chan struct{}
	release chan struct{}
}

func (b *blockingReader) Read(p []byte) (int, error) {
	if n, err := b.r.Read(p); n > 0 || !errors.Is(err, io.EOF) {
		return n, err
	}
	close(b.started)
	<-b.release
	return 0, io.EOF
}

// TestImportCancelledWhileBlocked: an import reading a stream that blocks
// (standard input, a FIFO whose writer went quiet) ends when its context
// is cancelled, having stored whole batches only; importing the same lines
// again stores each line once.
func TestImportCancelledWhileBlocked(t *testing.T) {
	db := openDB(t)
	var b strings.Builder
	const n = BatchLines + 5000
	for i := range n {
		b.WriteString(goodLine(fmt.Sprintf("C%d", i), "", ts1) + "\n")
	}
	r := &blockingReader{r: strings.NewReader(b.String()), started: make(chan struct{}), release: make(chan struct{})}
	defer close(r.release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-r.started
		cancel()
	}()
	sum, err := Import(ctx, db, "-", r, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Import = %+v, %v; want it cancelled", sum, err)
	}
	stored := countRows(t, db, `SELECT count(*) FROM calls`)
	if stored%BatchLines != 0 || stored != sum.Imported {
		t.Errorf("cancelled: %d calls stored, summary %+v; want whole batches only", stored, sum)
	}
	sum, err = Import(context.Background(), db, "-", strings.NewReader(b.String()), Options{})
	if err != nil || sum.Imported != n-stored || sum.Duplicates != stored {
		t.Errorf("the same lines again = %+v, %v; want %d new", sum, err, n-stored)
	}
	if got := countRows(t, db, `SELECT count(*) FROM calls`); got != n {
		t.Errorf("%d calls after the resumed import, want %d", got, n)
	}
}

// TestImportLinesBudget: an endless stream of good lines (`yes LINE`) ends
// at the budget of lines of a file, naming the line; the lines before are
// stored.
func TestImportLinesBudget(t *testing.T) {
	db := openDB(t)
	sum, err := Import(context.Background(), db, "-", &endlessLines{}, Options{Limits: Limits{Lines: 500}})
	budgetError(t, err, "-", 501, "more than 500 lines: more than a call-log file may hold, split it")
	if n := countRows(t, db, `SELECT count(*) FROM calls`); n != 500 || sum.Imported != 500 {
		t.Errorf("%d calls stored, summary %+v; want the 500 lines before", n, sum)
	}
}

// TestShowFileNowAFIFO: a call-log file replaced by a FIFO (whose open
// would wait for a writer) no longer holds its lines: calls show says so
// at once.
func TestShowFileNowAFIFO(t *testing.T) {
	db := openDB(t)
	p := writeFile(t, "calls.jsonl", lines(goodLine("F1", "OF1", ts1)))
	if _, err := ImportFiles(context.Background(), db, []string{p}, Options{}); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Show(context.Background(), db, "F1", nil); !errors.Is(err, ErrLineChanged) {
		t.Errorf("Show of a line whose file is now a FIFO = %v, want ErrLineChanged", err)
	}
}
