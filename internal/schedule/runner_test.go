package schedule

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
)

var t0 = time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)

// The database implements the scheduler's stores.
var (
	_ Store        = (*store.DB)(nil)
	_ HistoryStore = (*store.DB)(nil)
)

func openDB(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func testFile(tb testing.TB, yaml string) *File {
	tb.Helper()
	f, err := Parse("s.yaml", []byte(yaml), []string{"block", "ok", "fail", "panic", "wait"})
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

const testYAML = `jobs:
  a:
    cron: "30 2 * * *"
    command: block
  b:
    cron: "@daily"
    command: ok
  c:
    cron: "@daily"
    command: panic
  d:
    cron: "@daily"
    command: fail
  e:
    cron: "@daily"
    command: wait
    timeout: 20ms
`

// blocker is a job that signals when it starts and returns when released
// (or when its context is done).
type blocker struct {
	started chan Run
	release chan struct{}
}

func newBlocker() *blocker { return &blocker{started: make(chan Run, 4), release: make(chan struct{})} }

func (b *blocker) run(ctx context.Context, r Run) (string, error) {
	b.started <- r
	select {
	case <-b.release:
		return "released", nil
	case <-ctx.Done():
		return "stopped half-way", fmt.Errorf("blocked job: %w", ctx.Err())
	}
}

func newRunner(tb testing.TB, db *store.DB, b *blocker, holder string) *Runner {
	tb.Helper()
	return &Runner{
		DB:   db,
		File: testFile(tb, testYAML),
		Funcs: map[string]JobFunc{
			"block": b.run,
			"ok":    func(ctx context.Context, r Run) (string, error) { return "3 records\n", nil },
			"fail": func(ctx context.Context, r Run) (string, error) {
				return "", errors.New("sync: window 2026-11-21 failed")
			},
			"panic": func(ctx context.Context, r Run) (string, error) { panic("nil map in job") },
			"wait": func(ctx context.Context, r Run) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			},
		},
		Now:    func() time.Time { return t0 },
		Holder: holder,
	}
}

type runRow struct {
	Job, Trigger, Outcome, Summary, Error string
	Finished                              bool
}

func runRows(tb testing.TB, db *store.DB) []runRow {
	tb.Helper()
	rows, err := db.Query(`SELECT job, trigger, outcome, summary, error, finished_at IS NOT NULL FROM job_runs ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []runRow
	for rows.Next() {
		var r runRow
		if err := rows.Scan(&r.Job, &r.Trigger, &r.Outcome, &r.Summary, &r.Error, &r.Finished); err != nil {
			tb.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func leaseHolder(tb testing.TB, db *store.DB, name string) string {
	tb.Helper()
	var h string
	err := db.QueryRow(`SELECT holder FROM leases WHERE name = ?`, name).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return ""
	}
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func trigger(tb testing.TB, r *Runner, ctx context.Context, job string) Result {
	tb.Helper()
	res, err := r.Trigger(ctx, job, TriggerManual)
	if err != nil {
		tb.Fatalf("Trigger(%s): %v", job, err)
	}
	return res
}

// startBlocked triggers job a in a goroutine and waits until it runs.
func startBlocked(tb testing.TB, r *Runner, b *blocker, ctx context.Context) <-chan Result {
	tb.Helper()
	done := make(chan Result, 1)
	go func() {
		res, err := r.Trigger(ctx, "a", TriggerSchedule)
		if err != nil {
			tb.Errorf("Trigger(a): %v", err)
		}
		done <- res
	}()
	<-b.started
	return done
}

func TestTriggerOK(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	r := newRunner(t, db, newBlocker(), "me")
	res := trigger(t, r, context.Background(), "b")
	if res.Outcome != OutcomeOK || res.Summary != "3 records" || res.Err != nil || res.RunID == 0 {
		t.Fatalf("Trigger(b) = %+v, want ok with summary", res)
	}
	want := []runRow{{Job: "b", Trigger: "manual", Outcome: "ok", Summary: "3 records", Finished: true}}
	if got := runRows(t, db); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("job_runs = %+v, want %+v", got, want)
	}
	if h := leaseHolder(t, db, "b"); h != "" {
		t.Errorf("lease of b still held by %q after the run", h)
	}
	if _, err := r.Trigger(context.Background(), "nope", TriggerManual); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("Trigger(nope) error = %v, want ErrUnknownJob", err)
	}
}

func TestOverlapSkipped(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	b := newBlocker()
	r := newRunner(t, db, b, "me")
	done := startBlocked(t, r, b, context.Background())

	second := trigger(t, r, context.Background(), "a")
	if second.Outcome != OutcomeSkipped || !strings.Contains(second.Summary, "still going") {
		t.Fatalf("second Trigger(a) = %+v, want skipped (still going)", second)
	}
	// Another job is not held up by a.
	if res := trigger(t, r, context.Background(), "b"); res.Outcome != OutcomeOK {
		t.Errorf("Trigger(b) during a = %+v, want ok", res)
	}
	close(b.release)
	first := <-done
	if first.Outcome != OutcomeOK || first.Summary != "released" {
		t.Fatalf("first Trigger(a) = %+v, want ok", first)
	}
	got := runRows(t, db)
	want := []string{"a schedule running→ok", "a manual skipped", "b manual ok"}
	if len(got) != 3 || got[0].Outcome != "ok" || got[1].Outcome != "skipped" || got[1].Trigger != "manual" ||
		got[2].Job != "b" || got[2].Outcome != "ok" {
		t.Errorf("job_runs = %+v, want %v", got, want)
	}
	// Once the first run is over, the job runs again.
	b.release = make(chan struct{})
	close(b.release)
	if res := trigger(t, r, context.Background(), "a"); res.Outcome != OutcomeOK {
		t.Errorf("third Trigger(a) = %+v, want ok", res)
	}
}

// TestLeaseHeldByOtherProcess: a second runner (another "process": its own
// connection to the same file, its own holder) skips a job the first runs.
func TestLeaseHeldByOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	db1, db2 := openDB(t, path), openDB(t, path)
	b := newBlocker()
	daemon := newRunner(t, db1, b, "daemon-host:100:aaaa")
	cronEntry := newRunner(t, db2, newBlocker(), "cron-host:200:bbbb")
	// Should the lease not hold, the second process's run ends at once
	// (and the test fails) instead of blocking.
	cronEntry.Funcs["block"] = func(ctx context.Context, r Run) (string, error) {
		return "", errors.New("ran while another process held the lease")
	}
	done := startBlocked(t, daemon, b, context.Background())

	if h := leaseHolder(t, db2, "a"); h != daemon.Holder {
		t.Fatalf("lease a holder = %q, want %q", h, daemon.Holder)
	}
	res := trigger(t, cronEntry, context.Background(), "a")
	if res.Outcome != OutcomeSkipped || !strings.Contains(res.Summary, "lease held by daemon-host:100:aaaa") {
		t.Fatalf("Trigger(a) in the second process = %+v, want skipped (lease held by daemon-host:100:aaaa …)", res)
	}
	// The lease is per job: the other process runs b meanwhile.
	if res := trigger(t, cronEntry, context.Background(), "b"); res.Outcome != OutcomeOK {
		t.Errorf("Trigger(b) in the second process = %+v, want ok", res)
	}
	close(b.release)
	if first := <-done; first.Outcome != OutcomeOK {
		t.Fatalf("daemon run = %+v, want ok", first)
	}
	// Released at the end: now the second process can run a.
	cronEntry.Funcs["block"] = func(ctx context.Context, r Run) (string, error) { return "ran", nil }
	if res := trigger(t, cronEntry, context.Background(), "a"); res.Outcome != OutcomeOK {
		t.Errorf("Trigger(a) after release = %+v, want ok", res)
	}
	var skipped int
	db1.QueryRow(`SELECT count(*) FROM job_runs WHERE job = 'a' AND outcome = 'skipped' AND summary LIKE '%lease held by daemon-host:100:aaaa until%'`).Scan(&skipped)
	if skipped != 1 {
		t.Errorf("skipped runs recorded = %d, want 1", skipped)
	}
}

// TestLeaseExpiredTakenOver: a lease past its expiry is taken over, and the
// holder that lost it cancels its run at its next renewal.
func TestLeaseExpiredTakenOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	db1, db2 := openDB(t, path), openDB(t, path)
	b := newBlocker()
	old := newRunner(t, db1, b, "old-host:1:aaaa")
	old.LeaseTTL = 40 * time.Millisecond // renewed every 10ms
	done := startBlocked(t, old, b, context.Background())

	later := newRunner(t, db2, newBlocker(), "new-host:2:bbbb")
	later.Now = func() time.Time { return t0.Add(time.Hour) } // the old lease expired long ago
	later.Funcs["block"] = func(ctx context.Context, r Run) (string, error) { return "took over", nil }
	if res := trigger(t, later, context.Background(), "a"); res.Outcome != OutcomeOK {
		t.Fatalf("Trigger(a) after expiry = %+v, want ok", res)
	}
	lost := <-done
	if lost.Outcome != OutcomeFailed || !errors.Is(lost.Err, ErrLeaseLost) {
		t.Fatalf("old run = %+v, want failed with ErrLeaseLost", lost)
	}
}

// TestLeaseOfDeadProcess: a lease whose holder process is gone (same host)
// is taken over at once, and the run it left 'running' is closed.
func TestLeaseOfDeadProcess(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	r := newRunner(t, db, newBlocker(), "")
	r.init()
	host := r.Holder[:strings.Index(r.Holder, ":")]
	dead := host + ":999999999:dead"
	_, err := db.Exec(`INSERT INTO leases VALUES ('b', ?, ?, ?);
		INSERT INTO job_runs (job, trigger, started_at, outcome) VALUES ('b', 'schedule', ?, 'running')`,
		dead, store.FormatTime(t0), store.FormatTime(t0.Add(time.Hour)), store.FormatTime(t0.Add(-time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	if res := trigger(t, r, context.Background(), "b"); res.Outcome != OutcomeOK {
		t.Fatalf("Trigger(b) = %+v, want ok (holder %s is gone)", res, dead)
	}
	got := runRows(t, db)
	if len(got) != 2 || got[0].Outcome != "failed" || !strings.Contains(got[0].Error, "abandoned") || !got[0].Finished {
		t.Errorf("job_runs = %+v, want the abandoned run closed as failed", got)
	}
	// A live holder (this very process, another runner) is respected.
	live := host + ":" + strings.Split(r.Holder, ":")[1] + ":other"
	db.Exec(`INSERT INTO leases VALUES ('d', ?, ?, ?)`, live, store.FormatTime(t0), store.FormatTime(t0.Add(time.Hour)))
	if res := trigger(t, r, context.Background(), "d"); res.Outcome != OutcomeSkipped {
		t.Errorf("Trigger(d) = %+v, want skipped (held by a live process)", res)
	}
}

func TestPanicRecorded(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	var logs bytes.Buffer
	r := newRunner(t, db, newBlocker(), "me")
	r.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	res := trigger(t, r, context.Background(), "c")
	var pe *PanicError
	if res.Outcome != OutcomePanic || !errors.As(res.Err, &pe) || pe.Value != "nil map in job" {
		t.Fatalf("Trigger(c) = %+v, want panic with the value", res)
	}
	got := runRows(t, db)
	if len(got) != 1 || got[0].Outcome != "panic" || got[0].Error != "panic: nil map in job" {
		t.Errorf("job_runs = %+v, want one panic row", got)
	}
	if h := leaseHolder(t, db, "c"); h != "" {
		t.Errorf("lease still held by %q after a panic", h)
	}
	if !strings.Contains(logs.String(), `"msg":"job panicked"`) || !strings.Contains(logs.String(), "runner_test.go") {
		t.Errorf("logs lack the panic and its stack:\n%s", logs.String())
	}
	// The runner goes on: the job can run again.
	if res := trigger(t, r, context.Background(), "c"); res.Outcome != OutcomePanic {
		t.Errorf("second Trigger(c) = %+v, want panic again", res)
	}
}

func TestFailedAndTimeout(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	r := newRunner(t, db, newBlocker(), "me")
	if res := trigger(t, r, context.Background(), "d"); res.Outcome != OutcomeFailed || res.Err.Error() != "sync: window 2026-11-21 failed" {
		t.Errorf("Trigger(d) = %+v, want failed", res)
	}
	res := trigger(t, r, context.Background(), "e")
	if res.Outcome != OutcomeFailed || !strings.Contains(res.Err.Error(), "timed out after 20ms") {
		t.Errorf("Trigger(e) = %+v, want failed (timed out)", res)
	}
}

func TestCancelRecorded(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	b := newBlocker()
	r := newRunner(t, db, b, "me")
	ctx, cancel := context.WithCancel(context.Background())
	done := startBlocked(t, r, b, ctx)
	cancel() // SIGINT
	res := <-done
	if res.Outcome != OutcomeCancelled || !errors.Is(res.Err, context.Canceled) || res.Summary != "stopped half-way" {
		t.Fatalf("Trigger(a) cancelled = %+v, want cancelled", res)
	}
	got := runRows(t, db)
	if len(got) != 1 || got[0].Outcome != "cancelled" || !got[0].Finished || !strings.Contains(got[0].Error, "context canceled") {
		t.Errorf("job_runs = %+v, want one finished cancelled row", got)
	}
	if h := leaseHolder(t, db, "a"); h != "" {
		t.Errorf("lease still held by %q after cancellation", h)
	}
	if _, err := r.Trigger(ctx, "b", TriggerSchedule); !errors.Is(err, ErrStopping) {
		t.Errorf("Trigger after stop: err = %v, want ErrStopping", err)
	}
}

// TestDaemon runs the cron loop for real with an @every 1s job, stops it
// while the job runs, and checks the run is recorded as cancelled and every
// log line of the run names the job and the run.
func TestDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the cron tick (1s)")
	}
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	b := newBlocker()
	var logs syncBuffer
	r := &Runner{
		DB:    db,
		File:  testFile(t, "jobs:\n  tick:\n    cron: \"@every 1s\"\n    command: block\n"),
		Funcs: map[string]JobFunc{"block": b.run},
		Log:   slog.New(slog.NewJSONHandler(&logs, nil)),
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(ctx) }()
	run := <-b.started
	if run.Trigger != TriggerSchedule || run.Job.Name != "tick" || run.ID == 0 {
		t.Errorf("run = %+v", run)
	}
	cancel()
	if err := <-stopped; err != nil {
		t.Fatalf("Run = %v", err)
	}
	got := runRows(t, db)
	if len(got) == 0 || got[0].Outcome != "cancelled" || got[0].Trigger != "schedule" {
		t.Fatalf("job_runs = %+v, want the run cancelled", got)
	}
	var n int
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if msg := m["msg"].(string); msg == "job started" || msg == "job finished" {
			n++
			if m["job"] != "tick" || m["jobRun"] != float64(run.ID) {
				t.Errorf("log line %s lacks job=tick jobRun=%d", line, run.ID)
			}
		}
	}
	if n != 2 {
		t.Errorf("found %d job started/finished lines, want 2:\n%s", n, logs.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestHistory(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	r := newRunner(t, db, newBlocker(), "me")
	tick := t0
	r.Now = func() time.Time { tick = tick.Add(time.Second); return tick }
	for _, j := range []string{"b", "d", "b", "c"} {
		trigger(t, r, context.Background(), j)
	}
	all, err := History(context.Background(), db, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range all {
		got = append(got, rec.Job+":"+rec.Outcome)
	}
	if want := "c:panic b:ok d:failed b:ok"; strings.Join(got, " ") != want {
		t.Errorf("History() = %v, want %s", got, want)
	}
	if all[0].Duration() != time.Second || !all[0].Started.Equal(t0.Add(7*time.Second)) {
		t.Errorf("newest run = %+v, want started t0+7s lasting 1s", all[0])
	}
	bs, err := History(context.Background(), db, HistoryOptions{Job: "b", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || bs[0].Job != "b" || bs[0].ID != all[1].ID {
		t.Errorf("History(b, 1) = %+v, want the newest b run", bs)
	}
}

// TestCancelIgnoredAbandoned: a job that ignores its context does not hold
// up a stop: after StopGrace its run is recorded as cancelled with
// ErrAbandoned, and the job is not started again until it has returned.
func TestCancelIgnoredAbandoned(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	r := newRunner(t, db, newBlocker(), "me")
	r.StopGrace = 50 * time.Millisecond
	started, release, returned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	r.Funcs["block"] = func(ctx context.Context, run Run) (string, error) {
		close(started)
		<-release // deaf to ctx
		close(returned)
		return "late", nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { res, _ := r.Trigger(ctx, "a", TriggerSchedule); done <- res }()
	<-started
	cancel()
	res := <-done
	if res.Outcome != OutcomeCancelled || !errors.Is(res.Err, ErrAbandoned) {
		t.Fatalf("Trigger(a) = %+v, want cancelled with ErrAbandoned", res)
	}
	if got := runRows(t, db); len(got) != 1 || got[0].Outcome != OutcomeCancelled || !got[0].Finished {
		t.Errorf("job_runs = %+v, want the run recorded cancelled", got)
	}
	if again := trigger(t, r, context.Background(), "a"); again.Outcome != OutcomeSkipped || !strings.Contains(again.Summary, "still going") {
		t.Errorf("Trigger(a) while the abandoned job still runs = %+v, want skipped", again)
	}
	close(release)
	<-returned
	r.Funcs["block"] = func(ctx context.Context, run Run) (string, error) { return "ran", nil }
	for i := 0; ; i++ { // the job returned; its runner slot is freed right after
		res := trigger(t, r, context.Background(), "a")
		if res.Outcome == OutcomeOK {
			break
		}
		if i == 1000 {
			t.Fatalf("Trigger(a) after the abandoned job returned = %+v, want ok", res)
		}
		time.Sleep(time.Millisecond)
	}
}
