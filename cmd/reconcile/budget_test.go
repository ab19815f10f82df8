package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/calllog"
)

// TestImportCallsDevZero: reconcile import-calls /dev/zero (it took 6.4 GB
// and never ended) is refused in one line naming the file and line, exit
// 1, without holding what it read; so is a file larger than a call-log
// file may hold, before anything is read, exit 2.
func TestImportCallsDevZero(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zero.db")
	var out, errOut bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := run(context.Background(), []string{"import-calls", "--db", db, "--log-level", "warn", "/dev/zero"}, &out, &errOut)
	runtime.ReadMemStats(&after)
	code := cli.Exit(err, &errOut)
	want := "error: /dev/zero:1: no line break in 256 MiB: not a call log (nothing more of it was read)\n"
	if code != cli.ExitFailure || errOut.String() != want {
		t.Errorf("import-calls /dev/zero: exit %d, stderr %q; want 1 and %q", code, errOut.String(), want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 96<<20 {
		t.Errorf("import-calls /dev/zero allocated %d MiB", alloc>>20)
	}

	huge := filepath.Join(t.TempDir(), "huge.jsonl")
	os.WriteFile(huge, nil, 0o600)
	if err := os.Truncate(huge, calllog.MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	code = cli.Exit(run(context.Background(), []string{"import-calls", "--db", db, "--log-level", "warn", huge}, &out, &errOut), &errOut)
	if want := "error: " + huge + ": 4.0 GiB: more than the 4 GiB a call-log file may hold"; code != cli.ExitUsage ||
		!strings.HasPrefix(errOut.String(), want) || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("import-calls of a file over 16 GiB: exit %d, stderr %q; want 2 and %q", code, errOut.String(), want)
	}
}
