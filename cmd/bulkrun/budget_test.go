package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

// TestCallbackDecodeBudgets: a line longer than 16 MiB (/dev/zero has no
// line break) stops the decoding, naming the line, exit 1; a file larger
// than callback decode reads is refused before it is read, exit 2.
func TestCallbackDecodeBudgets(t *testing.T) {
	code, _, stderr := runCLIEnv(t, []string{keyEnv + "=" + string(cbKey)}, "callback", "decode", "/dev/zero")
	if code != cli.ExitFailure || stderr != "error: /dev/zero: line 1: longer than 16 MiB\n" {
		t.Errorf("callback decode /dev/zero: exit %d, stderr %q", code, stderr)
	}
	huge := filepath.Join(t.TempDir(), "values.txt")
	os.WriteFile(huge, nil, 0o600)
	if err := os.Truncate(huge, maxCallbackInput+1); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLIEnv(t, []string{keyEnv + "=" + string(cbKey)}, "callback", "decode", huge)
	if want := "error: " + huge + ": 1.0 GiB: more than the 1 GiB callback decode reads"; code != cli.ExitUsage || !strings.HasPrefix(stderr, want) {
		t.Errorf("callback decode of a file over 1 GiB: exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
}

// TestRunRefusesInputThatIsNotAFile: bulkrun run --in a FIFO (whose open
// waits for a writer) or a device is refused at once, exit 2, nothing sent.
func TestRunRefusesInputThatIsNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pans.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{fifo, "/dev/zero"} {
		code, _, stderr := runCLIEnv(t, nil, "run", "--op", "verifyPanPlusV2", "--in", in, "--set", "consent=Y")
		if code != cli.ExitUsage || !strings.Contains(stderr, "not a regular file") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("run --in %s: exit %d, stderr %q; want 2 and one line", in, code, stderr)
		}
	}
}
