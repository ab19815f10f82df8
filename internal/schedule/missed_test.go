package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// downStore is a Store whose database can be taken down.
type downStore struct {
	Store
	db   *store.DB
	down atomic.Bool
}

var errDown = errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")

func (d *downStore) BeginJobRun(ctx context.Context, s recon.JobStart, held func(string, string, time.Time) string) (recon.JobBegun, error) {
	if d.down.Load() {
		return recon.JobBegun{}, errDown
	}
	return d.Store.BeginJobRun(ctx, s, held)
}

func (d *downStore) SkipJobRun(ctx context.Context, s recon.JobStart, reason string) (recon.JobBegun, error) {
	if d.down.Load() {
		return recon.JobBegun{}, errDown
	}
	return d.Store.SkipJobRun(ctx, s, reason)
}

// missedRunner is a scheduler of one nightly job that notifies rc, on a
// database that can be taken down, retrying lost runs when told (tick).
func missedRunner(t *testing.T, dsn string, rc *receiver) (*Runner, *downStore, chan time.Time, *syncBuffer) {
	t.Helper()
	f, err := Parse("s.yaml", []byte(fmt.Sprintf("notify: %s\njobs:\n  nightly: {cron: '30 2 * * *', command: ok}\n", rc.url())), []string{"ok"})
	if err != nil {
		t.Fatal(err)
	}
	sdb := openDB(t, dsn)
	db := &downStore{Store: sdb, db: sdb}
	tick := make(chan time.Time)
	logs := &syncBuffer{}
	var sl sleeps
	r := &Runner{DB: db, File: f, Now: func() time.Time { return t0 }, Holder: "sched1:1:x",
		Log:        slog.New(slog.NewTextHandler(logs, nil)),
		Notifier:   &Notifier{Sleep: sl.sleep},
		RetryAfter: func(time.Duration) <-chan time.Time { return tick },
		Funcs:      map[string]JobFunc{"ok": func(context.Context, Run) (string, error) { return "ran", nil }}}
	return r, db, tick, logs
}

// TestFireLostWhileTheDatabaseIsDownIsRecordedAndNotified: a scheduled
// fire that comes while the database is down is not run; it is logged at
// once, and when the database is back (the daemon's next retry) it is
// recorded as a skipped run saying why, and its job's Notify URL gets a
// notice, once.
func TestFireLostWhileTheDatabaseIsDownIsRecordedAndNotified(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		rc := newReceiver(t)
		r, db, tick, logs := missedRunner(t, dsn, rc)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()
		defer func() { cancel(); <-done }()

		db.down.Store(true)
		fireAt := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
		if _, err := r.Fire(ctx, "nightly", fireAt); err == nil {
			t.Fatal("Fire with the database down: no error")
		}
		if !strings.Contains(logs.String(), "scheduled run lost: the database is unavailable") {
			t.Errorf("the lost run was not logged at once:\n%s", logs)
		}
		tick <- t0 // a retry while still down: nothing recorded, nothing sent
		tick <- t0
		if n := len(rc.notices(t)); n != 0 {
			t.Fatalf("%d notices while the database is down, want none", n)
		}
		db.down.Store(false)
		tick <- t0 // the retry that records it …
		tick <- t0 // … has ended when the next one is taken
		rows := runRows(t, db.db)
		if len(rows) != 1 || rows[0].Job != "nightly" || rows[0].Trigger != TriggerSchedule || rows[0].Outcome != OutcomeSkipped ||
			!strings.Contains(rows[0].Summary, "missed: the database was unavailable") || !strings.Contains(rows[0].Summary, "connection refused") {
			t.Errorf("job runs = %+v; want the lost run recorded as skipped, saying why", rows)
		}
		ns := rc.notices(t)
		if len(ns) != 1 || ns[0].Job != "nightly" || ns[0].Outcome != OutcomeMissed ||
			!strings.Contains(ns[0].Text, "job nightly missed: 1 scheduled run(s) not run: the database was unavailable at 2026-11-22T21:00:00Z") {
			t.Errorf("notices = %+v; want one for the missed run", ns)
		}
		tick <- t0 // nothing left: no second record, no second notice
		tick <- t0
		if len(runRows(t, db.db)) != 1 || len(rc.notices(t)) != 1 {
			t.Errorf("the missed run was recorded or notified twice")
		}
	})
}

// TestLostFiresRecordedAtTheNextFire: fires lost during an outage are
// recorded and notified as soon as a fire finds the database back, before
// that fire's job runs; a fire another scheduler ran is not notified.
func TestLostFiresRecordedAtTheNextFire(t *testing.T) {
	rc := newReceiver(t)
	r, db, _, _ := missedRunner(t, filepath.Join(t.TempDir(), "j.db"), rc)
	ctx := context.Background()
	first := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
	db.down.Store(true)
	for i := range 3 {
		if _, err := r.Fire(ctx, "nightly", first.Add(time.Duration(i)*24*time.Hour)); err == nil {
			t.Fatal("Fire with the database down: no error")
		}
	}
	db.down.Store(false)
	// Another scheduler ran the second one (its database connection held).
	if _, err := db.db.SkipJobRun(ctx, recon.JobStart{Job: "nightly", Trigger: TriggerSchedule, Holder: "sched2:1:y", Host: "sched2",
		Now: t0, FireAt: first.Add(24 * time.Hour)}, "ran there"); err != nil {
		t.Fatal(err)
	}
	res, err := r.Fire(ctx, "nightly", first.Add(72*time.Hour))
	if err != nil || res.Outcome != OutcomeOK {
		t.Fatalf("Fire with the database back = %+v, %v; want the job run", res, err)
	}
	var missed int
	for _, row := range runRows(t, db.db) {
		if strings.HasPrefix(row.Summary, "missed: ") {
			missed++
		}
	}
	ns := rc.notices(t)
	if missed != 2 || len(ns) != 1 || !strings.Contains(ns[0].Headline, "2 scheduled run(s) not run") {
		t.Errorf("%d missed runs recorded, notices %+v; want the 2 not run elsewhere recorded, one notice of them", missed, ns)
	}
}
