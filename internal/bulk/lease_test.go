package bulk

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// ticker is a Leases.After a test drives: each call says the heartbeat
// loop is waiting (the previous heartbeat is recorded), and returns the
// channel the test ticks.
type ticker struct {
	waiting chan struct{}
	tick    chan time.Time
}

func newTicker() *ticker {
	return &ticker{waiting: make(chan struct{}, 1), tick: make(chan time.Time)}
}

func (tk *ticker) after(time.Duration) <-chan time.Time {
	tk.waiting <- struct{}{}
	return tk.tick
}

// beat lets one heartbeat happen and waits until it is recorded.
func (tk *ticker) beat(tb testing.TB) {
	tb.Helper()
	select {
	case tk.tick <- time.Time{}:
	case <-time.After(30 * time.Second):
		tb.Fatal("the heartbeat loop is not waiting")
	}
	select {
	case <-tk.waiting:
	case <-time.After(30 * time.Second):
		tb.Fatal("the heartbeat was not recorded")
	}
}

// createRunRow stores a run for the lease tests.
func createRunRow(tb testing.TB, db *store.DB, id string) {
	tb.Helper()
	err := CreateRun(context.Background(), db, &Run{ID: id, Op: svcapi.OpVerifyPanPlusV2, InputPath: "/in.csv", InputSHA256: id, TotalRows: 1})
	if err != nil {
		tb.Fatal(err)
	}
}

func TestLeaseOneHolderHeartbeatAndTakeOver(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	createRunRow(t, db, "LEASE")
	clock := time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	tk := newTicker()
	a := &Leases{DB: db, Holder: Holder{ID: "hostA:100:a", Host: "hostA", PID: 100}, Now: now, After: tk.after,
		Heartbeat: 10 * time.Second, Timeout: time.Minute, Alive: func(int) bool { return true }}
	la, err := a.Acquire(ctx, "LEASE")
	if err != nil {
		t.Fatal(err)
	}
	<-tk.waiting // the heartbeat loop started

	// A second holder, on the same or another host, is refused while the
	// first is alive and beating: told who holds it, since when.
	for _, h := range []Holder{{ID: "hostA:100:b", Host: "hostA", PID: 100}, {ID: "hostB:7:c", Host: "hostB", PID: 7}} {
		b := &Leases{DB: db, Holder: h, Now: now, Timeout: time.Minute, Alive: func(int) bool { return true }}
		_, err := b.Acquire(ctx, "LEASE")
		var held *HeldError
		if !errors.As(err, &held) || !errors.Is(err, ErrRefused) || held.Lease.Host != "hostA" || held.Lease.PID != 100 ||
			!strings.Contains(err.Error(), "host hostA, pid 100, since 2026-11-21 10:30:00 IST") {
			t.Fatalf("Acquire by %s while held = %v; want *HeldError naming hostA pid 100 since 10:30:00 IST", h.ID, err)
		}
	}

	// The heartbeat is renewed at the injected clock.
	clock = clock.Add(50 * time.Second)
	tk.beat(t)
	if l, _ := db.BulkRunLease(ctx, "LEASE"); !l.Heartbeat.Equal(clock) || l.Holder != "hostA:100:a" {
		t.Errorf("lease after a heartbeat = %+v, want heartbeat %v", l, clock)
	}
	// 50 s later the heartbeat is 50 s old: not stale yet (timeout 1 min).
	clock = clock.Add(50 * time.Second)
	other := &Leases{DB: db, Holder: Holder{ID: "hostB:7:c", Host: "hostB", PID: 7}, Now: now, Timeout: time.Minute}
	if _, err := other.Acquire(ctx, "LEASE"); !errors.Is(err, ErrRefused) {
		t.Fatalf("Acquire with a 50 s old heartbeat = %v, want refused", err)
	}
	// Past the time-out the lease is taken over, and the old holder learns
	// it at its next heartbeat.
	clock = clock.Add(20 * time.Second)
	lb, err := other.Acquire(ctx, "LEASE")
	if err != nil || lb.TookOver == nil || lb.TookOver.Holder != "hostA:100:a" {
		t.Fatalf("Acquire past the time-out = %+v, %v; want taken over from hostA:100:a", lb, err)
	}
	defer lb.Release(ctx)
	select {
	case tk.tick <- time.Time{}:
	case <-time.After(30 * time.Second):
		t.Fatal("the heartbeat loop is not waiting")
	}
	select {
	case <-la.lost:
	case <-time.After(30 * time.Second):
		t.Fatal("the holder taken over did not learn it")
	}
	lctx, cancel := la.Context(ctx)
	defer cancel()
	<-lctx.Done() // cancelled by the loss
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if l, _ := db.BulkRunLease(ctx, "LEASE"); l == nil || l.Holder != "hostB:7:c" {
		t.Errorf("the old holder's release removed the new lease: %+v", l)
	}
}

