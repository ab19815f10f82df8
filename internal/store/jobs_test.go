package store

import (
	"context"
	"testing"
	"time"
)

// TestJobLeases: a run takes the lease; another holder asks held and is
// skipped, or takes it over (closing the run left running as abandoned);
// the end of a run releases the lease.
func TestJobLeases(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
		never := func(string, string, time.Time) string { t.Fatal("held asked with no lease held"); return "" }
		id1, heldBy, err := db.BeginJobRun(ctx, "nightly", "manual", "a", t0, time.Minute, never)
		if err != nil || heldBy != "" || id1 == 0 {
			t.Fatalf("BeginJobRun = %d, %q, %v", id1, heldBy, err)
		}
		var gotHolder string
		var gotExpires time.Time
		skip := func(holder, _ string, expires time.Time) string {
			gotHolder, gotExpires = holder, expires
			return "held by " + holder
		}
		id2, heldBy, err := db.BeginJobRun(ctx, "nightly", "schedule", "b", t0, time.Minute, skip)
		if err != nil || heldBy != "held by a" || gotHolder != "a" || !gotExpires.Equal(t0.Add(time.Minute)) {
			t.Fatalf("second BeginJobRun = %d, %q, %v (held asked about %s until %s)", id2, heldBy, err, gotHolder, gotExpires)
		}
		if ok, err := db.RenewLease(ctx, "nightly", "b", t0.Add(time.Hour)); err != nil || ok {
			t.Errorf("RenewLease by a non-holder = %v, %v; want false", ok, err)
		}
		take := func(string, string, time.Time) string { return "" }
		id3, heldBy, err := db.BeginJobRun(ctx, "nightly", "schedule", "b", t0, time.Minute, take)
		if err != nil || heldBy != "" {
			t.Fatalf("take-over BeginJobRun = %d, %q, %v", id3, heldBy, err)
		}
		if ok, err := db.RenewLease(ctx, "nightly", "b", t0.Add(time.Hour)); err != nil || !ok {
			t.Errorf("RenewLease by the holder = %v, %v; want true", ok, err)
		}
		if err := db.FinishJobRun(ctx, id3, "nightly", "b", t0.Add(2*time.Minute), "ok", "3 things", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SkipJobRun(ctx, "other", "manual", t0.Add(3*time.Minute), "busy"); err != nil {
			t.Fatal(err)
		}
		var leases int
		if err := db.QueryRow(`SELECT count(*) FROM leases`).Scan(&leases); err != nil || leases != 0 {
			t.Errorf("%d leases left, %v", leases, err)
		}
		var got []string
		err = db.JobRuns(ctx, "nightly", 0, func(id int64, job, trigger string, started, finished time.Time, outcome, summary, errText string) error {
			got = append(got, outcome+":"+summary+":"+errText[:min(len(errText), 9)])
			if finished.IsZero() {
				t.Errorf("run %d has no end", id)
			}
			return nil
		})
		want := []string{"ok:3 things:", "skipped:held by a:", "failed::abandoned"}
		if err != nil || len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("JobRuns = %q, %v; want %q", got, err, want)
		}
	})
}
