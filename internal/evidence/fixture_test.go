package evidence_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// eachBackend runs fn on a fresh database of each backend: SQLite, and
// PostgreSQL when the tests have one (scripts/pg-test.sh).
func eachBackend(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, newFixture(t, filepath.Join(t.TempDir(), "e.db"))) })
	t.Run("postgres", func(t *testing.T) { fn(t, newFixture(t, pgtest.NewDatabase(t))) })
}

// fixture is a database in which runs are written row by row, as the
// check would leave them, and a clock that moves a night at a time.
type fixture struct {
	t   *testing.T
	ctx context.Context
	db  *store.DB
	now time.Time
}

func newFixture(t *testing.T, dsn string) *fixture {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &fixture{t: t, ctx: context.Background(), db: db, now: time.Date(2026, 11, 2, 2, 30, 0, 0, recon.IST)}
}

func (f *fixture) exec(q string, args ...any) {
	f.t.Helper()
	if _, err := f.db.ExecContext(f.ctx, q, args...); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
}

// verifyClean wants the history's verification to find nothing different.
func (f *fixture) verifyClean() {
	f.t.Helper()
	var v evidence.Verification
	if err := evidence.VerifyChain(f.ctx, f.db, &v); err != nil {
		f.t.Fatal(err)
	}
	for _, l := range v.Lines {
		if !l.OK && !l.Skipped {
			f.t.Errorf("verify: %s: %s", l.What, l.Note)
		}
	}
}

// day makes day d of the statement complete: a record, its walk done,
// and a client's call logged the day after (the call logs cover it).
func (f *fixture) day(d string) {
	f.t.Helper()
	f.record(recon.Statement, "SO"+d, d+" 10:00:00", "DR", "1.50")
	f.exec(`INSERT INTO sync_windows (kind, account, day, state, updated_at) VALUES ('statement', 'ACC', ?, 'done', 'x')`, d)
	next, _ := time.Parse(recon.DateLayout, d)
	f.call("cover-"+d, next.AddDate(0, 0, 1).Format(recon.DateLayout)+" 00:00:01")
}

// record stores a statement or collect-order record as a sync does
// (inserted, or changed in place).
func (f *fixture) record(k recon.Kind, svc, ts, mode, amount string) {
	f.t.Helper()
	r := recon.Record{Kind: k, Account: "ACC", SvcOrderID: svc}
	r.Values[recon.FTxnDateTime], r.Values[recon.FTxnDate], r.Values[recon.FTxnMode] = ts, ts[:10], mode
	r.Values[recon.FTxnChargedValue] = amount
	if _, _, err := f.db.WriteRecords(f.ctx, f.now, []store.RecordPage{{Records: []recon.Record{r}}}); err != nil {
		f.t.Fatal(err)
	}
}

// call stores a client's call (from standard input: kept in the database),
// its line hash as the store keeps one (32 bytes).
func (f *fixture) call(ref, ts string) {
	f.t.Helper()
	hash := sha256.Sum256([]byte("h-" + ref))
	f.exec(`INSERT INTO calls (line_hash, source, ts, external_ref, outcome, imported_at, line_block)
		VALUES (?, '-', ?, ?, 'failed', 'x', 1)`, hash[:], ts, ref)
}

// finding is a row of a run: a matching outcome (callOnly, statementOnly
// …), a break (gap, arithmetic) or an unsettled order.
type finding struct{ kind, ref, svc, ts string }

// run stores a run of from..to with findings, as the check would, and
// records its evidence a night later than the last.
func (f *fixture) run(from, to string, fs ...finding) (int64, *evidence.Result) {
	f.t.Helper()
	id := f.insertRun(from, to, fs...)
	return id, f.evidence(f.db, id)
}

// insertRun stores a run of from..to with findings, as the check would,
// without its evidence.
func (f *fixture) insertRun(from, to string, fs ...finding) int64 {
	f.t.Helper()
	var id int64
	if err := f.db.QueryRowContext(f.ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, finished_at,
		state) VALUES (?, ?, ?, 'x', 'x', 'ok') RETURNING id`, from, to, to).Scan(&id); err != nil {
		f.t.Fatal(err)
	}
	for _, x := range fs {
		switch x.kind {
		case recon.BreakGap, recon.BreakArithmetic:
			f.exec(`INSERT INTO recon_breaks (run_id, pool_account, kind, ts, external_ref, expected, actual, delta)
				VALUES (?, 'POOL', ?, ?, ?, '10.00', '0.00', '10.00')`, id, x.kind, x.ts, x.ref)
		case evidence.KindUnsettled:
			f.exec(`INSERT INTO recon_unsettled (run_id, svc_order_id, txn_date_time, amount, age_days, age_bucket)
				VALUES (?, ?, ?, '100.00', 3, '2-3')`, id, x.svc, x.ts)
		default:
			f.exec(`INSERT INTO recon_matches (run_id, outcome, svc_order_id, external_ref, operation, ts, call_amount)
				VALUES (?, ?, ?, ?, 'panDin', ?, '2.95')`, id, x.kind, x.svc, x.ref, x.ts)
		}
	}
	return id
}

// evidence records run id's evidence through db, a night later than the
// last.
func (f *fixture) evidence(db evidence.Store, id int64) *evidence.Result {
	f.t.Helper()
	return f.evidenceWith(db, id, nil)
}

// evidenceWith records run id's evidence as evidence does, with the inputs
// pre read beside the check (nil: none).
func (f *fixture) evidenceWith(db evidence.Store, id int64, pre *evidence.Prefetched) *evidence.Result {
	f.t.Helper()
	f.now = f.now.AddDate(0, 0, 1)
	res, err := evidence.Record(f.ctx, db, evidence.Check{RunID: id, Findings: "Not reconciled: something",
		Settings: evidence.Settings{PairWindow: "10m0s"}, Now: func() time.Time { return f.now }, Version: "svcrecon test",
		Inputs: pre})
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// exception returns the exception of kind and key.
func (f *fixture) exception(kind, key string) evidence.Exception {
	f.t.Helper()
	for e, err := range f.db.Exceptions(f.ctx) {
		if err != nil {
			f.t.Fatal(err)
		}
		if e.Kind == kind && e.Key == key {
			return e
		}
	}
	f.t.Fatalf("no exception %s %s", kind, key)
	return evidence.Exception{}
}

// actions lists the actions of an exception's events, "by:action".
func (f *fixture) actions(id string) []string {
	f.t.Helper()
	var out []string
	for e, err := range f.db.Events(f.ctx, evidence.EventFilter{ExceptionID: id}) {
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s:%s", e.By, e.Action))
	}
	return out
}
