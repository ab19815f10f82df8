package evidence_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestDayKeeperDigestsWhatSyncEnded hands a DayKeeper two days a sync
// ended: their digests are kept at the days' versions, so that the
// evidence step that follows reads no statement record, and its manifest
// is byte for byte the one recorded without the keeper. A record written
// after the keeper's digest moves its day's version: the evidence step
// digests that day again, alone, and the manifests still agree.
func TestDayKeeperDigestsWhatSyncEnded(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		g := sibling(t)
		var first, second int64
		for _, x := range []*fixture{f, g} {
			x.day("2026-11-01")
			x.day("2026-11-02")
			x.record(recon.Statement, "SO-b", "2026-11-02 23:59:59", "CR", "7.25")
		}
		k := evidence.KeepDays(f.ctx, f.db, slog.New(slog.NewTextHandler(io.Discard, nil)))
		k.Ended(recon.Statement, "2026-11-01")
		k.Ended(recon.Statement, "2026-11-02")
		k.Close()
		kept, err := f.db.DayDigests(f.ctx, recon.Statement, "2026-11-01", "2026-11-02")
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != 2 || kept["2026-11-02"].Records != 2 {
			t.Fatalf("digests kept: %+v, want the two days (the second with 2 records)", kept)
		}

		for _, x := range []*fixture{f, g} {
			first = x.insertRun("2026-11-01", "2026-11-02")
		}
		log := &readLog{Store: f.db}
		f.evidence(log, first)
		g.evidence(g.db, first)
		if len(log.statement) != 0 {
			t.Errorf("statement records read %q, want none: the keeper's digests hold", log.statement)
		}
		sameManifest(t, f, g, first)

		for _, x := range []*fixture{f, g} {
			x.record(recon.Statement, "SO-late", "2026-11-01 12:00:00", "DR", "2.50")
			second = x.insertRun("2026-11-01", "2026-11-02")
		}
		log = &readLog{Store: f.db}
		f.evidence(log, second)
		g.evidence(g.db, second)
		if want := []string{"2026-11-01..2026-11-01"}; !slices.Equal(log.statement, want) {
			t.Errorf("statement records read %q, want %q (the day written after the keeper)", log.statement, want)
		}
		sameManifest(t, f, g, second)
	})
}

// TestDayKeeperStopsWithItsContext checks that Close returns when the
// keeper's context ended with days still queued, and that nothing is kept
// then.
func TestDayKeeperStopsWithItsContext(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "e.db"))
	f.day("2026-11-01")
	ctx, cancel := context.WithCancel(f.ctx)
	cancel()
	k := evidence.KeepDays(ctx, f.db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	k.Ended(recon.Statement, "2026-11-01")
	k.Close()
	kept, err := f.db.DayDigests(f.ctx, recon.Statement, "2026-11-01", "2026-11-01")
	if err != nil || len(kept) != 0 {
		t.Errorf("digests kept after the context ended: %v, %v; want none", kept, err)
	}
}
