package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestVersion: --version prints one "svcrecon …" line and exits 0, at the
// top level and on a subcommand.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"run", "--version"}, {"status", "--version"}} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, &out, &errb); err != nil && !strings.Contains(err.Error(), "help requested") {
			t.Errorf("%v: %v", args, err)
		}
		got := strings.TrimSpace(out.String() + errb.String())
		if !strings.HasPrefix(got, "svcrecon ") || strings.Count(got, "\n") != 0 {
			t.Errorf("%v printed %q, want one svcrecon line", args, got)
		}
	}
}