// A holder on this host whose pid is gone is taken over at once, however
// fresh its heartbeat.
func TestLeaseOfADeadProcessIsTakenOver(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	createRunRow(t, db, "DEADP")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	dead := cmd.Process.Pid // exited and reaped
	me := NewHolder()
	if !strings.HasPrefix(me.ID, me.Host+":"+strconv.Itoa(me.PID)+":") {
		t.Errorf("NewHolder = %+v, want host:pid:random", me)
	}
	now := time.Now()
	gone := store.BulkLease{RunID: "DEADP", Holder: me.Host + ":" + strconv.Itoa(dead) + ":x", Host: me.Host, PID: dead, Since: now, Heartbeat: now}
	if _, _, err := db.AcquireBulkLease(ctx, gone, func(store.BulkLease) bool { return false }); err != nil {
		t.Fatal(err)
	}
	// The same pid on another host is not this host's to judge: refused
	// while its heartbeat is fresh.
	elsewhere := &Leases{DB: db, Holder: Holder{ID: "other:1:y", Host: "another-host", PID: 1}}
	if _, err := elsewhere.Acquire(ctx, "DEADP"); !errors.Is(err, ErrRefused) {
		t.Fatalf("Acquire from another host = %v, want refused", err)
	}
	l, err := (&Leases{DB: db, Holder: me}).Acquire(ctx, "DEADP")
	if err != nil || l.TookOver == nil || l.TookOver.PID != dead {
		t.Fatalf("Acquire over a dead pid = %+v, %v; want taken over", l, err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.BulkRunLease(ctx, "DEADP"); got != nil {
		t.Errorf("lease after release = %+v, want none", got)
	}

	// A lease of this host and this process's pid under an id this process
	// never made was left by an earlier process with the same pid.
	reused := store.BulkLease{RunID: "DEADP", Holder: me.Host + ":" + strconv.Itoa(me.PID) + ":earlier", Host: me.Host, PID: me.PID,
		Since: now, Heartbeat: time.Now()}
	if _, _, err := db.AcquireBulkLease(ctx, reused, func(store.BulkLease) bool { return false }); err != nil {
		t.Fatal(err)
	}
	l, err = (&Leases{DB: db, Holder: NewHolder()}).Acquire(ctx, "DEADP")
	if err != nil || l.TookOver == nil || l.TookOver.Holder != reused.Holder {
		t.Fatalf("Acquire over a reused pid = %+v, %v; want taken over", l, err)
	}
	l.Release(ctx)
}

func blockForever(time.Duration) <-chan time.Time { return nil }

// Two processes starting the same file make one run: the second is told
// who holds it, and changes nothing — whether it plans after the first
// started, or both planned before either started.
func TestTwoStartersOfOneFileMakeOneRun(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	q := Request{Op: svcapi.OpVerifyPanPlusV2, Input: "/data/pans.csv", SHA256: "v1", Rows: 3,
		Settings: Settings{Sets: Sets{"consent": "Y"}, Concurrency: 4}}
	starter := func(id string) *Starter {
		return &Starter{DB: db, Leases: &Leases{DB: db, Holder: Holder{ID: id, Host: "h", PID: 1}, After: blockForever,
			Alive: func(int) bool { return true }}}
	}
	first, second := starter("h:1:first"), starter("h:1:second")
	p1, err := first.Plan(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := second.Plan(ctx, q) // both planned a new run
	if err != nil || p2.Continue {
		t.Fatalf("second Plan = %+v, %v", p2, err)
	}
	l1, err := first.Start(ctx, p1)
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Release(ctx)
	var held *HeldError
	if _, err := second.Start(ctx, p2); !errors.As(err, &held) || held.RunID != p1.Run.ID {
		t.Fatalf("second Start of the same file = %v, want *HeldError on run %s", err, p1.Run.ID)
	}
	// Planned after: continues the first's run, and is refused at Start
	// before its settings are stored.
	q.Settings.Concurrency = 99
	p3, err := second.Plan(ctx, q)
	if err != nil || !p3.Continue || p3.Run.ID != p1.Run.ID {
		t.Fatalf("Plan after the first started = %+v, %v", p3, err)
	}
	if _, err := second.Start(ctx, p3); !errors.As(err, &held) {
		t.Fatalf("Start of a held run = %v, want *HeldError", err)
	}
	runs, _ := Runs(ctx, db, 10)
	if len(runs) != 1 || runs[0].Settings.Concurrency != 4 {
		t.Errorf("runs = %+v; want one, with the first's settings", runs)
	}
}
