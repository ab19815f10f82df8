package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestJobLeases: a run takes the lease; another holder asks held and is
// skipped, or takes it over (closing the run left running as abandoned);
// the end of a run releases the lease; each run records its host.
func TestJobLeases(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
		start := func(trigger, holder string) recon.JobStart {
			return recon.JobStart{Job: "nightly", Trigger: trigger, Holder: holder, Host: "host-" + holder, Now: t0, TTL: time.Minute}
		}
		never := func(string, string, time.Time) string { t.Fatal("held asked with no lease held"); return "" }
		b1, err := db.BeginJobRun(ctx, start("manual", "a"), never)
		if err != nil || b1.HeldBy != "" || b1.ID == 0 {
			t.Fatalf("BeginJobRun = %+v, %v", b1, err)
		}
		var gotHolder string
		var gotExpires time.Time
		skip := func(holder, _ string, expires time.Time) string {
			gotHolder, gotExpires = holder, expires
			return "held by " + holder
		}
		b2, err := db.BeginJobRun(ctx, start("schedule", "b"), skip)
		if err != nil || b2.HeldBy != "held by a" || gotHolder != "a" || !gotExpires.Equal(t0.Add(time.Minute)) {
			t.Fatalf("second BeginJobRun = %+v, %v (held asked about %s until %s)", b2, err, gotHolder, gotExpires)
		}
		if ok, err := db.RenewLease(ctx, "nightly", "b", t0.Add(time.Hour)); err != nil || ok {
			t.Errorf("RenewLease by a non-holder = %v, %v; want false", ok, err)
		}
		take := func(string, string, time.Time) string { return "" }
		b3, err := db.BeginJobRun(ctx, start("schedule", "b"), take)
		if err != nil || b3.HeldBy != "" {
			t.Fatalf("take-over BeginJobRun = %+v, %v", b3, err)
		}
		if ok, err := db.RenewLease(ctx, "nightly", "b", t0.Add(time.Hour)); err != nil || !ok {
			t.Errorf("RenewLease by the holder = %v, %v; want true", ok, err)
		}
		if err := db.FinishJobRun(ctx, b3.ID, "nightly", "b", t0.Add(2*time.Minute), "ok", "3 things", ""); err != nil {
			t.Fatal(err)
		}
		other := start("manual", "c")
		other.Job, other.Now = "other", t0.Add(3*time.Minute)
		if _, err := db.SkipJobRun(ctx, other, "busy"); err != nil {
			t.Fatal(err)
		}
		var leases int
		if err := db.QueryRow(`SELECT count(*) FROM leases`).Scan(&leases); err != nil || leases != 0 {
			t.Errorf("%d leases left, %v", leases, err)
		}
		var got []string
		err = db.JobRuns(ctx, "nightly", 0, func(r recon.JobRun) error {
			got = append(got, r.Outcome+":"+r.Summary+":"+r.Host+":"+r.Error[:min(len(r.Error), 9)])
			if r.Finished.IsZero() {
				t.Errorf("run %d has no end", r.ID)
			}
			return nil
		})
		want := []string{"ok:3 things:host-b:", "skipped:held by a:host-b:", "failed::host-a:abandoned"}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("JobRuns = %q, %v; want %q", got, err, want)
		}
	})
}

// TestJobFireTimes: schedulers on several hosts firing one job at the same
// scheduled time: the first to take the fire time records the run (or its
// skip); the others record nothing and are told who took it; the next fire
// time is taken afresh.
func TestJobFireTimes(t *testing.T) {
	eachBackendURL(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
		openURL(t, dsn)
		take := func(string, string, time.Time) string { return "" }
		for _, fire := range []time.Time{t0, t0.Add(24 * time.Hour)} {
			var mu sync.Mutex
			ran, taken := 0, 0
			var wg sync.WaitGroup
			for i := range 4 {
				db := openURL(t, dsn)
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := recon.JobStart{Job: "nightly", Trigger: "schedule", Holder: fmt.Sprintf("h%d:1:x", i), Host: fmt.Sprintf("h%d", i),
						Now: fire.Add(time.Duration(i) * time.Second), TTL: time.Minute, FireAt: fire}
					b, err := db.BeginJobRun(ctx, s, take)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					switch {
					case b.FireTakenBy != "" && b.ID == 0:
						taken++
					case b.ID != 0 && b.HeldBy == "":
						ran++
						if err := db.FinishJobRun(ctx, b.ID, "nightly", s.Holder, s.Now, "ok", "", ""); err != nil {
							t.Error(err)
						}
					default:
						t.Errorf("BeginJobRun(%s) = %+v", s.Holder, b)
					}
				}()
			}
			wg.Wait()
			if ran != 1 || taken != 3 {
				t.Errorf("fire %s: %d ran, %d told taken; want 1 and 3", fire, ran, taken)
			}
		}
		db := openURL(t, dsn)
		var fires []string
		db.JobRuns(ctx, "", 0, func(r recon.JobRun) error {
			fires = append(fires, r.FireAt.Format(time.RFC3339)+" "+r.Outcome)
			return nil
		})
		if fmt.Sprint(fires) != "[2026-11-23T21:00:00Z ok 2026-11-22T21:00:00Z ok]" {
			t.Errorf("job runs = %v, want one ok run per fire time", fires)
		}
		// A skipped run takes its fire time too.
		s := recon.JobStart{Job: "nightly", Trigger: "schedule", Holder: "h9:1:x", Host: "h9", Now: t0, TTL: time.Minute, FireAt: t0}
		if b, err := db.SkipJobRun(ctx, s, "busy"); err != nil || b.ID != 0 || b.FireTakenBy == "" {
			t.Errorf("SkipJobRun of a taken fire time = %+v, %v; want nothing recorded", b, err)
		}
	})
}
