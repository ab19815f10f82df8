package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestParseHelpAndMistakes(t *testing.T) {
	var stderr bytes.Buffer
	fs := newFlagSet("demo", "demo [flags]", "  demo --x 1", &stderr)
	fs.Int("x", 0, "a number")
	if err := parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
	if got := strings.Count(stderr.String(), "Usage:"); got != 1 || !strings.Contains(stderr.String(), "demo --x 1") {
		t.Fatalf("-h printed %q, want the usage once with its examples", stderr.String())
	}
	err := parse(fs, []string{"--y"})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "demo -h") {
		t.Fatalf("Parse(--y) = %v, want a UsageError pointing at demo -h", err)
	}
}
