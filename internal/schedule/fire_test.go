package schedule

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// eachDatabase runs fn with the address of a fresh database of each
// backend: a SQLite file, and PostgreSQL when the tests have one.
func eachDatabase(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, filepath.Join(t.TempDir(), "j.db")) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.NewDatabase(t)) })
}

// host is a scheduler daemon on a host of its own, with its own clock and
// database handle.
type host struct {
	*Runner
	mu  sync.Mutex
	now time.Time
	ran []time.Time // the fire times its job ran for
}

func newHost(t *testing.T, dsn, name string) *host {
	t.Helper()
	h := &host{}
	h.Runner = &Runner{
		DB:     openDB(t, dsn),
		File:   testFile(t, "jobs:\n  nightly:\n    cron: \"30 2 * * *\"\n    timezone: Asia/Kolkata\n    command: ok\n"),
		Holder: name + ":100:x", Host: name,
		Now: func() time.Time {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.now
		},
	}
	h.Funcs = map[string]JobFunc{"ok": func(ctx context.Context, r Run) (string, error) {
		h.mu.Lock()
		h.ran = append(h.ran, h.now)
		h.mu.Unlock()
		return "ran on " + name, nil
	}}
	return h
}

// fire fires the job for fire time at, the host's clock skew late.
func (h *host) fire(t *testing.T, at time.Time, skew time.Duration) Result {
	t.Helper()
	h.mu.Lock()
	h.now = at.Add(skew)
	h.mu.Unlock()
	res, err := h.Fire(context.Background(), "nightly", at)
	if err != nil {
		t.Errorf("%s: Fire(%s) = %v", h.Host, at, err)
	}
	return res
}

// Two schedulers on one database, with clocks of their own, fire the
// nightly job at each of its fire times, at once or one after the other
// (a skewed clock, the first run already over): each fire time runs once,
// recorded once with the host that ran it; a scheduler that died holding
// a run is taken over at the next fire time.
func TestTwoSchedulersRunEachFireTimeOnce(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		a, b := newHost(t, dsn, "hostA"), newHost(t, dsn, "hostB")
		job, _ := a.File.Job("nightly")
		first := job.FireTime(time.Date(2026, 11, 23, 2, 30, 0, 4e6, recon.IST))
		if want := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC); !first.Equal(want) {
			t.Fatalf("FireTime(02:30:00.004 IST) = %s, want %s", first, want)
		}
		fires := []time.Time{first, first.AddDate(0, 0, 1), first.AddDate(0, 0, 2), first.AddDate(0, 0, 3)}
		// Fire 1 and 2: at once (B's clock 2 s late).
		for _, f := range fires[:2] {
			var wg sync.WaitGroup
			results := make([]Result, 2)
			for i, h := range []*host{a, b} {
				wg.Add(1)
				go func() { defer wg.Done(); results[i] = h.fire(t, f, time.Duration(i)*2*time.Second) }()
			}
			wg.Wait()
			ran, taken := 0, 0
			for _, r := range results {
				switch {
				case r.Outcome == OutcomeOK && r.TakenBy == "":
					ran++
				case r.Outcome == "" && r.TakenBy != "" && r.RunID == 0:
					taken++
				default:
					t.Errorf("fire %s: result %+v", f, r)
				}
			}
			if ran != 1 || taken != 1 {
				t.Errorf("fire %s: %d ran, %d told taken; want 1 and 1", f, ran, taken)
			}
		}
		// Fire 3: A runs it and is done before B's clock (30 s late) gets
		// there: B does not run it again.
		if r := a.fire(t, fires[2], 0); r.Outcome != OutcomeOK {
			t.Fatalf("A at fire 3 = %+v", r)
		}
		if r := b.fire(t, fires[2], 30*time.Second); r.TakenBy != a.Holder {
			t.Errorf("B at fire 3, after A ran it = %+v; want taken by %s", r, a.Holder)
		}
		// Fire 4: A takes it and dies with the run going (its lease
		// expires 2 minutes later); B sees the fire time taken; at fire 5
		// B takes the job over.
		s := recon.JobStart{Job: "nightly", Trigger: TriggerSchedule, Holder: a.Holder, Host: a.Host, Now: fires[3],
			TTL: DefaultLeaseTTL, FireAt: fires[3]}
		if _, err := a.DB.BeginJobRun(context.Background(), s, func(string, string, time.Time) string { return "" }); err != nil {
			t.Fatal(err)
		}
		if r := b.fire(t, fires[3], time.Second); r.TakenBy != a.Holder {
			t.Errorf("B at fire 4, held by A = %+v", r)
		}
		fifth := fires[3].AddDate(0, 0, 1)
		if r := b.fire(t, fifth, 0); r.Outcome != OutcomeOK {
			t.Errorf("B at fire 5, after A died = %+v; want it run", r)
		}

		hist, err := History(context.Background(), a.DB.(HistoryStore), HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		perFire := map[string][]string{}
		for _, r := range hist {
			perFire[r.FireAt.Format(time.RFC3339)] = append(perFire[r.FireAt.Format(time.RFC3339)], r.Host+" "+r.Outcome)
		}
		want := map[string]string{
			fires[0].Format(time.RFC3339): "", fires[1].Format(time.RFC3339): "", // either host
			fires[2].Format(time.RFC3339): "[hostA ok]",
			fires[3].Format(time.RFC3339): "[hostA failed]", // abandoned, closed by B's take-over
			fifth.Format(time.RFC3339):    "[hostB ok]",
		}
		if len(perFire) != len(want) {
			t.Errorf("history has %d fire times, want %d: %v", len(perFire), len(want), perFire)
		}
		for f, w := range want {
			got := perFire[f]
			if len(got) != 1 || w != "" && fmt.Sprint(got) != w {
				t.Errorf("fire %s: runs %v, want one %s", f, got, w)
			}
		}
		if n := len(a.ran) + len(b.ran); n != 4 {
			t.Errorf("the job ran %d times (A %v, B %v); want once for each of fires 1, 2, 3 and 5", n, a.ran, b.ran)
		}
	})
}

func TestFireTime(t *testing.T) {
	f := testFile(t, "jobs:\n  n:\n    cron: \"30 2 * * *\"\n    timezone: Asia/Kolkata\n    command: ok\n"+
		"  h:\n    cron: \"@every 1h\"\n    command: ok\n  m:\n    cron: \"*/5 * * * *\"\n    command: ok\n")
	ist := func(h, m, s, ms int) time.Time { return time.Date(2026, 11, 23, h, m, s, ms*1e6, recon.IST) }
	for _, c := range []struct {
		job       string
		now, want time.Time
	}{
		{"n", ist(2, 30, 0, 3), ist(2, 30, 0, 0)},
		{"n", ist(2, 30, 40, 0), ist(2, 30, 0, 0)},
		{"n", ist(2, 45, 10, 500), ist(2, 45, 10, 0)}, // no fire in the last minute: to the second
		{"h", ist(10, 17, 3, 0), ist(10, 0, 0, 0).Add(-30 * time.Minute)},
		{"m", ist(10, 10, 0, 20), ist(10, 10, 0, 0)},
	} {
		j, _ := f.Job(c.job)
		if got := j.FireTime(c.now); !got.Equal(c.want) {
			t.Errorf("%s.FireTime(%s) = %s, want %s", c.job, c.now, got.In(recon.IST), c.want)
		}
	}
}
