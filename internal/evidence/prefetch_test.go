package evidence_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// sibling is a fresh fixture of t's backend (eachBackend), to record the
// same runs in without a prefetch.
func sibling(t *testing.T) *fixture {
	if strings.HasSuffix(t.Name(), "/postgres") {
		return newFixture(t, pgtest.NewDatabase(t))
	}
	return newFixture(t, filepath.Join(t.TempDir(), "sibling.db"))
}

// readLog is a Store that notes the long reads of the evidence step: the
// statement's records and the period's calls, each as "from..to". The
// prefetch reads from goroutines of its own.
type readLog struct {
	evidence.Store
	mu               sync.Mutex
	statement, calls []string
}

func (l *readLog) EvidenceRecords(ctx context.Context, k recon.Kind, from, to string) iter.Seq2[*recon.Record, error] {
	if k == recon.Statement {
		l.mu.Lock()
		l.statement = append(l.statement, from+".."+to)
		l.mu.Unlock()
	}
	return l.Store.EvidenceRecords(ctx, k, from, to)
}

func (l *readLog) EvidenceCalls(ctx context.Context, from, to string) iter.Seq2[evidence.CallAmount, error] {
	l.mu.Lock()
	l.calls = append(l.calls, from+".."+to)
	l.mu.Unlock()
	return l.Store.EvidenceCalls(ctx, from, to)
}

// sameManifest fails unless run id's manifest is byte for byte the same in
// both fixtures.
func sameManifest(t *testing.T, f, g *fixture, id int64) {
	t.Helper()
	a, okA, errA := f.db.Manifest(f.ctx, id)
	b, okB, errB := g.db.Manifest(g.ctx, id)
	if errA != nil || errB != nil || !okA || !okB {
		t.Fatalf("manifests of run %d: %v %v (found %v %v)", id, errA, errB, okA, okB)
	}
	if !bytes.Equal(a.JSON, b.JSON) || a.Digest != b.Digest {
		t.Errorf("run %d's manifest with the prefetch:\n%s\nwithout:\n%s", id, a.JSON, b.JSON)
	}
}

// TestPrefetchedInputsAreUsed records a run's evidence with its inputs
// prefetched and the period's calls counted by the check's read of them,
// while a second check of the period lands its evidence first (the first
// attempt is refused, ErrMoved, and computed again): the statement's
// records are read once, by the prefetch, the calls never by the evidence
// step, and the manifests are byte for byte those recorded without it.
func TestPrefetchedInputsAreUsed(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		g := sibling(t)
		gap := finding{recon.BreakGap, "RC2", "", "2026-11-01 11:00:00"}
		var a, b int64
		for _, x := range []*fixture{f, g} {
			x.day("2026-11-01")
			x.day("2026-11-02")
			a, b = x.insertRun("2026-11-01", "2026-11-02", gap), x.insertRun("2026-11-01", "2026-11-02", gap)
		}
		log := &readLog{Store: f.db}
		pre := evidence.Prefetch(f.ctx, log, "2026-11-01", "2026-11-02")
		defer pre.Stop()
		f.checkRead(pre, "2026-11-01", "2026-11-02")
		m := &meanwhile{Store: log, other: func() { f.evidence(f.db, b) }}
		f.evidenceWith(m, a, pre)
		g.evidence(&meanwhile{Store: g.db, other: func() { g.evidence(g.db, b) }}, a)

		if m.applied != 2 {
			t.Errorf("ApplyEvidence called %d times, want 2 (refused once, then applied)", m.applied)
		}
		if want := []string{"2026-11-01..2026-11-02"}; !slices.Equal(log.statement, want) || len(log.calls) != 0 {
			t.Errorf("statement records read %q, calls %q; want %q (once, by the prefetch) and no calls", log.statement, log.calls, want)
		}
		sameManifest(t, f, g, a)
		sameManifest(t, f, g, b)
	})
}

