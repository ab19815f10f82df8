package bulk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/svcrecon/svcrecon/internal/budget"
)

// refusedInput checks that err is one line naming file (and line, when
// not 0) with reason.
func refusedInput(t *testing.T, err error, file string, line int, reason string) {
	t.Helper()
	var be *budget.Error
	if !errors.As(err, &be) || be.Input != file || be.Line != line || !strings.Contains(err.Error(), reason) ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v: want one line naming %s:%d and %q", err, file, line, reason)
	}
}

// TestReadTableHugeSparseFile: a 2 GiB sparse CSV (it took 10 GB of memory
// when read whole) is refused by its size before it is read.
func TestReadTableHugeSparseFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.csv")
	if err := os.WriteFile(p, []byte("pan,consent\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 2<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadTable(p)
	runtime.ReadMemStats(&after)
	refusedInput(t, err, p, 0, "2 GiB: more than the 64 MiB a bulk input file may hold (split it")
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing a 2 GiB file allocated %s", budget.Size(int64(alloc)))
	}
}

// TestReadTableNotAFile: a FIFO (whose open would block until a writer
// comes) and /dev/zero (which never ends) are refused without being
// opened: a run reads its input again on every resume.
func TestReadTableNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "rows.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadTable(fifo)
	refusedInput(t, err, fifo, 0, "not a regular file (a FIFO)")
	_, err = ReadTable("/dev/zero")
	refusedInput(t, err, "/dev/zero", 0, "not a regular file (a character device)")
}

// TestReadTableLongLineAndRows: a line longer than MaxInputLine, and a
// row past MaxInputRows, are refused naming the line.
func TestReadTableLongLineAndRows(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.csv")
	os.WriteFile(long, []byte("pan,note\nABCDE1234F,a\nABCDE1234F,"+strings.Repeat("x", MaxInputLine)+"\n"), 0o600)
	_, err := ReadTable(long)
	refusedInput(t, err, long, 3, "line longer than 1 MiB")

	var b strings.Builder
	b.WriteString("pan,consent\n")
	for i := range MaxInputRows + 1 {
		fmt.Fprintf(&b, "ABCDE%04dF,Y\n", i%10000)
	}
	many := filepath.Join(dir, "many.csv")
	os.WriteFile(many, []byte(b.String()), 0o600)
	_, err = ReadTable(many)
	refusedInput(t, err, many, MaxInputRows+2, fmt.Sprintf("more than %d rows", MaxInputRows))
	if _, err := ParseTable("ok.csv", []byte(b.String()[:strings.LastIndex(b.String()[:b.Len()-1], "\n")+1])); err != nil {
		t.Errorf("a file of %d rows: %v", MaxInputRows, err)
	}
}
