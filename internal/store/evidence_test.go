package store

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
