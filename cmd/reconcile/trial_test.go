package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

// The tests of this file try every command as the new user did:
// with a misspelt path, --log-format json, -h and a lower-case name.

// readers are the commands that only read the database, with the rest of
// a valid command line.
var readers = map[string][]string{
	"check":      {"check", "--from", "2026-11-01", "--to", "2026-11-02"},
	"export":     {"export", "--from", "2026-11-01", "--to", "2026-11-02", "--out", "reports"},
	"history":    {"history"},
	"calls show": {"calls", "show", "17"},
}

// TestReadersRefuseAMissingDatabase: a --db that names no file is one line
// naming it, exit 2, and nothing is created (check used to create an empty
// database and report a quiet night).
func TestReadersRefuseAMissingDatabase(t *testing.T) {
	for name, args := range readers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			typo := filepath.Join(dir, "typo.db")
			var out, errOut bytes.Buffer
			err := run(context.Background(), append(args, "--db", typo), &out, &errOut)
			if code := cli.Exit(err, &errOut); code != cli.ExitUsage {
				t.Errorf("%s --db typo.db: exit %d (%v), want %d", name, code, err, cli.ExitUsage)
			}
			if got := errOut.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "no database "+typo) {
				t.Errorf("%s --db typo.db: stderr %q, want one line naming %s", name, got, typo)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("%s --db typo.db left %v behind", name, entries)
			}
		})
	}
}
