package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckArgs: the flags are parsed and nothing after the parse runs; a
// flag mistake is the usage error the command would give.
func TestCheckArgs(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := NewFlagSet("demo", "demo [--n N]", "", stderr)
		fs.Int("n", 0, "a number")
		if err := Parse(fs, args); err != nil {
			return err
		}
		return os.WriteFile(marker, nil, 0o600)
	}
	if err := CheckArgs(cmd, []string{"--n", "3"}); err != nil {
		t.Errorf("CheckArgs(--n 3) = %v, want nil", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran past its flags: %v", err)
	}
	var ue *UsageError
	if err := CheckArgs(cmd, []string{"--m", "3"}); !errors.As(err, &ue) {
		t.Errorf("CheckArgs(--m 3) = %v, want a usage error", err)
	}
	if err := CheckArgs(cmd, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("CheckArgs(-h) = %v, want flag.ErrHelp", err)
	}
	// Run for real, the same command does its work.
	if err := cmd(context.Background(), []string{"--n", "3"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
}
