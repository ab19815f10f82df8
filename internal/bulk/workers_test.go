package bulk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// eachJournal runs fn with the address of a fresh database of each
// backend: the shared runs' store methods work on SQLite too (bulkrun uses
// them on PostgreSQL only).
func eachJournal(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, filepath.Join(t.TempDir(), "bulk.db")) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.NewDatabase(t)) })
}

func openDSN(tb testing.TB, dsn string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// sharedFixture is a run of n verifyPanPlusV2 rows with fixed externalRefs
// (so the fake's debits are known), created in the database at dsn.
type sharedFixture struct {
	dsn    string
	srv    *bulktest.Server
	client *svcapi.Client
	run    *Run
	rows   []Row
}

func newSharedFixture(tb testing.TB, dsn string, n int, opts bulktest.Options) *sharedFixture {
	tb.Helper()
	fx := &sharedFixture{dsn: dsn, srv: bulktest.Start(opts)}
	tb.Cleanup(fx.srv.Close)
	var err error
	if fx.client, err = svcapi.New(fx.srv.Config()); err != nil {
		tb.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString("externalRef,pan,latitude,longitude,consent\n")
	for i := range n {
		fmt.Fprintf(&sb, "REF%05d,ABCDE%04dF,012.97,077.59,Y\n", i, i)
	}
	path := filepath.Join(tb.TempDir(), "pans.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	table, err := ReadTable(path)
	if err != nil {
		tb.Fatal(err)
	}
	fx.run = &Run{ID: "SHRD2", Op: svcapi.OpVerifyPanPlusV2, InputPath: path, InputSHA256: table.SHA256, TotalRows: n}
	if fx.rows, err = Build(mustOp(tb, fx.run.Op), table, nil, fx.run.ID); err != nil {
		tb.Fatal(err)
	}
	if err := CreateRun(context.Background(), openDSN(tb, dsn), fx.run); err != nil {
		tb.Fatal(err)
	}
	return fx
}

// worker returns a worker of the run with a database handle of its own,
// as a process on this host would have, and its lease.
func (fx *sharedFixture) worker(tb testing.TB, conc int) (*Runner, *Lease) {
	tb.Helper()
	db := openDSN(tb, fx.dsn)
	ls := &Leases{DB: db, Holder: NewHolder(), Shared: true, Log: quietLog()}
	lease, err := ls.Acquire(context.Background(), fx.run.ID)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { lease.Release(context.Background()) })
	run, err := LoadRun(context.Background(), db, fx.run.ID)
	if err != nil {
		tb.Fatal(err)
	}
	fx.run.Settings = run.Settings
	return &Runner{DB: db, Client: fx.client, Log: quietLog(), Concurrency: conc, Secret: bulktest.ClientSecret,
		Lease: lease, Poll: time.Millisecond}, lease
}

// gate holds every billable request until n are held at once, then lets
// them all through: n = workers × concurrency proves each worker has its
// calls in flight together.
func gate(n int) func(string, map[string]any) {
	var mu sync.Mutex
	held := 0
	open := make(chan struct{})
	return func(string, map[string]any) {
		mu.Lock()
		held++
		if held == n {
			close(open)
		}
		mu.Unlock()
		<-open
	}
}

// TestSharedWorkersCallEveryRowOnce: four workers with handles of their own
// work on one run at once, each with its calls in flight at the same time;
// with drops, TUP and failures, every row is claimed by one worker and
// called once; the last worker sets the run done; recheck resolves the
// pending rows; the results show each row's worker.
func TestSharedWorkersCallEveryRowOnce(t *testing.T) {
	eachJournal(t, func(t *testing.T, dsn string) {
		const workers, conc = 4, 3
		fx := newSharedFixture(t, dsn, 240, bulktest.Options{Drop: 0.05, Pending: 0.05, Fail: 0.05, Before: gate(workers * conc)})
		ctx := context.Background()
		var wg sync.WaitGroup
		sums := make([]Summary, workers)
		runs := make([]*Run, workers)
		for i := range workers {
			r, _ := fx.worker(t, conc)
			run := *fx.run
			runs[i] = &run
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if sums[i], err = r.Execute(ctx, runs[i], fx.rows); err != nil {
					t.Errorf("worker %d: Execute = %v", i, err)
				}
			}()
		}
		wg.Wait()
		last := 0
		for i, s := range sums {
			if s.Stop != "" {
				t.Errorf("worker %d stopped: %+v", i, s)
			}
			if s.Workers == 0 {
				last++
				if runs[i].State != RunDone {
					t.Errorf("last worker left the run %s, want done", runs[i].State)
				}
			}
		}
		if last == 0 {
			t.Error("no worker ended last (Summary.Workers 0)")
		}
		db := openDSN(t, dsn)
		per, err := RowsPerWorker(ctx, db, fx.run.ID)
		if err != nil || len(per) != workers {
			t.Fatalf("RowsPerWorker = %+v, %v; want %d workers", per, err, workers)
		}
		total := 0
		for _, w := range per {
			total += w.Total()
			if w.Sending != 0 {
				t.Errorf("worker %s left rows sending: %+v", w.Worker, w)
			}
		}
		if total != 240 {
			t.Errorf("rows claimed = %d, want 240", total)
		}
		rc := &Rechecker{DB: db, Client: fx.client, Log: quietLog()}
		if _, err := rc.Recheck(ctx, fx.run); err != nil {
			t.Fatal(err)
		}
		c, _ := CountRows(ctx, db, fx.run)
		if c.Pending != 0 || c.Unsent != 0 || c.Success+c.Failed != 240 || !c.Debit.Equal(fx.srv.Debited()) {
			t.Errorf("after recheck: %s; server debited %s", c, fx.srv.Debited())
		}
		for _, r := range fx.rows {
			if n := fx.srv.CallCount(r.Ref); n != 1 {
				t.Errorf("%s called %d times, want once", r.Ref, n)
			}
		}
		// The results carry each row's worker.
		table, _ := ReadTable(fx.run.InputPath)
		out := filepath.Join(t.TempDir(), "results.csv")
		if err := (&Results{DB: db, Run: fx.run, Table: table, Op: mustOp(t, fx.run.Op)}).WriteCSV(ctx, out); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		head := strings.Split(lines[0], ",")
		col := -1
		for i, h := range head {
			if h == ColumnWorker {
				col = i
			}
		}
		if col < 0 {
			t.Fatalf("results header %q has no %s column", lines[0], ColumnWorker)
		}
		seen := map[string]int{}
		for _, l := range lines[1:] {
			seen[strings.Split(l, ",")[col]]++
		}
		for _, w := range per {
			if seen[w.Worker] != w.Total() {
				t.Errorf("results show %d rows of worker %s, journal %d", seen[w.Worker], w.Worker, w.Total())
			}
		}
	})
}

// TestSharedMaxDebitAcrossWorkers: three workers share one --max-debit
// with every third answer dropped: together they spend at most the cap
// (each on its own would spend it), the dropped calls counted at the
// expected debit until resolved.
func TestSharedMaxDebitAcrossWorkers(t *testing.T) {
	eachJournal(t, func(t *testing.T, dsn string) {
		const workers = 3
		price := decimal.RequireFromString("2.50")
		fx := newSharedFixture(t, dsn, 150, bulktest.Options{Latency: time.Millisecond, Price: price, DropEvery: 3})
		max := decimal.RequireFromString("40.00")
		ctx := context.Background()
		var wg sync.WaitGroup
		for i := range workers {
			r, _ := fx.worker(t, 4)
			r.MaxDebit = max
			run := *fx.run
			wg.Add(1)
			go func() {
				defer wg.Done()
				sum, err := r.Execute(ctx, &run, fx.rows)
				if err != nil || sum.Stop != StopMaxDebit {
					t.Errorf("worker %d: Execute = %+v, %v; want stopped by max-debit", i, sum, err)
				}
			}()
		}
		wg.Wait()
		got := fx.srv.Debited()
		if got.GreaterThan(max) || got.LessThan(max.Sub(price)) {
			t.Errorf("debited %s with --max-debit %s across %d workers; want within one call of it, never over", got, max, workers)
		}
		db := openDSN(t, dsn)
		c, _ := CountRows(ctx, db, fx.run)
		pending, known := c.PendingDebit()
		if !known || !c.Debit.Add(pending).Equal(got) || c.Pending == 0 || c.Unsent == 0 {
			t.Errorf("journal: %s; server debited %s", c, got)
		}
		if r, _ := LoadRun(ctx, db, fx.run.ID); r.State != RunStopped {
			t.Errorf("run state %s, want stopped", r.State)
		}
	})
}

// TestSharedWorkerGoneIsReaped: a worker on another host claimed rows and
// stopped beating; the next worker, once the lease time-out has passed,
// turns its rows pending (never sending them), sends the rest; recheck
// finds the gone worker's rows never executed and returns them; the next
// Execute sends them: every row called once.
func TestSharedWorkerGoneIsReaped(t *testing.T) {
	eachJournal(t, func(t *testing.T, dsn string) {
		fx := newSharedFixture(t, dsn, 40, bulktest.Options{})
		ctx := context.Background()
		db := openDSN(t, dsn)
		t0 := time.Now().Add(-time.Hour)
		seeds := make([]store.BulkSeed, len(fx.rows))
		for i, r := range fx.rows {
			seeds[i] = store.BulkSeed{Line: r.Line, Ref: r.Ref}
		}
		if _, err := db.SeedBulkRows(ctx, fx.run.ID, seeds); err != nil {
			t.Fatal(err)
		}
		gone := store.BulkLease{RunID: fx.run.ID, Holder: "elsewhere:77:dead", Host: "elsewhere", PID: 77, Since: t0, Heartbeat: t0}
		claimed, _, err := db.ClaimBulkRows(ctx, store.BulkClaim{Worker: gone, N: 5, At: t0})
		if err != nil || len(claimed) != 5 {
			t.Fatalf("ClaimBulkRows = %v, %v", claimed, err)
		}
		r, _ := fx.worker(t, 4)
		sum, err := r.Execute(ctx, fx.run, fx.rows)
		if err != nil || sum.Recovered != 5 || sum.Sent != 35 || sum.Pending != 5 || fx.run.State != RunDone {
			t.Fatalf("Execute = %+v, %v, state %s; want the gone worker's 5 rows pending, 35 sent, done", sum, err, fx.run.State)
		}
		for _, c := range claimed {
			if n := fx.srv.CallCount(c.Ref); n != 0 {
				t.Errorf("%s of the gone worker was sent %d times before recheck", c.Ref, n)
			}
		}
		rs, err := (&Rechecker{DB: db, Client: fx.client, Log: quietLog()}).Recheck(ctx, fx.run)
		if err != nil || rs.NotExecuted != 5 {
			t.Fatalf("Recheck = %+v, %v; want 5 not executed", rs, err)
		}
		r2, _ := fx.worker(t, 4)
		if sum, err := r2.Execute(ctx, fx.run, fx.rows); err != nil || sum.Sent != 5 || sum.Success != 40 {
			t.Fatalf("second Execute = %+v, %v; want the 5 rows sent", sum, err)
		}
		for _, row := range fx.rows {
			if n := fx.srv.CallCount(row.Ref); n != 1 {
				t.Errorf("%s called %d times, want once", row.Ref, n)
			}
		}
	})
}

// holdJournal holds the first journal write of an outcome until hold is
// closed, telling held its line.
type holdJournal struct {
	Journal
	once sync.Once
	held chan int
	hold chan struct{}
}

func (j *holdJournal) StepBulkRows(ctx context.Context, runID string, s store.BulkStep) (bool, int, error) {
	if s.Done != nil {
		j.once.Do(func() {
			j.held <- s.Done.Line
			<-j.hold
		})
	}
	return j.Journal.StepBulkRows(ctx, runID, s)
}

// awaitCallWhileJournaling waits for the first call and for the journal
// write j holds, then for a second call while it is held: the test fails
// when Execute ends first or no second call comes within a minute. It
// returns the line whose outcome is held.
func awaitCallWhileJournaling(t *testing.T, reqs <-chan string, j *holdJournal, done <-chan error) int {
	t.Helper()
	first := <-reqs
	line := <-j.held
	select {
	case second := <-reqs:
		if second == first {
			t.Fatalf("%s called twice", first)
		}
	case err := <-done:
		t.Fatalf("Execute ended (%v) with the journal of line %d held", err, line)
	case <-time.After(time.Minute):
		close(j.hold)
		t.Fatalf("no second call in a minute while the outcome of line %d was being journaled: the sender waits for it", line)
	}
	return line
}

// TestSharedWorkerCallsWhileItJournals: a worker's sender calls its next
// row (claimed already) while the outcome of its last call is being
// journaled, not after; and a row's slot is held until its outcome is
// journaled, so no third row is claimed meanwhile at concurrency 1.
func TestSharedWorkerCallsWhileItJournals(t *testing.T) {
	eachJournal(t, func(t *testing.T, dsn string) {
		reqs := make(chan string, 8)
		fx := newSharedFixture(t, dsn, 3, bulktest.Options{Before: func(ref string, _ map[string]any) { reqs <- ref }})
		r, _ := fx.worker(t, 1)
		j := &holdJournal{Journal: r.DB, held: make(chan int, 1), hold: make(chan struct{})}
		r.DB = j
		ctx := context.Background()
		done := make(chan error, 1)
		go func() {
			_, err := r.Execute(ctx, fx.run, fx.rows)
			done <- err
		}()
		line := awaitCallWhileJournaling(t, reqs, j, done)
		var claimed []string
		if err := openDSN(t, dsn).EachBulkRow(ctx, fx.run.ID, func(r store.BulkRow) error {
			claimed = append(claimed, fmt.Sprintf("%d %s", r.Line, r.State))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(claimed) != 2 {
			t.Errorf("rows claimed while line %d's outcome is not journaled: %v; want 2 (its slot is still taken)", line, claimed)
		}
		close(j.hold)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		c, err := CountRows(ctx, openDSN(t, dsn), fx.run)
		if err != nil || c.Success != 3 || c.Pending != 0 {
			t.Errorf("after the run: %s, %v; want 3 rows success", c, err)
		}
		for _, row := range fx.rows {
			if n := fx.srv.CallCount(row.Ref); n != 1 {
				t.Errorf("%s called %d times, want once", row.Ref, n)
			}
		}
	})
}

// TestCtrlCGivesBackTheWorkersQueuedRows: a worker of a shared run has a
// call in flight and the next row claimed, waiting its sender. Ctrl-C:
// the call in flight ends and is journaled; the row waiting is not called
// but given back (queued, for the next worker), as a run held alone
// unclaims the row it claimed ahead. Once, the waiting row was called
// after Ctrl-C.
func TestCtrlCGivesBackTheWorkersQueuedRows(t *testing.T) {
	eachJournal(t, func(t *testing.T, dsn string) {
		hold := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(hold) }) }
		defer release()
		arrived := make(chan struct{}, 3)
		fx := newSharedFixture(t, dsn, 3, bulktest.Options{Before: func(string, map[string]any) { arrived <- struct{}{}; <-hold }})
		r, _ := fx.worker(t, 1)
		claims := &claimJournal{Journal: r.DB, claims: make(chan int, 8)}
		r.DB = claims
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := executing(ctx, r, fx.run, fx.rows)
		for range 2 { // the row in flight and the one waiting
			select {
			case <-claims.claims:
			case <-time.After(time.Minute):
				t.Fatal("two rows not claimed in a minute")
			}
		}
		select { // the first row's call is in flight, held at the service
		case <-arrived:
		case <-time.After(time.Minute):
			t.Fatal("no call in flight in a minute")
		}
		cancel()
		release()
		res := <-done
		if res.err != nil || res.sum.Stop != StopInterrupted || res.sum.Sent != 1 {
			t.Fatalf("Execute = %+v, %v; want interrupted, one row sent", res.sum, res.err)
		}
		if n := fx.srv.Requests(); n != 1 {
			t.Errorf("%d requests; want the call in flight alone", n)
		}
		c, err := CountRows(context.Background(), openDSN(t, dsn), fx.run)
		if err != nil || c.Success != 1 || c.Sending != 0 || c.Unsent != 2 {
			t.Errorf("counts %s, %v; want one success, two unsent, none sending", c, err)
		}
	})
}
