package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestEvidenceEventsAreOnlyAppended checks that no statement of the store
// updates or deletes a row of evidence_events: the history is appended to,
// never changed (reconcile verify finds a row changed by hand).
func TestEvidenceEventsAreOnlyAppended(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	change := regexp.MustCompile(`(?is)(UPDATE\s+evidence_events\b|DELETE\s+FROM\s+evidence_events\b|REPLACE\s+INTO\s+evidence_events\b)`)
	inserts := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := change.Find(b); m != nil {
			t.Errorf("%s changes evidence events: %q", f, m)
		}
		inserts += strings.Count(string(b), "INSERT INTO evidence_events")
	}
	if inserts != 1 {
		t.Errorf("%d INSERTs into evidence_events, want the one of appendEvents", inserts)
	}
}

// TestDayVersionsMoveWithWrites checks that a sync writing a new record of
// a day, or changing one (even to another day), moves the day's version
// on, so that a digest kept of it no longer holds, and that writing a
// record again unchanged does not; on both backends.
func TestDayVersionsMoveWithWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		rec := func(svc, day, amount string) recon.Record {
			r := recon.Record{Kind: recon.Statement, Account: "A", SvcOrderID: svc}
			r.Values[recon.FTxnDateTime], r.Values[recon.FTxnDate] = day+" 10:00:00", day
			r.Values[recon.FTxnMode], r.Values[recon.FTxnChargedValue] = "DR", amount
			return r
		}
		write := func(rs ...recon.Record) {
			t.Helper()
			if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: rs}}); err != nil {
				t.Fatal(err)
			}
		}
		versions := func() string {
			t.Helper()
			v, err := db.DayVersions(ctx, recon.Statement, "2026-11-01", "2026-11-30")
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(v)
		}
		write(rec("S1", "2026-11-01", "1.00"), rec("S2", "2026-11-02", "2.00"))
		if got := versions(); got != "map[2026-11-01:1 2026-11-02:1]" {
			t.Fatalf("after two new records: %s", got)
		}
		if err := db.SaveDayDigests(ctx, []evidence.DayDigest{{Kind: recon.Statement, Day: "2026-11-01", Version: 1, SHA256: "x", Totals: []evidence.StoredTotal{}}}); err != nil {
			t.Fatal(err)
		}
		write(rec("S1", "2026-11-01", "1.00")) // again, unchanged
		if kept, err := db.DayDigests(ctx, recon.Statement, "2026-11-01", "2026-11-30"); err != nil || len(kept) != 1 || versions() != "map[2026-11-01:1 2026-11-02:1]" {
			t.Errorf("an unchanged record written again: versions %s, kept %v (%v)", versions(), kept, err)
		}
		write(rec("S2", "2026-11-01", "2.00")) // moved to the 1st
		if got := versions(); got != "map[2026-11-01:2 2026-11-02:2]" {
			t.Errorf("a record moved from the 2nd to the 1st: %s, want both days moved on", got)
		}
		if kept, err := db.DayDigests(ctx, recon.Statement, "2026-11-01", "2026-11-30"); err != nil || len(kept) != 0 {
			t.Errorf("the digest kept of the 1st still holds after it changed: %v (%v)", kept, err)
		}
	})
}
