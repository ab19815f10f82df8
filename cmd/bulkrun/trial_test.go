package main

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
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

// TestJSONLogsOnEveryPath: with --log-format json every line on stderr is
// one JSON object with an IST time: the notice of columns never sent, the
// problems of bad rows, a run's log, status, a callback value that does not
// decode, and the errors.
func TestJSONLogsOnEveryPath(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	in := writeCSV(t, filepath.Join(dir, "pans.csv"), "pan,latitude,pann\r\n", 3, func(i int) string {
		return fmt.Sprintf("ABCDE%04dF,12.9,x\r\n", i)
	})
	badRows := writeCSV(t, filepath.Join(dir, "bad.csv"), "pan,latitude\r\n", 2, func(i int) string { return "\xff,1\r\n" })
	values := filepath.Join(dir, "values.txt")
	os.WriteFile(values, []byte(url.QueryEscape(encryptCB(t, []byte(cbPayload), cbKey, cbIV))+"\n%zz\n"), 0o600)
	key := keyEnv + "=" + hex.EncodeToString(cbKey)
	for _, tc := range []struct {
		args []string
		code int
		want string // a message logged
	}{
		{[]string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", db, "--set", "consent=Y", "--set", "longitude=1"}, cli.ExitOK, "notice: "},
		{[]string{"run", "--op", "verifyPanPlusV2", "--in", badRows, "--db", db, "--set", "consent=Y", "--set", "longitude=1"}, cli.ExitUsage, badRows + ":2: pan: "},
		{[]string{"status", "--db", db}, cli.ExitOK, ""},
		{[]string{"status", "nosuch", "--db", db}, cli.ExitUsage, "no such bulk run"},
		{[]string{"ops", "verifypan"}, cli.ExitUsage, "did you mean verifyPanPlusV2?"},
		{[]string{"run", "--op", "verifyPanPlusV2", "--inn", in}, cli.ExitUsage, "did you mean --in?"},
		{[]string{"callback", "decode", values}, cli.ExitFailure, "values.txt: line 2: "},
	} {
		environ := srv.Environ()
		if tc.args[0] == "callback" {
			environ = append(environ, key)
		}
		code, _, stderr := runCLIEnv(t, environ, append(tc.args, "--log-format", "json")...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("bulkrun %q --log-format json: exit %d, want %d and %q logged\n%s", tc.args, code, tc.code, tc.want, stderr)
		}
		for _, r := range clitest.JSONLines(t, stderr) {
			if at, _ := r["time"].(string); !strings.HasSuffix(at, "+05:30") {
				t.Errorf("bulkrun %q: log time %q, want IST with its offset", tc.args, at)
			}
		}
	}
}
