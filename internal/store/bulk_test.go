package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

var t0 = time.Date(2026, 11, 21, 4, 45, 0, 0, time.UTC)

func TestBulkRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if r, err := db.BulkRun(ctx, "NOPE2"); r != nil || err != nil {
			t.Fatalf("BulkRun(unknown) = %v, %v; want nil, nil", r, err)
		}
		a := BulkRun{ID: "AAAAA", Op: "verifyPanPlusV2", InputPath: "/in.csv", InputSHA256: "s1", Settings: `{"concurrency":4}`,
			TotalRows: 3, State: BulkRunning, CreatedAt: t0}
		b := a
		b.ID, b.InputSHA256 = "BBBBB", "s2"
		for _, r := range []BulkRun{a, b} {
			if err := db.CreateBulkRun(ctx, r, nil); err != nil {
				t.Fatal(err)
			}
		}
		taken := a
		taken.InputSHA256 = "s3"
		if err := db.CreateBulkRun(ctx, taken, nil); err == nil {
			t.Error("CreateBulkRun with a taken id = nil, want an error")
		}
		// A second run of the same op and input while one is unfinished: the
		// race of two processes starting the same file.
		twin := a
		twin.ID = "CCCCC"
		var ue *UnfinishedBulkRunError
		if err := db.CreateBulkRun(ctx, twin, nil); !errors.As(err, &ue) || ue.ID != "AAAAA" {
			t.Errorf("CreateBulkRun(twin of unfinished AAAAA) = %v, want *UnfinishedBulkRunError naming AAAAA", err)
		}
		if ok, err := db.BulkRunExists(ctx, "AAAAA"); !ok || err != nil {
			t.Errorf("BulkRunExists(AAAAA) = %v, %v", ok, err)
		}
		got, err := db.BulkRun(ctx, "AAAAA")
		if err != nil || got.Settings != a.Settings || !got.CreatedAt.Equal(t0) || !got.UpdatedAt.Equal(t0) || got.TotalRows != 3 {
			t.Errorf("BulkRun(AAAAA) = %+v, %v", got, err)
		}
		// Same created_at: the later insert is the newer.
		if r, err := db.LatestBulkRunOfPath(ctx, "verifyPanPlusV2", "/in.csv"); err != nil || r.ID != "BBBBB" {
			t.Errorf("LatestBulkRunOfPath = %+v, %v; want BBBBB", r, err)
		}
		if r, err := db.LatestBulkRun(ctx, "verifyPanPlusV2", "s1"); err != nil || r.ID != "AAAAA" {
			t.Errorf("LatestBulkRun(s1) = %+v, %v; want AAAAA", r, err)
		}
		if r, err := db.LatestBulkRun(ctx, "litigation", "s1"); err != nil || r != nil {
			t.Errorf("LatestBulkRun(other op) = %+v, %v; want nil", r, err)
		}
		if rs, err := db.BulkRuns(ctx, 10); err != nil || len(rs) != 2 || rs[0].ID != "BBBBB" {
			t.Errorf("BulkRuns = %+v, %v", rs, err)
		}

		t1 := t0.Add(time.Hour)
		if err := db.ReopenBulkRun(ctx, "AAAAA", t1); err != nil {
			t.Fatal(err)
		}
		if r, _ := db.BulkRun(ctx, "AAAAA"); r.State != BulkRunning {
			t.Errorf("ReopenBulkRun of a running run: state %s, want it left running", r.State)
		}
		if err := db.SetBulkRunState(ctx, "AAAAA", BulkDone, t1); err != nil {
			t.Fatal(err)
		}
		if err := db.ReopenBulkRun(ctx, "AAAAA", t1.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := db.SetBulkRunSettings(ctx, "AAAAA", `{}`, t1.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		r, err := db.BulkRun(ctx, "AAAAA")
		if err != nil || r.State != BulkStopped || r.Settings != `{}` || !r.UpdatedAt.Equal(t1.Add(2*time.Minute)) {
			t.Errorf("after done, reopen, settings: %+v, %v", r, err)
		}
	})
}

