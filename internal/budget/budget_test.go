package budget

import (
	"errors"
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