// TestPrefetchReadsAgainWhatMoved writes, after the prefetch read its
// inputs and the check's read counted the calls, and before the evidence
// step, a statement record of one day (a sync) and a call of the period
// (an import): the evidence step digests that day again, alone, and reads
// the calls to count them again, and the manifest is the one recorded
// without a prefetch after those writes.
func TestPrefetchReadsAgainWhatMoved(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		g := sibling(t)
		var id int64
		for _, x := range []*fixture{f, g} {
			x.day("2026-11-01")
			x.day("2026-11-02")
			id = x.insertRun("2026-11-01", "2026-11-02", finding{recon.CallOnly, "R1", "", "2026-11-01 09:00:00"})
		}
		late := func(x *fixture) {
			x.record(recon.Statement, "SO-late", "2026-11-01 12:00:00", "DR", "2.50")
			x.call("late", "2026-11-01 12:00:01")
		}
		log := &readLog{Store: f.db}
		pre := evidence.Prefetch(f.ctx, log, "2026-11-01", "2026-11-02")
		defer pre.Stop()
		evidence.PrefetchDone(pre)
		f.checkRead(pre, "2026-11-01", "2026-11-02")
		late(f)
		f.evidenceWith(log, id, pre)
		late(g)
		g.evidence(g.db, id)

		if want := []string{"2026-11-01..2026-11-02", "2026-11-01..2026-11-01"}; !slices.Equal(log.statement, want) {
			t.Errorf("statement records read %q, want %q (the period, then the day written)", log.statement, want)
		}
		if want := []string{"2026-11-01..2026-11-02"}; !slices.Equal(log.calls, want) {
			t.Errorf("calls read %q, want %q (once, after the check's count)", log.calls, want)
		}
		sameManifest(t, f, g, id)
	})
}

// failingCalls is a Store whose period's calls cannot be read (err).
type failingCalls struct {
	evidence.Store
	err error
}

func (s failingCalls) EvidenceCalls(ctx context.Context, from, to string) iter.Seq2[evidence.CallAmount, error] {
	return func(yield func(evidence.CallAmount, error) bool) { yield(evidence.CallAmount{}, s.err) }
}

// failingDays is a Store whose statement's records cannot be read: err at
// once, or, with block, once the read's context is done.
type failingDays struct {
	evidence.Store
	err   error
	block bool
}

func (s failingDays) EvidenceRecords(ctx context.Context, k recon.Kind, from, to string) iter.Seq2[*recon.Record, error] {
	return func(yield func(*recon.Record, error) bool) {
		if s.block {
			<-ctx.Done()
			yield(nil, ctx.Err())
			return
		}
		yield(nil, s.err)
	}
}

// TestPrefetchError checks that a prefetch that failed fails the evidence
// step with its error, that Stop ends a prefetch still reading, and that
// the calls the check's read did not count are read by the evidence step,
// its failure the step's.
func TestPrefetchError(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "e.db"))
	f.day("2026-11-01")
	id := f.insertRun("2026-11-01", "2026-11-01")
	boom := errors.New("the disk is gone")
	pre := evidence.Prefetch(f.ctx, failingDays{Store: f.db, err: boom}, "2026-11-01", "2026-11-01")
	defer pre.Stop()
	_, err := evidence.Record(f.ctx, f.db, evidence.Check{RunID: id, Findings: "Reconciled", Inputs: pre})
	if !errors.Is(err, boom) {
		t.Errorf("Record: %v, want the prefetch's %v", err, boom)
	}
	if ms, err := f.db.Manifests(f.ctx); err != nil || len(ms) != 0 {
		t.Errorf("manifests %d, %v; want none", len(ms), err)
	}

	held := evidence.Prefetch(f.ctx, failingDays{Store: f.db, block: true}, "2026-11-01", "2026-11-01")
	held.Stop() // returns: the reads end with their context

	uncounted := evidence.Prefetch(f.ctx, f.db, "2026-11-01", "2026-11-01")
	defer uncounted.Stop()
	_, err = evidence.Record(f.ctx, failingCalls{Store: f.db, err: boom}, evidence.Check{RunID: id, Findings: "Reconciled",
		Inputs: uncounted})
	if !errors.Is(err, boom) {
		t.Errorf("Record, the calls not counted by the check: %v, want the calls' read failing, %v", err, boom)
	}
}