func TestBulkRowJournal(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.CreateBulkRun(ctx, BulkRun{ID: "RUN22", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
			TotalRows: 3, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
			t.Fatal(err)
		}
		claim := func(line int, ref string, at time.Time) int {
			t.Helper()
			n, err := db.ClaimBulkRow(ctx, "RUN22", line, ref, at)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		row := func(line int) BulkRow {
			t.Helper()
			var out BulkRow
			if err := db.EachBulkRow(ctx, "RUN22", func(r BulkRow) error {
				if r.Line == line {
					out = r
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if n := claim(2, "R2", t0); n != 1 {
			t.Fatalf("first claim = %d, want 1", n)
		}
		if n := claim(2, "R2", t0); n != 0 {
			t.Fatalf("claim of a sending row = %d, want 0", n)
		}
		if n := claim(3, "R3", t0.Add(10*time.Minute)); n != 1 {
			t.Fatalf("claim line 3 = %d, want 1", n)
		}
		if err := db.FinishBulkRow(ctx, "RUN22", BulkRow{Line: 3, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.80",
			Response: []byte(`{"statuscode":"TXN"}`)}, t0); err != nil {
			t.Fatal(err)
		}
		if r := row(3); r.State != BulkSuccess || r.PoolAmount != "1.80" || string(r.Response) != `{"statuscode":"TXN"}` || r.Attempts != 1 {
			t.Errorf("finished row = %+v", r)
		}
		// Line 2's process died: pending; its look-up says never executed.
		if n, err := db.PendSendingBulkRows(ctx, "RUN22", "died"); n != 1 || err != nil {
			t.Fatalf("PendSendingBulkRows = %d, %v; want 1", n, err)
		}
		var toCheck []int
		if err := db.EachBulkRowToCheck(ctx, "RUN22", t0, func(r BulkRow) error { toCheck = append(toCheck, r.Line); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(toCheck) != 1 || toCheck[0] != 2 {
			t.Errorf("rows to check = %v, want [2]", toCheck)
		}
		if err := db.ResolveBulkRow(ctx, "RUN22", BulkSending, BulkRow{Line: 2, State: BulkFailed}, t0); err != nil {
			t.Fatal(err)
		}
		if r := row(2); r.State != BulkPending || r.Error != "died" {
			t.Errorf("ResolveBulkRow from another state changed the row: %+v", r)
		}
		if err := db.ResolveBulkRow(ctx, "RUN22", BulkPending, BulkRow{Line: 2, State: BulkUnsent, StatusCode: "SNA", Error: "not executed"}, t0); err != nil {
			t.Fatal(err)
		}
		if n := claim(2, "OTHER", t0); n != 0 {
			t.Errorf("claim of an unsent row with another ref = %d, want 0", n)
		}
		if n := claim(2, "R2", t0.Add(time.Hour)); n != 2 {
			t.Fatalf("re-claim of an unsent row = %d, want 2", n)
		}
		if err := db.UnclaimBulkRow(ctx, "RUN22", 2); err != nil {
			t.Fatal(err)
		}
		if r := row(2); r.State != BulkUnsent || r.Attempts != 1 {
			t.Errorf("unclaimed re-send = %+v, want unsent with 1 attempt", r)
		}
		if n := claim(1, "R1", t0); n != 1 {
			t.Fatal("claim line 1")
		}
		if err := db.UnclaimBulkRow(ctx, "RUN22", 1); err != nil {
			t.Fatal(err)
		}
		states := map[string]int{}
		if err := db.EachBulkRowState(ctx, "RUN22", func(s, _ string) error { states[s]++; return nil }); err != nil {
			t.Fatal(err)
		}
		if len(states) != 2 || states[BulkSuccess] != 1 || states[BulkUnsent] != 1 {
			t.Errorf("states = %v, want one success and one unsent (line 1 unclaimed away)", states)
		}
	})
}

func TestBatchCommitsEveryWriteBeforeDoReturns(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if _, err := db.Exec(`CREATE TABLE batch_t (n INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		b := NewBatch(db, 8)
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := b.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `INSERT INTO batch_t (n) VALUES (?)`, i)
					return err
				})
				if err != nil {
					t.Errorf("Do(%d) = %v", i, err)
				}
				// Committed before Do returns.
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM batch_t WHERE n = ?`, i).Scan(&n); err != nil || n != 1 {
					t.Errorf("row %d after Do: count %d, %v", i, n, err)
				}
			}()
		}
		wg.Wait()
		boom := errors.New("boom")
		if err := b.Do(ctx, func(context.Context, *sql.Tx) error { return boom }); !errors.Is(err, boom) {
			t.Errorf("Do(failing write) = %v, want boom", err)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM batch_t`).Scan(&n); err != nil || n != 200 {
			t.Errorf("count = %d, %v; want 200", n, err)
		}
	})
}

func TestBulkLease(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		first := BulkLease{Holder: "h1:10:a", Host: "h1", PID: 10, Since: t0, Heartbeat: t0}
		if err := db.CreateBulkRun(ctx, BulkRun{ID: "LEASE", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
			TotalRows: 1, State: BulkRunning, CreatedAt: t0}, &first); err != nil {
			t.Fatal(err)
		}
		got, err := db.BulkRunLease(ctx, "LEASE")
		if err != nil || got == nil || got.Holder != "h1:10:a" || got.Host != "h1" || got.PID != 10 || !got.Since.Equal(t0) {
			t.Fatalf("BulkRunLease after CreateBulkRun with a lease = %+v, %v", got, err)
		}

		// Another holder is refused while stale says no, and stale sees the
		// holder as stored.
		second := BulkLease{RunID: "LEASE", Holder: "h2:20:b", Host: "h2", PID: 20, Since: t0.Add(time.Minute), Heartbeat: t0.Add(time.Minute)}
		var asked BulkLease
		ok, other, err := db.AcquireBulkLease(ctx, second, func(l BulkLease) bool { asked = l; return false })
		if err != nil || ok || other == nil || other.Holder != "h1:10:a" || asked.PID != 10 {
			t.Fatalf("AcquireBulkLease(held, not stale) = %v, %+v, %v; want refused, naming h1:10:a", ok, other, err)
		}
		if ok, err := db.RenewBulkLease(ctx, "LEASE", "h2:20:b", t0.Add(2*time.Minute)); ok || err != nil {
			t.Errorf("RenewBulkLease by a non-holder = %v, %v; want false", ok, err)
		}
		beat := t0.Add(90 * time.Second)
		if ok, err := db.RenewBulkLease(ctx, "LEASE", "h1:10:a", beat); !ok || err != nil {
			t.Errorf("RenewBulkLease by the holder = %v, %v; want true", ok, err)
		}
		if l, _ := db.BulkRunLease(ctx, "LEASE"); !l.Heartbeat.Equal(beat) {
			t.Errorf("heartbeat = %v, want %v", l.Heartbeat, beat)
		}

		// A stale lease is taken over; the old holder then loses its renewals
		// and its release does nothing.
		ok, other, err = db.AcquireBulkLease(ctx, second, func(BulkLease) bool { return true })
		if err != nil || !ok || other == nil || other.Holder != "h1:10:a" {
			t.Fatalf("AcquireBulkLease(stale) = %v, %+v, %v; want taken over from h1:10:a", ok, other, err)
		}
		if ok, _ := db.RenewBulkLease(ctx, "LEASE", "h1:10:a", beat); ok {
			t.Error("the holder taken over still renews")
		}
		if err := db.ReleaseBulkLease(ctx, "LEASE", "h1:10:a"); err != nil {
			t.Fatal(err)
		}
		if l, _ := db.BulkRunLease(ctx, "LEASE"); l == nil || l.Holder != "h2:20:b" {
			t.Errorf("after the old holder's release: lease %+v, want h2:20:b's", l)
		}
		// The holder itself acquires again, keeping its since.
		again := second
		again.Since = t0.Add(time.Hour)
		if ok, other, err := db.AcquireBulkLease(ctx, again, func(BulkLease) bool { t.Error("stale asked about the holder itself"); return false }); !ok || other != nil || err != nil {
			t.Errorf("AcquireBulkLease by the holder = %v, %+v, %v", ok, other, err)
		}
		if l, _ := db.BulkRunLease(ctx, "LEASE"); !l.Since.Equal(second.Since) {
			t.Errorf("since = %v, want the first acquisition's %v", l.Since, second.Since)
		}
		if err := db.ReleaseBulkLease(ctx, "LEASE", "h2:20:b"); err != nil {
			t.Fatal(err)
		}
		if l, err := db.BulkRunLease(ctx, "LEASE"); l != nil || err != nil {
			t.Errorf("after release: %+v, %v; want no lease", l, err)
		}
	})
}

// The debits of steps committed together (many senders at once share a
// batch's transaction) are summed and stored once: the run's totals are
// those of every successful row, exactly, on both backends.
func TestStepBulkRowsDebitsOfABatch(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		const n = 40
		if err := db.CreateBulkRun(ctx, BulkRun{ID: "DEB1", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
			TotalRows: n, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
			t.Fatal(err)
		}
		for line := 1; line <= n; line++ {
			if _, err := db.ClaimBulkRow(ctx, "DEB1", line, fmt.Sprintf("D%d", line), t0); err != nil {
				t.Fatal(err)
			}
		}
		want, largest, rows := decimal.Zero, decimal.Zero, 0
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for line := 1; line <= n; line++ {
			r := BulkRow{Line: line, State: BulkSuccess, PoolAmount: fmt.Sprintf("%d.%02d", line, line)}
			switch line % 10 {
			case 3:
				r.State = BulkFailed // its amount is no debit
			case 7:
				r.PoolAmount = "n/a" // left out, as CountRows leaves it out
			default:
				a := decimal.RequireFromString(r.PoolAmount)
				want, largest, rows = want.Add(a), decimal.Max(largest, a), rows+1
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := db.StepBulkRows(ctx, "DEB1", BulkStep{Done: &r, At: t0})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		var debited, most string
		var got int
		if err := db.QueryRow(`SELECT debited, debit_max, debit_rows FROM bulk_runs WHERE id = 'DEB1'`).Scan(&debited, &most, &got); err != nil {
			t.Fatal(err)
		}
		if debited != want.String() || most != largest.String() || got != rows {
			t.Errorf("run totals = %s, largest %s, %d rows; want %s, %s, %d", debited, most, got, want, largest, rows)
		}
	})
}

// StepBulkRows journals a row's outcome, its call's records kept by
// DeferCalls and the next row's claim in one transaction; a worker's step
// records the outcome only while the row is its own, and stores the call
// all the same.
func TestStepBulkRows(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.CreateBulkRun(ctx, BulkRun{ID: "STEP1", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
			TotalRows: 3, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
			t.Fatal(err)
		}
		if _, n, err := db.StepBulkRows(ctx, "STEP1", BulkStep{Next: &BulkNext{Line: 2, Ref: "R2"}, At: t0}); n != 1 || err != nil {
			t.Fatalf("claim of line 2 = %d, %v; want 1", n, err)
		}
		dctx, calls := DeferCalls(ctx)
		if DeferredCallsOf(dctx) != calls || DeferredCallsOf(ctx) != nil {
			t.Fatal("DeferredCallsOf does not find the deferred calls of its context alone")
		}
		made := 0
		calls.Defer(t0, func() ([]recon.Call, []ImportError) {
			made++
			return []recon.Call{{Hash: testHash("h2"), Source: "svcrecon", TS: "2026-11-21 10:00:01", Operation: "op", ExternalRef: "R2",
				Outcome: recon.CallSuccess, Block: &recon.LineBlock{Data: []byte("x")}}}, nil
		})
		done := BulkRow{Line: 2, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.50"}
		recorded, n, err := db.StepBulkRows(ctx, "STEP1", BulkStep{Done: &done, Calls: calls, Next: &BulkNext{Line: 3, Ref: "R3"}, At: t0})
		if !recorded || n != 1 || err != nil {
			t.Fatalf("step = %v, %d, %v; want the outcome recorded and line 3 claimed", recorded, n, err)
		}
		states := map[int]string{}
		if err := db.EachBulkRow(ctx, "STEP1", func(r BulkRow) error { states[r.Line] = r.State + r.PoolAmount; return nil }); err != nil {
			t.Fatal(err)
		}
		var stored int
		if err := db.QueryRow(`SELECT count(*) FROM calls WHERE external_ref = 'R2' AND line_block IS NOT NULL`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if states[2] != BulkSuccess+"1.50" || states[3] != BulkSending || stored != 1 || made != 1 {
			t.Errorf("after the step: rows %v, %d calls of R2 stored (made %d times); want line 2 success 1.50, line 3 sending, its call made once and stored",
				states, stored, made)
		}
		// A worker's step on a row that is not its own: not recorded.
		dctx, calls = DeferCalls(ctx)
		calls.Defer(t0, func() ([]recon.Call, []ImportError) {
			return []recon.Call{{Hash: testHash("h3"), Source: "svcrecon", TS: "2026-11-21 10:00:02", Operation: "op", ExternalRef: "R3",
				Outcome: recon.CallSuccess}}, nil
		})
		done = BulkRow{Line: 3, State: BulkSuccess, PoolAmount: "2.00"}
		if recorded, _, err := db.StepBulkRows(dctx, "STEP1", BulkStep{Done: &done, Worker: "W", Calls: calls, At: t0}); recorded || err != nil {
			t.Fatalf("worker W's step on a row not its own = %v, %v; want not recorded", recorded, err)
		}
		if err := db.QueryRow(`SELECT count(*) FROM calls WHERE external_ref = 'R3'`).Scan(&stored); err != nil || stored != 1 {
			t.Errorf("calls of R3 = %d, %v; want 1 (the call was made)", stored, err)
		}
		// Line 2's debit alone, as decimal text: the row not W's added none.
		var debited, most string
		var rows int
		if err := db.QueryRow(`SELECT debited, debit_max, debit_rows FROM bulk_runs WHERE id = 'STEP1'`).Scan(&debited, &most, &rows); err != nil {
			t.Fatal(err)
		}
		if debited != "1.5" || most != "1.5" || rows != 1 {
			t.Errorf("run's debits = %q, largest %q, %d rows; want 1.5, 1.5, 1 (line 2's)", debited, most, rows)
		}
	})
}

// failInsertOfLine makes every INSERT of journal line `line` fail with
// "injected" (a trigger), standing for a write that fails, or a process
// that dies, inside StepBulkRows's transaction after the outcome is
// written; the returned func removes it.
func failInsertOfLine(t *testing.T, db *DB, dsn string, line int) func() {
	t.Helper()
	create := []string{fmt.Sprintf(`CREATE TRIGGER step_fail BEFORE INSERT ON bulk_rows WHEN NEW.line = %d
		BEGIN SELECT RAISE(ABORT, 'injected'); END`, line)}
	drop := []string{`DROP TRIGGER step_fail`}
	if strings.HasPrefix(dsn, "postgres") {
		create = []string{fmt.Sprintf(`CREATE FUNCTION step_fail() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN IF NEW.line = %d THEN RAISE EXCEPTION 'injected'; END IF; RETURN NEW; END $$`, line),
			`CREATE TRIGGER step_fail BEFORE INSERT ON bulk_rows FOR EACH ROW EXECUTE FUNCTION step_fail()`}
		drop = []string{`DROP TRIGGER step_fail ON bulk_rows`, `DROP FUNCTION step_fail()`}
	}
	for _, q := range create {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for _, q := range drop {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// stepState is what the journal of run STEP2 holds: each row's state and
// pool amount, the run's debits, and how many calls of R1 and R2 the calls
// table has.
func stepState(t *testing.T, db *DB) (rows map[int]string, debited string, calls int) {
	t.Helper()
	rows = map[int]string{}
	if err := db.EachBulkRow(context.Background(), "STEP2", func(r BulkRow) error {
		rows[r.Line] = r.State + " " + r.PoolAmount
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT debited FROM bulk_runs WHERE id = 'STEP2'`).Scan(&debited); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM calls WHERE external_ref IN ('R1', 'R2')`).Scan(&calls); err != nil {
		t.Fatal(err)
	}
	return rows, debited, calls
}

// deferredCall is the calls table's record of the call of ref, kept as
// DeferCalls keeps it.
func deferredCall(ref string) *DeferredCalls {
	_, d := DeferCalls(context.Background())
	d.Defer(t0, func() ([]recon.Call, []ImportError) {
		return []recon.Call{{Hash: testHash("h" + ref), Source: "svcrecon", TS: "2026-11-21 10:00:01", Operation: "op", ExternalRef: ref,
			Outcome: recon.CallSuccess, Block: &recon.LineBlock{Data: []byte(ref)}}}, nil
	})
	return d
}

// A step is one transaction: when it fails after the outcome of line 1 is
// written (the claim of line 2 fails), nothing of it stays — line 1 is
// still 'sending' with no outcome, no debit and no call recorded, line 2
// is not journaled — as when the process dies before the commit. Either
// way the database, opened again as a resume would, is resumable and sends
// nothing twice: the row whose outcome is unknown is swept to pending (a
// look-up, never a second call) and cannot be claimed again; the next row
// is claimed once.
func TestStepBulkRowsCommitsAllOrNothing(t *testing.T) {
	eachBackendURL(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openURL(t, dsn)
		if err := db.CreateBulkRun(ctx, BulkRun{ID: "STEP2", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
			TotalRows: 3, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
			t.Fatal(err)
		}
		if n, err := db.ClaimBulkRow(ctx, "STEP2", 1, "R1", t0); n != 1 || err != nil {
			t.Fatalf("claim of line 1 = %d, %v; want 1", n, err)
		}
		_, debited0, _ := stepState(t, db)
		unfail := failInsertOfLine(t, db, dsn, 2)
		done := BulkRow{Line: 1, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.50"}
		_, _, err := db.StepBulkRows(ctx, "STEP2", BulkStep{Done: &done, Calls: deferredCall("R1"), Next: &BulkNext{Line: 2, Ref: "R2"}, At: t0})
		if err == nil || !strings.Contains(err.Error(), "injected") {
			t.Fatalf("step with the claim of line 2 failing = %v; want the injected error", err)
		}
		rows, debited, calls := stepState(t, db)
		if len(rows) != 1 || rows[1] != BulkSending+" " || debited != debited0 || calls != 0 {
			t.Errorf("after the failed step: rows %v, debited %q (was %q), %d calls; want line 1 alone, still sending, nothing recorded",
				rows, debited, debited0, calls)
		}
		unfail()
		db.Close() // the process is gone

		db = openURL(t, dsn) // the resume
		sw, err := db.SweepBulkRun(ctx, "STEP2", func(BulkLease) bool { return true }, "died sending")
		if err != nil || sw.Pended != 1 || !sw.Interrupted {
			t.Fatalf("sweep = %+v, %v; want line 1 pended and the run interrupted", sw, err)
		}
		var check []int
		if err := db.EachBulkRowToCheck(ctx, "STEP2", t0, func(r BulkRow) error { check = append(check, r.Line); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(check) != 1 || check[0] != 1 {
			t.Errorf("rows to look up = %v; want line 1", check)
		}
		if n, err := db.ClaimBulkRow(ctx, "STEP2", 1, "R1", t0); n != 0 || err != nil {
			t.Errorf("claim of line 1 (outcome unknown) after the resume = %d, %v; want 0: never sent twice", n, err)
		}

		// The step committed, then the process died during the next call:
		// line 2's outcome is kept, line 3 is 'sending', and neither is
		// sent again.
		if n, err := db.ClaimBulkRow(ctx, "STEP2", 2, "R2", t0); n != 1 || err != nil {
			t.Fatalf("claim of line 2 after the resume = %d, %v; want 1", n, err)
		}
		done = BulkRow{Line: 2, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "2.25"}
		if _, n, err := db.StepBulkRows(ctx, "STEP2", BulkStep{Done: &done, Calls: deferredCall("R2"), Next: &BulkNext{Line: 3, Ref: "R3"}, At: t0}); n != 1 || err != nil {
			t.Fatalf("step of lines 2 and 3 = %d, %v; want line 3 claimed", n, err)
		}
		db.Close()
		db = openURL(t, dsn)
		rows, debited, calls = stepState(t, db)
		if rows[2] != BulkSuccess+" 2.25" || rows[3] != BulkSending+" " || debited != "2.25" || calls != 1 {
			t.Errorf("after the committed step: rows %v, debited %q, %d calls; want line 2 success 2.25 with its call and debit, line 3 sending",
				rows, debited, calls)
		}
		for _, r := range []BulkNext{{2, "R2"}, {3, "R3"}} {
			if n, err := db.ClaimBulkRow(ctx, "STEP2", r.Line, r.Ref, t0); n != 0 || err != nil {
				t.Errorf("claim of line %d after the crash = %d, %v; want 0: never sent twice", r.Line, n, err)
			}
		}
	})
}

// Two processes' senders stepping through the same lines at once (each
// journaling its last outcome with its next claim, as bulkrun's senders
// do): every line is claimed, and so called, by exactly one of them.
func TestStepBulkRowsClaimsEachRowOnce(t *testing.T) {
	eachBackendURL(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		const lines, senders = 120, 3
		dbs := []*DB{openURL(t, dsn), openURL(t, dsn)}
		if err := dbs[0].CreateBulkRun(ctx, BulkRun{ID: "STEP3", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
			TotalRows: lines, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		claims := map[int]int{}
		var wg sync.WaitGroup
		errs := make(chan error, len(dbs)*senders)
		for _, db := range dbs {
			for range senders {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var last *BulkRow
					for i := range lines {
						line := 1 + i // every sender in the same order: they race for each line
						step := BulkStep{Done: last, Next: &BulkNext{Line: line, Ref: fmt.Sprintf("R%d", line)}, At: t0}
						_, attempt, err := db.StepBulkRows(ctx, "STEP3", step)
						if err != nil {
							errs <- err
							return
						}
						last = nil
						if attempt > 0 {
							mu.Lock()
							claims[line]++
							mu.Unlock()
							last = &BulkRow{Line: line, State: BulkFailed, StatusCode: "IAN"}
						}
					}
					if last != nil {
						if _, _, err := db.StepBulkRows(ctx, "STEP3", BulkStep{Done: last, At: t0}); err != nil {
							errs <- err
						}
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for line := 1; line <= lines; line++ {
			if claims[line] != 1 {
				t.Errorf("line %d claimed %d times, want 1", line, claims[line])
			}
		}
		ended := 0
		if err := dbs[0].EachBulkRow(ctx, "STEP3", func(r BulkRow) error {
			if r.State == BulkFailed {
				ended++
			}
			return nil
		}); err != nil || ended != lines {
			t.Errorf("%d rows with their outcome journaled (%v); want %d", ended, err, lines)
		}
	})
}

// A step PostgreSQL aborts for a deadlock (two workers' batches claiming
// the same rows in another order) is run again, whole: line 1's outcome,
// its call with the line block it points to, and the claim of line 2, all
// once.
func TestStepBulkRowsAbortedIsRunAgain(t *testing.T) {
	dsn := pgtest.NewDatabase(t) // SQLite has one writer: nothing to abort
	ctx := context.Background()
	db := openURL(t, dsn)
	if err := db.CreateBulkRun(ctx, BulkRun{ID: "STEP2", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
		TotalRows: 2, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ClaimBulkRow(ctx, "STEP2", 1, "R1", t0); n != 1 || err != nil {
		t.Fatalf("claim of line 1 = %d, %v; want 1", n, err)
	}
	// The first insert of line 2 is aborted as a deadlock; a sequence,
	// which no rollback resets, counts the attempts.
	for _, q := range []string{`CREATE SEQUENCE step_tries`,
		`CREATE FUNCTION step_abort() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN IF NEW.line = 2 AND nextval('step_tries') = 1 THEN
				RAISE EXCEPTION 'injected deadlock' USING ERRCODE = '40P01'; END IF; RETURN NEW; END $$`,
		`CREATE TRIGGER step_abort BEFORE INSERT ON bulk_rows FOR EACH ROW EXECUTE FUNCTION step_abort()`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	done := BulkRow{Line: 1, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.50"}
	if _, n, err := db.StepBulkRows(ctx, "STEP2", BulkStep{Done: &done, Calls: deferredCall("R1"), Next: &BulkNext{Line: 2, Ref: "R2"}, At: t0}); n != 1 || err != nil {
		t.Fatalf("step aborted once = %d, %v; want line 2 claimed (run again)", n, err)
	}
	var tries int
	if err := db.QueryRow(`SELECT last_value FROM step_tries`).Scan(&tries); err != nil || tries != 2 {
		t.Errorf("line 2 inserted %d times (%v); want 2: aborted, then run again", tries, err)
	}
	rows, debited, calls := stepState(t, db)
	if rows[1] != BulkSuccess+" 1.50" || rows[2] != BulkSending+" " || debited != "1.5" || calls != 1 {
		t.Errorf("after the step: rows %v, debited %q, %d calls; want line 1 success 1.50 once, line 2 sending", rows, debited, calls)
	}
	var orphans int
	if err := db.QueryRow(`SELECT count(*) FROM calls c LEFT JOIN call_blocks b ON b.id = c.line_block
		WHERE c.external_ref = 'R1' AND b.id IS NULL`).Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("%d calls of R1 without their line block (%v); want 0", orphans, err)
	}
}

// The pool accounts of a bulk run's calls (call_accounts, which the check
// reads) are noted with each call's step, and a (account, day) known to be
// stored is not noted again: known only once the step that noted it is
// committed. A step rolled back leaves the pair to the next step, which
// notes it; a new day is noted.
func TestStepBulkRowsNotesPoolAccounts(t *testing.T) {
	eachBackendURL(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openURL(t, dsn)
		if err := db.CreateBulkRun(ctx, BulkRun{ID: "ACCT1", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
			TotalRows: 4, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
			t.Fatal(err)
		}
		call := func(ref, ts string) *DeferredCalls {
			_, d := DeferCalls(ctx)
			d.Defer(t0, func() ([]recon.Call, []ImportError) {
				return []recon.Call{{Hash: testHash("h" + ref), Source: "svcrecon", TS: ts, Operation: "op", ExternalRef: ref,
					Outcome: recon.CallSuccess, Pool: recon.PoolEntry{Account: "POOL-A", Shape: "flat", Amount: "1.50"},
					Block: &recon.LineBlock{Data: []byte(ref)}}}, nil
			})
			return d
		}
		// accounts is what the check reads of day's pool accounts.
		accounts := func(day string) string {
			t.Helper()
			got, err := db.CheckPoolAccounts(ctx, ledger.Window{From: day + " 00:00:00", To: day + " 23:59:59"})
			if err != nil {
				t.Fatal(err)
			}
			return strings.Join(got, ",")
		}
		if n, err := db.ClaimBulkRow(ctx, "ACCT1", 1, "R1", t0); n != 1 || err != nil {
			t.Fatalf("claim of line 1 = %d, %v", n, err)
		}
		done := BulkRow{Line: 1, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.50"}
		unfail := failInsertOfLine(t, db, dsn, 2)
		if _, _, err := db.StepBulkRows(ctx, "ACCT1", BulkStep{Done: &done, Calls: call("R1", "2026-11-21 10:00:01"),
			Next: &BulkNext{Line: 2, Ref: "R2"}, At: t0}); err == nil {
			t.Fatal("step with the claim of line 2 failing succeeded")
		}
		if got := accounts("2026-11-21"); got != "" {
			t.Errorf("pool accounts of 2026-11-21 after the rolled-back step = %q; want none", got)
		}
		unfail()
		if _, _, err := db.StepBulkRows(ctx, "ACCT1", BulkStep{Done: &done, Calls: call("R1", "2026-11-21 10:00:01"),
			Next: &BulkNext{Line: 2, Ref: "R2"}, At: t0}); err != nil {
			t.Fatal(err)
		}
		done = BulkRow{Line: 2, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.50"}
		if _, _, err := db.StepBulkRows(ctx, "ACCT1", BulkStep{Done: &done, Calls: call("R2", "2026-11-21 23:59:59"),
			Next: &BulkNext{Line: 3, Ref: "R3"}, At: t0}); err != nil {
			t.Fatal(err)
		}
		done = BulkRow{Line: 3, State: BulkSuccess, StatusCode: "TXN", PoolAmount: "1.50"}
		if _, _, err := db.StepBulkRows(ctx, "ACCT1", BulkStep{Done: &done, Calls: call("R3", "2026-11-22 00:00:00"), At: t0}); err != nil {
			t.Fatal(err)
		}
		for _, day := range []string{"2026-11-21", "2026-11-22"} {
			if got := accounts(day); got != "POOL-A" {
				t.Errorf("pool accounts of %s = %q; want POOL-A", day, got)
			}
		}
	})
}
