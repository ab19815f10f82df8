package evidence_test

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
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
// prefetched, while a second check of the period lands its evidence first
// (the first attempt is refused, ErrMoved, and computed again): the
// statement's records and the period's calls are read once, by the
// prefetch, and the manifests are byte for byte those recorded without it.
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
		m := &meanwhile{Store: log, other: func() { f.evidence(f.db, b) }}
		f.evidenceWith(m, a, pre)
		g.evidence(&meanwhile{Store: g.db, other: func() { g.evidence(g.db, b) }}, a)

		if m.applied != 2 {
			t.Errorf("ApplyEvidence called %d times, want 2 (refused once, then applied)", m.applied)
		}
		if want := []string{"2026-11-01..2026-11-02"}; !slices.Equal(log.statement, want) || !slices.Equal(log.calls, want) {
			t.Errorf("statement records read %q, calls %q; want %q each (once, by the prefetch)", log.statement, log.calls, want)
		}
		sameManifest(t, f, g, a)
		sameManifest(t, f, g, b)
	})
}

// TestPrefetchReadsAgainWhatMoved writes, after the prefetch read its
// inputs and before the evidence step, a statement record of one day (a
// sync) and a call of the period (an import): the evidence step digests
// that day again, alone, and counts the calls again, and the manifest is
// the one recorded without a prefetch after those writes.
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
		late(f)
		f.evidenceWith(log, id, pre)
		late(g)
		g.evidence(g.db, id)

		if want := []string{"2026-11-01..2026-11-02", "2026-11-01..2026-11-01"}; !slices.Equal(log.statement, want) {
			t.Errorf("statement records read %q, want %q (the period, then the day written)", log.statement, want)
		}
		if want := []string{"2026-11-01..2026-11-02", "2026-11-01..2026-11-02"}; !slices.Equal(log.calls, want) {
			t.Errorf("calls read %q, want %q (by the prefetch, then again)", log.calls, want)
		}
		sameManifest(t, f, g, id)
	})
}

// failingCalls is a Store whose period's calls cannot be read: err at
// once, or, with block, once the read's context is done.
type failingCalls struct {
	evidence.Store
	err   error
	block bool
}

func (s failingCalls) EvidenceCalls(ctx context.Context, from, to string) iter.Seq2[evidence.CallAmount, error] {
	return func(yield func(evidence.CallAmount, error) bool) {
		if s.block {
			<-ctx.Done()
			yield(evidence.CallAmount{}, ctx.Err())
			return
		}
		yield(evidence.CallAmount{}, s.err)
	}
}

// TestPrefetchError checks that a prefetch that failed fails the evidence
// step with its error, and that Stop ends a prefetch still reading.
func TestPrefetchError(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "e.db"))
	f.day("2026-11-01")
	id := f.insertRun("2026-11-01", "2026-11-01")
	boom := errors.New("the disk is gone")
	pre := evidence.Prefetch(f.ctx, failingCalls{Store: f.db, err: boom}, "2026-11-01", "2026-11-01")
	defer pre.Stop()
	_, err := evidence.Record(f.ctx, f.db, evidence.Check{RunID: id, Findings: "Reconciled", Inputs: pre})
	if !errors.Is(err, boom) {
		t.Errorf("Record: %v, want the prefetch's %v", err, boom)
	}
	if ms, err := f.db.Manifests(f.ctx); err != nil || len(ms) != 0 {
		t.Errorf("manifests %d, %v; want none", len(ms), err)
	}

	held := evidence.Prefetch(f.ctx, failingCalls{Store: f.db, block: true}, "2026-11-01", "2026-11-01")
	held.Stop() // returns: the reads end with their context
}