// checkRead reads the period from..to's calls as the check does, through
// the store's tap into pre's tally (store.DB.TallyCalls), to the end, and
// returns the ids of the calls the check was given.
func (f *fixture) checkRead(pre *evidence.Prefetched, from, to string) []int64 {
	f.t.Helper()
	var ids []int64
	w := ledger.Window{From: from + " 00:00:00", To: to + " 23:59:59", Skip: []string{"statement", "transactionStatus"}}
	for c, err := range f.db.TallyCalls(pre.Calls()).CheckCalls(f.ctx, w) {
		if err != nil {
			f.t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	return ids
}

// poolCall stores a call of operation op with outcome and a pool object
// (account, shape, amount; shape "" for none).
func (f *fixture) poolCall(ref, ts, op, outcome, account, shape, amount string) {
	f.t.Helper()
	hash := sha256.Sum256([]byte("h-" + ref))
	f.exec(`INSERT INTO calls (line_hash, source, ts, operation, external_ref, outcome, pool_account, pool_shape, pool_amount,
		imported_at, line_block) VALUES (?, '-', ?, ?, ?, ?, ?, ?, ?, 'x', 1)`, hash[:], ts, op, ref, outcome, account, shape, amount)
}

// TestCheckReadCountsTheImportedTotals: the imported totals counted by the
// check's read of the calls are those the evidence step reads itself,
// byte for byte in the manifest, with calls the check leaves out (a
// read-only operation's, one after the window's last second but before
// the next day) and amounts of several scales; the check is given the
// calls it is given without the count. An amount that is no decimal
// fails the evidence step as it does without the count.
func TestCheckReadCountsTheImportedTotals(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		g := sibling(t)
		var id int64
		for _, x := range []*fixture{f, g} {
			x.poolCall("before", "2026-10-31 23:59:59", "panDin", "success", "A", "A", "5.00")
			x.poolCall("first", "2026-11-01 00:00:00", "panDin", "success", "A", "A", "1.50")
			x.poolCall("scale", "2026-11-01 08:00:00", "panDin", "success", "A", "B", "2.005")
			x.poolCall("failed", "2026-11-01 08:00:00", "panDin", "failed", "A", "A", "9.00")
			x.poolCall("pending", "2026-11-01 09:00:00", "panDin", "pending", "", "", "")
			x.poolCall("nopool", "2026-11-01 10:00:00", "panDin", "success", "B", "", "")
			x.poolCall("data", "2026-11-01 11:00:00", "creditReport", "success", "B", "data", "100")
			x.poolCall("page", "2026-11-02 12:00:00", "statement", "success", "", "", "")
			x.poolCall("status", "2026-11-02 12:00:01", "transactionStatus", "success", "A", "A", "7.00")
			x.poolCall("last", "2026-11-02 23:59:59", "panDin", "success", "A", "A", "3.25")
			x.poolCall("edge", "2026-11-02 23:59:59.5", "panDin", "success", "A", "A", "4.75")
			x.poolCall("after", "2026-11-03 00:00:00", "panDin", "success", "A", "A", "8.00")
			id = x.insertRun("2026-11-01", "2026-11-02")
		}
		log := &readLog{Store: f.db}
		pre := evidence.Prefetch(f.ctx, log, "2026-11-01", "2026-11-02")
		defer pre.Stop()
		got := f.checkRead(pre, "2026-11-01", "2026-11-02")
		var want []int64
		w := ledger.Window{From: "2026-11-01 00:00:00", To: "2026-11-02 23:59:59", Skip: []string{"statement", "transactionStatus"}}
		for c, err := range f.db.CheckCalls(f.ctx, w) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, c.ID)
		}
		if len(want) != 7 || !slices.Equal(got, want) {
			t.Errorf("the check given calls %v through the count, %v without it; want the same 7", got, want)
		}
		res := f.evidenceWith(log, id, pre)
		g.evidence(g.db, id)
		if len(log.calls) != 0 {
			t.Errorf("calls read %q by the evidence step, want none (counted by the check's read)", log.calls)
		}
		sameManifest(t, f, g, id)
		a := res.Manifest.Totals.Imported
		if len(a) != 3 || a[1].PoolAccount != "A" || a[1].Calls != 6 || a[1].Debited != (evidence.CountSum{Count: 5, Amount: "18.505"}) {
			t.Errorf("imported totals %+v, want A's 6 calls, 5 debits of 18.505", a)
		}

		for _, x := range []*fixture{f, g} {
			x.poolCall("bad", "2026-11-01 12:00:00", "panDin", "success", "A", "A", "1.2.3")
		}
		pre2 := evidence.Prefetch(f.ctx, f.db, "2026-11-01", "2026-11-02")
		defer pre2.Stop()
		f.checkRead(pre2, "2026-11-01", "2026-11-02")
		_, errF := evidence.Record(f.ctx, f.db, evidence.Check{RunID: id, Findings: "x", Inputs: pre2})
		_, errG := evidence.Record(g.ctx, g.db, evidence.Check{RunID: id, Findings: "x"})
		if errF == nil || errG == nil || errF.Error() != errG.Error() {
			t.Errorf("an amount that is no decimal: %v with the count, %v without; want the same error", errF, errG)
		}
	})
}
