package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// dbNow reads the database's clock.
func dbNow(t *testing.T, db *DB) time.Time {
	t.Helper()
	var s string
	if err := db.QueryRow(`SELECT ` + db.dialect.now()).Scan(&s); err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(TimeLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// staleAfter2m judges a lease by its heartbeat's age on the database's
// clock, as bulk.Leases does.
func staleAfter2m(l BulkLease) bool { return l.Now.Sub(l.Heartbeat) > 2*time.Minute }

// TestBulkLeaseTimesAreTheDatabases: a lease or a worker written without
// times gets the database's clock for since and heartbeat, a renewal too,
// and every lease read carries the database's time of the read.
func TestBulkLeaseTimesAreTheDatabases(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		before := dbNow(t, db)
		lease := &BulkLease{Holder: "h:1:a", Host: "h", PID: 1}
		if err := db.CreateBulkRun(ctx, BulkRun{ID: "CLOCK", Op: "op", InputSHA256: "s", Settings: "{}", TotalRows: 1,
			State: BulkRunning, CreatedAt: t0}, lease); err != nil {
			t.Fatal(err)
		}
		sharedRun(t, db, "CLKSH", 1)
		if err := db.JoinBulkRun(ctx, BulkLease{RunID: "CLKSH", Holder: "w", Host: "h", PID: 1}); err != nil {
			t.Fatal(err)
		}
		after := dbNow(t, db)
		l, err := db.BulkRunLease(ctx, "CLOCK")
		ws, werr := db.BulkWorkers(ctx, "CLKSH")
		if err != nil || werr != nil || len(ws) != 1 {
			t.Fatal(l, err, ws, werr)
		}
		for _, got := range []BulkLease{*l, ws[0]} {
			if got.Since.Before(before) || got.Heartbeat.After(after) || !got.Since.Equal(got.Heartbeat) || got.Now.Before(after) {
				t.Errorf("lease %+v: want since and heartbeat on the database's clock between %v and %v, read at %v or later",
					got, before, after, after)
			}
		}
		// A renewal without a time is the database's too.
		old := BulkLease{RunID: "CLOCK", Holder: "h:1:a"}
		if _, err := db.Exec(`UPDATE bulk_leases SET heartbeat = ?`, FormatTime(before.Add(-time.Hour))); err != nil {
			t.Fatal(err)
		}
		if ok, err := db.RenewBulkLease(ctx, old.RunID, old.Holder, time.Time{}); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if l, _ := db.BulkRunLease(ctx, "CLOCK"); l.Heartbeat.Before(before) || staleAfter2m(*l) {
			t.Errorf("renewed lease %+v: want a heartbeat of the database's clock, fresh", l)
		}
	})
}

// TestSweepBulkRun: a run whose holder is gone is swept — its lease
// removed, its rows in flight pending, the run interrupted — once; a run
// a live holder has is left alone; of a shared run's workers only the gone
// ones are removed and their rows pended, and the run is interrupted when
// the last one is gone.
func TestSweepBulkRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		old := dbNow(t, db).Add(-10 * time.Minute)
		alone := func(id string, beat time.Time) {
			t.Helper()
			lease := &BulkLease{Holder: id + ":1:a", Host: "elsewhere", PID: 1, Since: beat, Heartbeat: beat}
			if err := db.CreateBulkRun(ctx, BulkRun{ID: id, Op: "op", InputSHA256: "sha-" + id, Settings: "{}", TotalRows: 3,
				State: BulkRunning, CreatedAt: t0}, lease); err != nil {
				t.Fatal(err)
			}
			for line := 2; line <= 4; line++ {
				if _, err := db.ClaimBulkRow(ctx, id, line, fmt.Sprintf("R%d", line), t0); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.FinishBulkRow(ctx, id, BulkRow{Line: 4, State: BulkSuccess, PoolAmount: "1.00"}, t0); err != nil {
				t.Fatal(err)
			}
		}
		alone("DEAD1", old)
		alone("LIVE1", time.Time{})
		s, err := db.SweepBulkRun(ctx, "DEAD1", staleAfter2m, "died")
		if err != nil || len(s.Gone) != 1 || s.Gone[0].Holder != "DEAD1:1:a" || s.Pended != 2 || !s.Interrupted || s.Live {
			t.Fatalf("SweepBulkRun(dead holder) = %+v, %v; want its lease gone, 2 rows pended, interrupted", s, err)
		}
		if r, _ := db.BulkRun(ctx, "DEAD1"); r.State != BulkInterrupted {
			t.Errorf("swept run state %s, want %s", r.State, BulkInterrupted)
		}
		if l, _ := db.BulkRunLease(ctx, "DEAD1"); l != nil {
			t.Errorf("lease of the dead holder left: %+v", l)
		}
		states := map[string]int{}
		db.EachBulkRow(ctx, "DEAD1", func(r BulkRow) error {
			states[r.State+" "+r.Error]++
			return nil
		})
		if states["pending died"] != 2 || states["success "] != 1 {
			t.Errorf("rows after the sweep: %v; want 2 pending (died), 1 success", states)
		}
		if s, err := db.SweepBulkRun(ctx, "DEAD1", staleAfter2m, "died"); err != nil || len(s.Gone)+s.Pended != 0 || s.Interrupted {
			t.Errorf("second sweep = %+v, %v; want nothing to do", s, err)
		}
		if s, err := db.SweepBulkRun(ctx, "LIVE1", staleAfter2m, "died"); err != nil || len(s.Gone)+s.Pended != 0 || s.Interrupted || !s.Live {
			t.Errorf("sweep of a live run = %+v, %v; want nothing done", s, err)
		}

		sharedRun(t, db, "SHSWP", 6)
		x, y := worker("X", "SHSWP"), worker("Y", "SHSWP")
		x.Heartbeat, y.Heartbeat = old, time.Time{}
		for _, w := range []BulkLease{x, y} {
			if c, _, err := db.ClaimBulkRows(ctx, BulkClaim{Worker: w, N: 2, At: t0}); err != nil || len(c) != 2 {
				t.Fatal(c, err)
			}
		}
		s, err = db.SweepBulkRun(ctx, "SHSWP", staleAfter2m, "died")
		if err != nil || len(s.Gone) != 1 || s.Gone[0].Holder != "X" || s.Pended != 2 || s.Interrupted || !s.Live {
			t.Fatalf("SweepBulkRun(one worker gone) = %+v, %v; want X gone, its 2 rows pended, the run still running", s, err)
		}
		if _, err := db.RenewBulkWorker(ctx, "SHSWP", "Y", old); err != nil {
			t.Fatal(err)
		}
		s, err = db.SweepBulkRun(ctx, "SHSWP", staleAfter2m, "died")
		if err != nil || len(s.Gone) != 1 || s.Pended != 2 || !s.Interrupted {
			t.Fatalf("SweepBulkRun(last worker gone) = %+v, %v; want Y gone, 2 rows pended, interrupted", s, err)
		}
	})
}
