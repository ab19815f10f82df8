package bulk

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store"
)

// serviceClock is the fake service's clock (bulktest.Options.Now) in
// tests of a process that died: the calls it made are executed when it
// sent them (its journal's sent_at), though the test makes them now. With
// the service's own clock, a test run just after midnight IST had them
// dated the next day, and the look-up of the day they were sent found
// none of them.
type serviceClock struct{ at atomic.Pointer[time.Time] }

// now is the time set (back), else the time.
func (c *serviceClock) now() time.Time {
	if at := c.at.Load(); at != nil {
		return *at
	}
	return time.Now()
}

// back runs fn with the clock at at.
func (c *serviceClock) back(at time.Time, fn func()) {
	c.at.Store(&at)
	defer c.at.Store(nil)
	fn()
}

// deadHolder leaves fx's run as a process on another host that died
// holding it would: its lease (heartbeat ten minutes old), five rows
// 'sending' sent then — the first two executed at the service (then, by
// clock), the other three lost before they arrived — and the run running.
func deadHolder(t *testing.T, fx *sharedFixture, db *store.DB, clock *serviceClock) time.Time {
	t.Helper()
	ctx := context.Background()
	old := time.Now().Add(-10 * time.Minute)
	gone := store.BulkLease{RunID: fx.run.ID, Holder: "elsewhere:77:dead", Host: "elsewhere", PID: 77, Since: old, Heartbeat: old}
	if ok, _, err := db.AcquireBulkLease(ctx, gone, func(store.BulkLease) bool { return true }); err != nil || !ok {
		t.Fatal(ok, err)
	}
	for i, row := range fx.rows[:5] {
		if _, err := db.ClaimBulkRow(ctx, fx.run.ID, row.Line, row.Ref, old); err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			var err error
			clock.back(old, func() { _, err = fx.client.Do(ctx, fx.run.Op, row.Body) })
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return old
}

// takeOverRunner is the runner of a process that takes a run over: it
// looks up the rows a dead process left before sending.
func takeOverRunner(fx *sharedFixture, db *store.DB, lease *Lease) *Runner {
	return &Runner{DB: db, Client: fx.client, Log: quietLog(), Concurrency: 4, Lease: lease, Secret: bulktest.ClientSecret,
		Recheck: &Rechecker{DB: db, Client: fx.client, Log: quietLog(), MinWait: 2 * time.Minute}}
}

// TestDeadHolderIsSweptAndTakenOver: a run whose holder died on another
// host is swept (by bulkrun status: interrupted, its rows in flight
// pending) or taken over by the next process; either way that process
// looks the dead one's rows up and sends, in the same Execute, those the
// service never executed: the run ends done, every row executed once,
// without settle.
func TestDeadHolderIsSweptAndTakenOver(t *testing.T) {
	for _, swept := range []bool{true, false} {
		name := "taken over by the next process"
		if swept {
			name = "swept by status first"
		}
		t.Run(name, func(t *testing.T) {
			eachJournal(t, func(t *testing.T, dsn string) {
				var clock serviceClock
				fx := newSharedFixture(t, dsn, 20, bulktest.Options{Now: clock.now})
				db := openDSN(t, dsn)
				ctx := context.Background()
				deadHolder(t, fx, db, &clock)
				ls := &Leases{DB: db, Holder: NewHolder(), Log: quietLog()}
				if swept {
					s, err := ls.Sweep(ctx, fx.run.ID)
					if err != nil || len(s.Gone) != 1 || s.Pended != 5 || !s.Interrupted {
						t.Fatalf("Sweep = %+v, %v; want the holder gone, 5 rows pending, interrupted", s, err)
					}
					if r, _ := LoadRun(ctx, db, fx.run.ID); r.State != RunInterrupted {
						t.Errorf("state after the sweep %s, want %s", r.State, RunInterrupted)
					}
				}
				lease, err := ls.Acquire(ctx, fx.run.ID)
				if err != nil || (lease.TookOver != nil) == swept {
					t.Fatalf("Acquire = %+v, %v; want the lease taken over unless swept", lease, err)
				}
				defer lease.Release(ctx)
				sum, err := takeOverRunner(fx, db, lease).Execute(ctx, fx.run, fx.rows)
				if err != nil || sum.TakenOver.Checked != 5 || sum.TakenOver.Success != 2 || sum.TakenOver.NotExecuted != 3 {
					t.Fatalf("Execute = %+v, %v; want the 5 rows looked up: 2 executed, 3 not", sum, err)
				}
				if sum.Success != 20 || sum.Sent != 18 || fx.run.State != RunDone {
					t.Errorf("Execute = %s, %d sent, state %s; want every row success, 18 sent now, done", sum.Counts, sum.Sent, fx.run.State)
				}
				for _, r := range fx.rows {
					if n := fx.srv.CallCount(r.Ref); n != 1 {
						t.Errorf("%s executed %d times, want once", r.Ref, n)
					}
				}
				if !sum.Debit.Equal(fx.srv.Debited()) {
					t.Errorf("journal debits %s, service %s", sum.Debit, fx.srv.Debited())
				}
			})
		})
	}
}

// TestSharedWorkerGoneIsTakenOver: a worker on another host claimed rows
// and died — before the next worker started, or while it worked (its
// heartbeat stops being fresh then); that worker reaps it, looks its rows
// up and sends the ones never executed with the rest: the run ends done in
// one Execute, every row called once.
func TestSharedWorkerGoneIsTakenOver(t *testing.T) {
	for _, during := range []bool{false, true} {
		name := "gone before"
		if during {
			name = "gone while the next worker works"
		}
		t.Run(name, func(t *testing.T) {
			eachJournal(t, func(t *testing.T, dsn string) {
				sharedWorkerGone(t, dsn, during)
			})
		})
	}
}

func sharedWorkerGone(t *testing.T, dsn string, during bool) {
	ctx := context.Background()
	db := openDSN(t, dsn)
	old := time.Now().Add(-time.Hour)
	var once sync.Once
	var armed atomic.Bool
	var clock serviceClock
	fx := newSharedFixture(t, dsn, 40, bulktest.Options{Now: clock.now, Before: func(string, map[string]any) {
		if during && armed.Load() {
			// The other worker stops beating: its heartbeat is an hour old.
			once.Do(func() {
				if _, err := db.Exec(`UPDATE bulk_workers SET heartbeat = ? WHERE worker = 'elsewhere:77:dead'`, store.FormatTime(old)); err != nil {
					t.Error(err)
				}
			})
		}
	}})
	if err := seed(ctx, db, fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	gone := store.BulkLease{RunID: fx.run.ID, Holder: "elsewhere:77:dead", Host: "elsewhere", PID: 77, Since: old, Heartbeat: old}
	if during {
		gone.Heartbeat = time.Time{} // alive when the next worker starts
	}
	claimed, _, err := db.ClaimBulkRows(ctx, store.BulkClaim{Worker: gone, N: 5, At: old})
	if err != nil || len(claimed) != 5 {
		t.Fatalf("ClaimBulkRows = %v, %v", claimed, err)
	}
	clock.back(old, func() { _, err = fx.client.Do(ctx, fx.run.Op, fx.rows[0].Body) }) // the first one reached the service
	if err != nil {
		t.Fatal(err)
	}
	r, lease := fx.worker(t, 4)
	r.Recheck = takeOverRunner(fx, r.DB.(*store.DB), lease).Recheck
	armed.Store(true)
	sum, err := r.Execute(ctx, fx.run, fx.rows)
	if err != nil || sum.Recovered != 5 || sum.TakenOver.NotExecuted != 4 || sum.Success != 40 || fx.run.State != RunDone {
		t.Fatalf("Execute = %+v, %v, state %s; want the gone worker's rows looked up, 4 sent again, all success, done", sum, err, fx.run.State)
	}
	for _, row := range fx.rows {
		if n := fx.srv.CallCount(row.Ref); n != 1 {
			t.Errorf("%s called %d times, want once", row.Ref, n)
		}
	}
}
