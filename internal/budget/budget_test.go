package budget

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{100: "100 bytes", 64 << 10: "64 KiB", 16 << 20: "16 MiB", 2 << 30: "2 GiB",
		3 << 29: "1.5 GiB", 1<<20 + 1: "1.0 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLongLine(t *testing.T) {
	for _, c := range []struct {
		data string
		want int
	}{
		{"", 0}, {"abc", 0}, {"abcd", 0}, {"abcde", 1}, {"ab\nabcd\n", 0}, {"ab\nabcde\nx", 2},
		{"ab\n\n\nabcdef", 4}, {"abcd\n", 0},
	} {
		if got := LongLine([]byte(c.data), 4); got != c.want {
			t.Errorf("LongLine(%q, 4) = %d, want %d", c.data, got, c.want)
		}
	}
}

// TestRegular: a FIFO, a device, a directory and a file over the budget are
// refused by their metadata alone, naming the file (a FIFO would block its
// open; /dev/zero never ends); a sparse file counts its whole size.
func TestRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.csv")
	if err := os.WriteFile(sparse, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 2<<30); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.csv")
	os.WriteFile(small, []byte("a,b\n"), 0o600)
	for path, want := range map[string]string{
		fifo:        fifo + ": not a regular file (a FIFO): an input file must be a file",
		"/dev/zero": "/dev/zero: not a regular file (a character device)",
		dir:         dir + ": a directory, not an input file",
		sparse:      sparse + ": 2 GiB: more than the 1 MiB an input file may hold",
	} {
		_, err := Regular(path, 1<<20, "an input file")
		var be *Error
		if !errors.As(err, &be) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Regular(%s) = %v, want %q", path, err, want)
		}
		if _, err := ReadFile(path, 1<<20, "an input file"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ReadFile(%s) = %v, want %q", path, err, want)
		}
	}
	if data, err := ReadFile(small, 4, "an input file"); err != nil || string(data) != "a,b\n" {
		t.Errorf("ReadFile(small, 4) = %q, %v", data, err)
	}
	if _, err := ReadFile(small, 3, "an input file"); err == nil {
		t.Error("ReadFile of 4 bytes with a budget of 3: no error")
	}
}

// blocked is a read that never returns until released: standard input
// with nothing typed, a FIFO whose writer is quiet.
type blocked struct{ release chan struct{} }

func (b blocked) Read(p []byte) (int, error) {
	<-b.release
	return 0, io.EOF
}

func TestReaderEndsWithContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, io.MultiReader(strings.NewReader("first"), blocked{release}))
	buf := make([]byte, 64)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "first" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	done := make(chan error)
	go func() {
		_, err := r.Read(buf)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Read blocked then cancelled = %v, want context.Canceled", err)
	}
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("Read after the cancel = %v, want context.Canceled", err)
	}
}

// TestOpenFIFOEndsWithContext: opening a FIFO no one writes to blocks in
// the kernel; Open gives up when the context ends.
func TestOpenFIFOEndsWithContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := Open(ctx, fifo)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), fifo) {
		t.Errorf("Open(fifo) cancelled = %v, want context.Canceled naming the FIFO", err)
	}
	// Its open is left waiting for a writer; one comes, and the file it
	// opened is closed.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}
