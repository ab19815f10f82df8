package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// sharedRun creates run id with n rows (line i+2, ref Ri) and seeds them.
func sharedRun(t *testing.T, db *DB, id string, n int) {
	t.Helper()
	ctx := context.Background()
	if err := db.CreateBulkRun(ctx, BulkRun{ID: id, Op: "op", InputPath: "/in.csv", InputSHA256: "sha-" + id, Settings: "{}",
		TotalRows: n, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	seeds := make([]BulkSeed, n)
	for i := range seeds {
		seeds[i] = BulkSeed{Line: i + 2, Ref: fmt.Sprintf("R%d", i+2)}
	}
	if added, err := db.SeedBulkRows(ctx, id, seeds); err != nil || added != n {
		t.Fatalf("SeedBulkRows = %d, %v; want %d", added, err, n)
	}
}

func worker(id, run string) BulkLease {
	return BulkLease{RunID: run, Holder: id, Host: "h-" + id, PID: 100, Since: t0, Heartbeat: t0}
}

func lines(c []BulkClaimed) []int {
	out := make([]int, len(c))
	for i, r := range c {
		out[i] = r.Line
	}
	return out
}

// TestSharedBulkRunClaims: seeded rows are hidden from the journal's
// readers; workers claim disjoint batches in line order with their id and
// heartbeat; a worker finishes only its own rows; rows given back are
// claimed again; a reaped worker's 'sending' rows become pending; the last
// worker to end sets the run's state.
func TestSharedBulkRunClaims(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		sharedRun(t, db, "SHARE", 600) // more than one INSERT of seeds
		if added, err := db.SeedBulkRows(ctx, "SHARE", []BulkSeed{{Line: 2, Ref: "R2"}, {Line: 700, Ref: "R700"}}); err != nil || added != 1 {
			t.Fatalf("SeedBulkRows again = %d, %v; want only the new line added", added, err)
		}
		if n, err := db.BulkRowsJournaled(ctx, "SHARE"); err != nil || n != 601 {
			t.Fatalf("BulkRowsJournaled = %d, %v; want 601", n, err)
		}
		seen := 0
		db.EachBulkRow(ctx, "SHARE", func(BulkRow) error { seen++; return nil })
		db.EachBulkRowState(ctx, "SHARE", func(string, string) error { seen++; return nil })
		if seen != 0 {
			t.Fatalf("the journal's readers show %d queued rows, want none", seen)
		}

		a, b := worker("A", "SHARE"), worker("B", "SHARE")
		claim := func(w BulkLease, n int, at time.Time) []BulkClaimed {
			t.Helper()
			w.Heartbeat = at
			c, hold, err := db.ClaimBulkRows(ctx, BulkClaim{Worker: w, N: n, At: at})
			if err != nil || hold != "" {
				t.Fatalf("ClaimBulkRows(%s, %d) = %v, %q, %v", w.Holder, n, c, hold, err)
			}
			return c
		}
		t1 := t0.Add(time.Minute)
		ca := claim(a, 3, t1)
		cb := claim(b, 2, t1.Add(time.Second))
		if fmt.Sprint(lines(ca), lines(cb)) != "[2 3 4] [5 6]" || ca[0].Ref != "R2" || ca[0].Attempt != 1 {
			t.Fatalf("claims = %+v and %+v; want lines 2-4 for A, 5-6 for B, first attempts", ca, cb)
		}
		ws, err := db.BulkWorkers(ctx, "SHARE")
		if err != nil || len(ws) != 2 || ws[0].Holder != "A" || !ws[0].Heartbeat.Equal(t1) || ws[1].Host != "h-B" {
			t.Fatalf("BulkWorkers = %+v, %v; want A (heartbeat at its claim) and B", ws, err)
		}
		ok, err := db.FinishClaimedBulkRow(ctx, "SHARE", "A", BulkRow{Line: 2, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.50"}, t1)
		if err != nil || !ok {
			t.Fatalf("FinishClaimedBulkRow(A's row) = %v, %v", ok, err)
		}
		if ok, err := db.FinishClaimedBulkRow(ctx, "SHARE", "B", BulkRow{Line: 3, State: BulkFailed}, t1); err != nil || ok {
			t.Fatalf("FinishClaimedBulkRow(B on A's row) = %v, %v; want false", ok, err)
		}
		if err := db.ReturnBulkRows(ctx, "SHARE", "A", []int{4}); err != nil {
			t.Fatal(err)
		}
		if c := claim(b, 1, t1); fmt.Sprint(lines(c)) != "[4]" || c[0].Attempt != 1 {
			t.Fatalf("claim after line 4 was given back = %+v, want line 4, attempt 1", c)
		}

		// A is gone: its 'sending' row 3 becomes pending, B's rows stay.
		if _, err := db.RenewBulkWorker(ctx, "SHARE", "B", t1.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		ws, _ = db.BulkWorkers(ctx, "SHARE")
		stale := ws[1] // B beat since: not removed
		stale.Heartbeat = t1
		n, err := db.ReapBulkWorkers(ctx, "SHARE", []BulkLease{ws[0], stale}, "died")
		if err != nil || n != 1 {
			t.Fatalf("ReapBulkWorkers = %d, %v; want A's one sending row", n, err)
		}
		if ok, _ := db.RenewBulkWorker(ctx, "SHARE", "A", t1); ok {
			t.Error("RenewBulkWorker of a reaped worker = true")
		}
		got := map[int]BulkRow{}
		db.EachBulkRow(ctx, "SHARE", func(r BulkRow) error { got[r.Line] = r; return nil })
		if len(got) != 5 || got[2].State != BulkSuccess || got[2].Worker != "A" || got[3].State != BulkPending || got[3].Error != "died" ||
			got[5].State != BulkSending || got[5].Worker != "B" || got[4].Worker != "B" {
			t.Fatalf("journal after reaping A = %+v", got)
		}
		perWorker := map[string]int{}
		db.BulkWorkerRows(ctx, "SHARE", func(w, s string, n int) error { perWorker[w+":"+s] += n; return nil })
		if fmt.Sprint(perWorker) != "map[A:pending:1 A:success:1 B:sending:3]" {
			t.Errorf("BulkWorkerRows = %v", perWorker)
		}

		// The last worker to end sets the state: rows are still queued.
		if state, others, err := db.EndBulkWorker(ctx, "SHARE", "B", t1); err != nil || state != BulkStopped || others != 0 {
			t.Errorf("EndBulkWorker(last) = %q, %d, %v; want stopped", state, others, err)
		}
	})
}

// TestClaimBulkRowsReservesMaxDebit: one row in flight until the first
// debit is known; then rows are claimed while the debits, with every row
// in flight or pending at the expected (largest) debit and the new rows
// too, stay within the limit; a pending row holds its share until it is
// resolved; at the limit, none.
func TestClaimBulkRowsReservesMaxDebit(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		sharedRun(t, db, "MAXD1", 20)
		max := decimal.RequireFromString("5.00")
		claim := func(w string, n int) ([]int, string) {
			t.Helper()
			c, hold, err := db.ClaimBulkRows(ctx, BulkClaim{Worker: worker(w, "MAXD1"), N: n, At: t0, MaxDebit: max})
			if err != nil {
				t.Fatal(err)
			}
			return lines(c), hold
		}
		finish := func(w string, line int, state, amount string) {
			t.Helper()
			if ok, err := db.FinishClaimedBulkRow(ctx, "MAXD1", w, BulkRow{Line: line, State: state, PoolAmount: amount}, t0); !ok || err != nil {
				t.Fatalf("finish line %d: %v, %v", line, ok, err)
			}
		}
		if l, hold := claim("A", 4); fmt.Sprint(l) != "[2]" || hold != "" {
			t.Fatalf("first claim = %v, %q; want one probe row", l, hold)
		}
		if l, hold := claim("B", 4); len(l) != 0 || hold != BulkHoldReserved {
			t.Fatalf("claim while the probe is in flight = %v, %q; want none, reserved", l, hold)
		}
		finish("A", 2, BulkSuccess, "2.00")
		// 2.00 debited, 2.00 expected: room for one (2 + 2 ≤ 5 < 2 + 4).
		if l, hold := claim("B", 4); fmt.Sprint(l) != "[3]" || hold != "" {
			t.Fatalf("claim after one debit = %v, %q; want one row", l, hold)
		}
		if l, hold := claim("A", 1); len(l) != 0 || hold != BulkHoldReserved {
			t.Fatalf("claim with one row in flight holding the rest = %v, %q", l, hold)
		}
		finish("B", 3, BulkSuccess, "1.00")
		if l, hold := claim("A", 3); fmt.Sprint(l) != "[4]" || hold != "" {
			t.Fatalf("claim at 3.00 = %v, %q; want one row", l, hold)
		}
		if l, hold := claim("B", 3); len(l) != 0 || hold != BulkHoldReserved {
			t.Fatalf("claim with the rest reserved = %v, %q", l, hold)
		}
		// Its answer is lost: pending, it still holds 2.00, and nothing in
		// flight can free room.
		finish("A", 4, BulkPending, "")
		if l, hold := claim("B", 3); len(l) != 0 || hold != BulkHoldMaxDebit {
			t.Fatalf("claim with a pending row holding the rest = %v, %q; want none, max-debit", l, hold)
		}
		if err := db.ResolveBulkRow(ctx, "MAXD1", BulkPending, BulkRow{Line: 4, State: BulkFailed}, t0); err != nil {
			t.Fatal(err)
		}
		if l, hold := claim("B", 3); fmt.Sprint(l) != "[5]" || hold != "" {
			t.Fatalf("claim after the pending row resolved as failed = %v, %q; want one row", l, hold)
		}
		finish("B", 5, BulkSuccess, "2.00")
		if l, hold := claim("A", 3); len(l) != 0 || hold != BulkHoldMaxDebit {
			t.Fatalf("claim at 5.00 = %v, %q; want none, max-debit", l, hold)
		}
		var debited, largest string
		var rows int
		db.QueryRow(`SELECT debited, debit_max, debit_rows FROM bulk_runs WHERE id = 'MAXD1'`).Scan(&debited, &largest, &rows)
		if debited != "5" || largest != "2" || rows != 3 {
			t.Errorf("run totals = %s, %s, %d rows; want 5, 2, 3", debited, largest, rows)
		}
	})
}

// TestRunDebitsCountedWhenUnknown: a run whose totals are unknown (created
// before they were kept) has them counted from its rows at the first
// reserving claim, and kept from then on, recheck's successes included.
func TestRunDebitsCountedWhenUnknown(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		sharedRun(t, db, "OLDRN", 5)
		c, _, err := db.ClaimBulkRows(ctx, BulkClaim{Worker: worker("A", "OLDRN"), N: 3, At: t0})
		if err != nil || len(c) != 3 {
			t.Fatal(c, err)
		}
		for _, r := range []BulkRow{{Line: 2, State: BulkSuccess, PoolAmount: "1.25"}, {Line: 3, State: BulkPending}} {
			if _, err := db.FinishClaimedBulkRow(ctx, "OLDRN", "A", r, t0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec(`UPDATE bulk_runs SET debited = '', debit_max = '', debit_rows = 0`); err != nil {
			t.Fatal(err)
		}
		// Unknown totals stay unknown on a success …
		if err := db.ResolveBulkRow(ctx, "OLDRN", BulkPending, BulkRow{Line: 3, State: BulkSuccess, PoolAmount: "2.00"}, t0); err != nil {
			t.Fatal(err)
		}
		// … and are counted at the first claim that reserves.
		if _, _, err := db.ClaimBulkRows(ctx, BulkClaim{Worker: worker("A", "OLDRN"), N: 1, At: t0,
			MaxDebit: decimal.RequireFromString("100")}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.FinishClaimedBulkRow(ctx, "OLDRN", "A", BulkRow{Line: 4, State: BulkSuccess, PoolAmount: "0.75"}, t0); err != nil {
			t.Fatal(err)
		}
		var debited, largest string
		var rows int
		db.QueryRow(`SELECT debited, debit_max, debit_rows FROM bulk_runs WHERE id = 'OLDRN'`).Scan(&debited, &largest, &rows)
		if debited != "4" || largest != "2" || rows != 3 {
			t.Errorf("run totals = %q, %q, %d rows; want 4 (1.25 + 2.00 + 0.75), 2, 3", debited, largest, rows)
		}
	})
}

// TestClaimBulkRowsConcurrently: workers with handles of their own claim
// at once until nothing is left; every row is claimed by exactly one.
func TestClaimBulkRowsConcurrently(t *testing.T) {
	eachBackendURL(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sharedRun(t, openURL(t, dsn), "CONCR", 300)
		var mu sync.Mutex
		owner := map[int]string{}
		var wg sync.WaitGroup
		for i := range 4 {
			db := openURL(t, dsn)
			name := fmt.Sprintf("W%d", i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					c, _, err := db.ClaimBulkRows(ctx, BulkClaim{Worker: worker(name, "CONCR"), N: 7, At: t0})
					if err != nil {
						t.Error(err)
						return
					}
					if len(c) == 0 {
						return
					}
					mu.Lock()
					for _, r := range c {
						if o, dup := owner[r.Line]; dup {
							t.Errorf("line %d claimed by %s and %s", r.Line, o, name)
						}
						owner[r.Line] = name
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(owner) != 300 {
			t.Fatalf("%d rows claimed, want 300", len(owner))
		}
	})
}

// TestCreateBulkRunOnceAcrossProcesses: processes creating a run of the
// same file at once make one run; the others are told which.
func TestCreateBulkRunOnceAcrossProcesses(t *testing.T) {
	eachBackendURL(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		openURL(t, dsn) // migrated once
		errs := make(chan error, 4)
		for i := range 4 {
			db := openURL(t, dsn)
			go func() {
				errs <- db.CreateBulkRun(ctx, BulkRun{ID: fmt.Sprintf("RACE%d", i), Op: "op", InputPath: "/x", InputSHA256: "same",
					Settings: "{}", TotalRows: 1, State: BulkRunning, CreatedAt: t0}, nil)
			}()
		}
		created := 0
		for range 4 {
			err := <-errs
			var ue *UnfinishedBulkRunError
			switch {
			case err == nil:
				created++
			case !errors.As(err, &ue):
				t.Errorf("CreateBulkRun = %v, want nil or *UnfinishedBulkRunError", err)
			}
		}
		if created != 1 {
			t.Errorf("%d runs created, want 1", created)
		}
	})
}

// A claim takes rows queued for a first call and rows returned to unsent
// (a re-send) together, in line order, each once: the claim reads each
// state's first rows from the index, not the whole run.
func TestClaimBulkRowsTakesQueuedAndUnsentInLineOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		sharedRun(t, db, "MIX", 10) // lines 2–11
		claim := func(w BulkLease, n int) []BulkClaimed {
			t.Helper()
			c, hold, err := db.ClaimBulkRows(ctx, BulkClaim{Worker: w, N: n, At: t0})
			if err != nil || hold != "" {
				t.Fatalf("ClaimBulkRows(%s, %d) = %v, %q, %v", w.Holder, n, c, hold, err)
			}
			return c
		}
		a, b := worker("A", "MIX"), worker("B", "MIX")
		if c := claim(a, 6); fmt.Sprint(lines(c)) != "[2 3 4 5 6 7]" {
			t.Fatalf("A's claim = %v; want lines 2–7", lines(c))
		}
		// Lines 3 and 6 found never executed: back to unsent, to be sent again.
		if _, err := db.Exec(`UPDATE bulk_rows SET state = ?, worker = '' WHERE run_id = 'MIX' AND line IN (3, 6)`, BulkUnsent); err != nil {
			t.Fatal(err)
		}
		c := claim(b, 4)
		attempts := map[int]int{}
		for _, r := range c {
			attempts[r.Line] = r.Attempt
		}
		if fmt.Sprint(lines(c)) != "[3 6 8 9]" || attempts[3] != 2 || attempts[6] != 2 || attempts[8] != 1 {
			t.Fatalf("B's claim = %+v; want lines 3 and 6 (second attempts), then 8 and 9", c)
		}
		if c := claim(a, 5); fmt.Sprint(lines(c)) != "[10 11]" {
			t.Fatalf("A's last claim = %v; want lines 10 and 11", lines(c))
		}
		if c := claim(b, 5); len(c) != 0 {
			t.Fatalf("claim of a run with no row left = %v; want none", lines(c))
		}
	})
}
