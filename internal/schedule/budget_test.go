package schedule

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadBudgets: a schedules file that is a FIFO (its open would wait
// for a writer), a device, larger than 1 MiB (a sparse 2 GiB file) or with
// a line longer than 64 KiB is refused as a *ParseError naming it (exit 2
// in reconcile), before it is read.
func TestLoadBudgets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.yaml")
	os.WriteFile(huge, []byte("jobs:\n"), 0o600)
	if err := os.Truncate(huge, 2<<30); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "long.yaml")
	os.WriteFile(long, []byte("jobs:\n  nightly:\n    command: run\n    cron: \"@daily\"\n    args: [\""+strings.Repeat("x", 70<<10)+"\"]\n"), 0o600)
	for path, want := range map[string]string{
		fifo:        fifo + ": not a regular file (a FIFO): a schedules file must be a file",
		"/dev/zero": "/dev/zero: not a regular file (a character device)",
		huge:        huge + ": 2 GiB: more than the 1 MiB a schedules file may hold",
		long:        long + ":5: line longer than 64 KiB",
	} {
		_, err := Load(path, []string{"run"})
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want a *ParseError %q", path, err, want)
		}
	}
}
