package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// fakeTime replaces the commands' clock with one at today (IST, the fake
// dates transactions by the real day) 10:00 that only the pause between
// settle rounds moves, and returns the pauses made.
func fakeTime(tb testing.TB) *[]time.Duration {
	tb.Helper()
	y, m, d := time.Now().In(recon.IST).Date()
	now := time.Date(y, m, d, 10, 0, 0, 0, recon.IST)
	var pauses []time.Duration
	oldClock, oldPause, oldAfter := clock, pause, leaseAfter
	clock = func() time.Time { return now }
	leaseAfter = func(time.Duration) <-chan time.Time { return nil } // no heartbeat reads the clock
	pause = func(_ context.Context, d time.Duration) error {
		pauses = append(pauses, d)
		now = now.Add(d)
		return nil
	}
	tb.Cleanup(func() { clock, pause, leaseAfter = oldClock, oldPause, oldAfter })
	return &pauses
}

// bulkrun settle repeats recheck and resume until nothing is pending: rows
// answered TUP are too young for the first recheck, and found successful
// after one pause of --wait (on the injected clock: nothing waits).
func TestSettleCommand(t *testing.T) {
	pauses := fakeTime(t)
	srv := bulktest.Start(bulktest.Options{Pending: 0.3})
	defer srv.Close()
	dir := t.TempDir()
	in := writeInput(t, dir, 30)
	dbPath := filepath.Join(dir, "bulk.db")
	code, stdout, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath,
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error")
	if code != cli.ExitFindings || !strings.Contains(stderr, "bulkrun settle") {
		t.Fatalf("run with TUP answers: exit %d, want %d pointing at settle\n%s%s", code, cli.ExitFindings, stdout, stderr)
	}
	id := runID(t, dbPath)
	code, stdout, stderr = runCLI(t, srv, "settle", id, "--db", dbPath, "--wait", "5m", "--log-level", "error")
	if code != 0 || !strings.Contains(stdout, "settled in 2 round(s)") || len(*pauses) != 1 || (*pauses)[0] != 5*time.Minute {
		t.Fatalf("settle: exit %d, pauses %v; want settled in 2 rounds after one pause of 5m\n%s%s", code, *pauses, stdout, stderr)
	}
	if !strings.Contains(stdout, "round 1: 30 rows: ") || !strings.Contains(stdout, "round 2: 30 rows: 30 success, 0 failed, 0 pending, 0 unsent") {
		t.Errorf("settle does not report its rounds with the counts:\n%s", stdout)
	}
	for i, r := range results(t, in+".results.csv") {
		if r["outcome"] != "success" {
			t.Errorf("result row %d: %s, want success", i, r["outcome"])
		}
	}
	if srv.Requests() != 30 {
		t.Errorf("%d requests, want 30 (nothing re-sent)", srv.Requests())
	}
	// Still TUP at the service: pending after the rounds, exit 3.
	srv2 := bulktest.Start(bulktest.Options{Pending: 1, StillPending: 1})
	defer srv2.Close()
	in2 := filepath.Join(t.TempDir(), "pans.csv")
	writeInput(t, filepath.Dir(in2), 3)
	runCLI(t, srv2, "run", "--op", "verifyPanPlusV2", "--in", in2, "--db", dbPath, "--set", "longitude=1", "--set", "consent=Y", "--log-level", "error")
	_, list, _ := runCLI(t, srv2, "status", "--db", dbPath)
	id2 := strings.Fields(strings.Split(list, "\n")[1])[0]
	code, stdout, stderr = runCLI(t, srv2, "settle", id2, "--db", dbPath, "--rounds", "2", "--log-level", "error")
	if code != cli.ExitFindings || !strings.Contains(stderr, "3 rows still pending after 2 round(s)") {
		t.Errorf("settle of rows still TUP: exit %d, want %d\n%s%s", code, cli.ExitFindings, stdout, stderr)
	}
}
