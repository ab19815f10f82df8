package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
)

// The tests of this file try every command as the new user did:
// with a misspelt path, --log-format json, -h and a lower-case name.

// TestMissingDatabaseIsAnError: status (of every run, or of one) and the
// commands that work on a stored run (resume, recheck, settle) refuse a
// --db that names no file in one line naming it, exit 2, and create
// nothing: no database, no sandbox.
func TestMissingDatabaseIsAnError(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	for _, args := range [][]string{{"status"}, {"status", "7KQ2M"}, {"resume", "7KQ2M"}, {"recheck", "7KQ2M"}, {"settle", "7KQ2M"},
		{"resume", "7KQ2M", "--sandbox"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			typo := filepath.Join(dir, "typo.db")
			code, _, stderr := runCLI(t, srv, append(args, "--db", typo)...)
			if code != cli.ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "no database "+typo) {
				t.Errorf("bulkrun %q --db typo.db: exit %d, stderr %q; want %d and one line naming %s", args, code, stderr, cli.ExitUsage, typo)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("bulkrun %q --db typo.db left %v behind", args, entries)
			}
		})
	}
}
