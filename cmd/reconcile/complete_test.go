package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
)

// TestIncompleteBeforeAVerdict runs the last day of a sandbox's history:
// its call log has no call after the day's end, so the verdict (printed,
// and the Summary's first cell) is Incomplete and names the day and its
// call log; alone that is exit 0, 3 under --fail-on-breaks. Declared
// complete (import-calls --complete-through), the same day is judged on
// its findings, until its collect-order walk is found failed; a check of
// a day never walked names its statement walk.
func TestIncompleteBeforeAVerdict(t *testing.T) {
	needSandbox(t)
	end := time.Date(2026, 11, 10, 0, 0, 0, 0, recon.IST)
	srv, err := sandbox.Start(sandbox.Options{Days: 10, End: end, NoDefects: true, Now: func() time.Time { return end.AddDate(0, 0, 2) }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	clitest.Setenv(t, clitest.SandboxEnv(srv))
	old := clock
	clock = func() time.Time { return end.AddDate(0, 0, 1).Add(3 * time.Hour) }
	t.Cleanup(func() { clock = old })
	dir := t.TempDir()
	var log bytes.Buffer
	if err := srv.WriteCallLog(&log); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(dir, "calls.jsonl")
	os.WriteFile(calls, log.Bytes(), 0o600)
	db, out := filepath.Join(dir, "r.db"), filepath.Join(dir, "out")
	cmd := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		args = append([]string{args[0], "--db", db, "--log-level", "error"}, args[1:]...) // flags before import-calls' files
		code := cli.Exit(run(context.Background(), args, &o, &e), &e)
		return code, o.String() + e.String()
	}
	day := "2026-11-10"
	code, o := cmd("run", "--date", day, "--calls", calls, "--out", out)
	if code != 0 || !strings.Contains(o, "Verdict: Incomplete: 2026-11-10 call log; nothing else to review") {
		t.Fatalf("the last day without a call after it: exit %d\n%s", code, o)
	}
	summary := readCSV(t, filepath.Join(out, "summary.csv"))
	if summary[0]["value"] != "Incomplete: 2026-11-10 call log; nothing else to review" || !hasRow(summary, map[string]string{"key": "complete", "value": "false"}) {
		t.Errorf("summary.csv: verdict %q, want it Incomplete and complete=false", summary[0]["value"])
	}
	if code, o = cmd("check", "--from", day, "--to", day, "--fail-on-breaks"); code != cli.ExitFindings || !strings.Contains(o, "Incomplete") {
		t.Errorf("check --fail-on-breaks of an incomplete day: exit %d, want 3\n%s", code, o)
	}
	if code, o = cmd("import-calls", "--complete-through", day, calls); code != 0 {
		t.Fatalf("import-calls --complete-through: exit %d\n%s", code, o)
	}
	if code, o = cmd("check", "--from", day, "--to", day, "--fail-on-breaks"); code != 0 || !strings.Contains(o, "Verdict: Reconciled") {
		t.Errorf("the day declared complete: exit %d, want 0 and Reconciled\n%s", code, o)
	}
	// A collect-order walk left unfinished (its window failed) makes the
	// day incomplete: its unsettled orders would be read from it.
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(`UPDATE sync_windows SET state = 'failed' WHERE kind = ? AND day = ?`, recon.Orders, day); err != nil {
		t.Fatal(err)
	}
	sdb.Close()
	if code, o = cmd("check", "--from", day, "--to", day); code != 0 || !strings.Contains(o, "Verdict: Incomplete: 2026-11-10 collect-order walk") {
		t.Errorf("a day whose collect-order walk failed: exit %d\n%s", code, o)
	}
	if code, o = cmd("check", "--from", "2026-11-11", "--to", "2026-11-11"); code != 0 ||
		!strings.Contains(o, "Incomplete: 2026-11-11 statement walk, 2026-11-11 call log") {
		t.Errorf("a day never walked: exit %d\n%s", code, o)
	}
}
