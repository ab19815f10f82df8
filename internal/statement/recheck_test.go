package statement

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// TestSyncProbeFindsLatePostings: records posted into a held day after it
// was walked are found by a plain second sync: the day's probe sees
// meta.totalRecords grown and walks it again; the other held days cost one
// probe each and no page.
func TestSyncProbeFindsLatePostings(t *testing.T) {
	f, cl := newFake(t)
	f.fill(20)
	o := baseOptions(t, cl)
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	for i := 20; i < 23; i++ {
		f.records[recon.Statement]["2026-11-02"] = append(f.records[recon.Statement]["2026-11-02"], fakeRecord(recon.Statement, "2026-11-02", i))
	}
	f.mu.Unlock()
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := countRecords(t, sqlDB(o.DB), recon.Statement), f.count(recon.Statement); got != want {
		t.Errorf("statement records = %d, want %d", got, want)
	}
	if sum.Probed != 10 || sum.Unchanged != 9 || sum.Rewalked != 1 || sum.Late != 3 || sum.New != 3 || sum.Pages != 3 {
		t.Errorf("second sync = %+v; want 10 probed, 9 unchanged, 1 walked again (3 pages) finding 3 late records", sum)
	}
	var probed, rewalked, late int
	if err := sqlDB(o.DB).QueryRow(`SELECT days_probed, days_rewalked, records_late FROM sync_runs WHERE id = ?`, sum.RunID).
		Scan(&probed, &rewalked, &late); err != nil {
		t.Fatal(err)
	}
	if probed != 10 || rewalked != 1 || late != 3 {
		t.Errorf("sync_runs: %d probed, %d walked again, %d late; want 10, 1, 3", probed, rewalked, late)
	}
	if line := sum.Line(); !strings.Contains(line, "held days: 10 probed (9 unchanged), 1 walked again, 3 records found late") {
		t.Errorf("Line() = %q, want the held days counted", line)
	}
}

// TestSyncRecheckDaysWalkedInFull: the last RecheckDays held days are
// walked again whatever their count, so a late field change (a reversal
// mark) is seen there; an older day with the same count is only probed,
// and only Refresh sees a change there.
func TestSyncRecheckDaysWalkedInFull(t *testing.T) {
	f, cl := newFake(t)
	f.fill(12)
	o := baseOptions(t, cl)
	o.Kinds = []recon.Kind{recon.Statement}
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.records[recon.Statement]["2026-11-05"][3]["reversalSvcOrderId"] = "REV1" // in the last 2 days
	f.records[recon.Statement]["2026-11-01"][3]["reversalSvcOrderId"] = "REV2" // older
	f.mu.Unlock()
	o.RecheckDays = 2
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rewalked != 2 || sum.Probed != 3 || sum.Unchanged != 3 || sum.Updated != 1 || sum.Late != 0 {
		t.Errorf("recheck sync = %+v; want the last 2 days walked again (1 record updated), 3 probed unchanged", sum)
	}
	reversed := func() []string {
		rows, err := sqlDB(o.DB).Query(`SELECT reversal_svc_order_id FROM records WHERE reversal_svc_order_id <> '' ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	if got := reversed(); !slices.Equal(got, []string{"REV1"}) {
		t.Errorf("reversal marks stored = %v, want [REV1] (REV2's day was only probed)", got)
	}
	o.Refresh = true
	if sum, err = Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := reversed(); !slices.Equal(got, []string{"REV1", "REV2"}) || sum.Probed != 0 || sum.Rewalked != 5 {
		t.Errorf("refresh: reversal marks %v, %+v; want both marks, every held day walked, none probed", got, sum)
	}
}

// TestSyncProbeFailureIsAProblem: a probe the service does not answer
// leaves the day's records and checkpoint as they were and makes the sync
// incomplete, naming the day.
func TestSyncProbeFailureIsAProblem(t *testing.T) {
	f, cl := newFake(t)
	f.fill(8)
	o := baseOptions(t, cl)
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.notJSON["orders 2026-11-04 1"] = true
	f.mu.Unlock()
	sum, err := Sync(context.Background(), o)
	if !errors.Is(err, ErrIncomplete) || len(sum.Problems) != 1 {
		t.Fatalf("Sync = %v, %+v; want one problem", err, sum.Problems)
	}
	if p := sum.Problems[0]; p.Kind != recon.Orders || p.Day != "2026-11-04" || !strings.Contains(p.Err, "probe") {
		t.Errorf("problem = %+v, want the orders probe of 2026-11-04", p)
	}
	if got := windowStates(t, sqlDB(o.DB))["orders 2026-11-04"]; got != StateDone {
		t.Errorf("window state after a failed probe = %q, want done (its records are held)", got)
	}
	if got := countRecords(t, sqlDB(o.DB), recon.Orders); got != 5*8 {
		t.Errorf("orders records = %d, want %d", got, 5*8)
	}
}

// TestSandboxDriftFoundBySecondSync: the sandbox with page drift posts
// records into a day after its first page was served, so the first walk
// of a one-page day misses them and says it is complete. A second sync
// without Refresh finds every record: by walking the last days again, and
// by probing the older ones.
func TestSandboxDriftFoundBySecondSync(t *testing.T) {
	for _, recheck := range []int{0, -1} {
		srv, cl := startSandbox(t, sandbox.Options{Days: 10, Faults: sandbox.Faults{PageDrift: true}})
		o := sandboxOptions(t, srv, cl)
		o.PageSize, o.RecheckDays = 1000, recheck // every day is one page
		first, err := Sync(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		c := srv.Counts()
		want := c.Statement + c.Orders
		if first.New >= want {
			t.Fatalf("first sync stored %d of %d records: drift hid none", first.New, want)
		}
		second, err := Sync(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		got := countRecords(t, sqlDB(o.DB), recon.Statement) + countRecords(t, sqlDB(o.DB), recon.Orders)
		if got != want || second.Late != want-first.New || second.New != want-first.New {
			t.Errorf("recheck %d: after the second sync %d records stored (%d found late), want %d (%d late)",
				recheck, got, second.Late, want, want-first.New)
		}
		// Every day of the sandbox has a late record: with the default 7
		// recheck days, 7 days are walked again and the 3 older probed (and
		// walked); with none, all 10 are probed and walked.
		probed := map[int]int{0: 2 * 3, -1: 2 * 10}[recheck]
		if second.Probed != probed || second.Unchanged != 0 || second.Rewalked != 2*10 {
			t.Errorf("recheck %d: second sync = %+v; want %d held days probed, all 20 walked again", recheck, second, probed)
		}
		t.Logf("recheck %d: first %s; second %s", recheck, first.Line(), second.Line())
	}
}

// TestSyncProgressTotalUpFront: the progress of a sync counts windows
// (days × kinds), probes included, and knows their number before the first
// request: every line carries that total, and the last is complete.
func TestSyncProgressTotalUpFront(t *testing.T) {
	f, cl := newFake(t)
	f.fill(5)
	o := baseOptions(t, cl)
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	o.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	o.Progress = io.Discard // not a terminal: the bar logs its lines
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var final map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["msg"] == "progress" {
			if m["total"] != float64(10) {
				t.Errorf("progress line %s: want total 10 (5 days × 2 kinds)", line)
			}
			final = m
		}
	}
	if final == nil || final["final"] != true || final["done"] != float64(10) || final["task"] != "sync days" {
		t.Errorf("last progress line = %v, want sync days 10 of 10, final", final)
	}
}
