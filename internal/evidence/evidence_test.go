package evidence_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestTwoNights runs two month-to-date nights: the second marks what the
// first found again with its age, what it found first as new, and what
// the first found in its own period but the second no longer finds as
// resolved, each with its event; the ids stay the same.
func TestTwoNights(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		f.day("2026-11-02")
		late := finding{recon.CallOnly, "RC1", "", "2026-11-01 10:00:00"}          // its record posts late
		gap := finding{recon.BreakGap, "RC2", "", "2026-11-01 11:00:00"}           // stays
		order := finding{evidence.KindUnsettled, "", "OR1", "2026-10-20 09:00:00"} // before the period, stays
		run1, res1 := f.run("2026-11-01", "2026-11-01", late, gap, order)
		if res1.Counts != (evidence.Counts{New: 3}) {
			t.Errorf("night 1 counts %+v, want 3 new", res1.Counts)
		}
		dup := finding{recon.DuplicateDebit, "RC3", "SO9", "2026-11-02 09:00:00"}
		dup2 := finding{recon.DuplicateDebit, "RC3", "SO10", "2026-11-02 09:05:00"} // one exception with dup
		run2, res2 := f.run("2026-11-01", "2026-11-02", gap, order, dup, dup2)
		if res2.Counts != (evidence.Counts{New: 1, Carried: 2, Resolved: 1}) {
			t.Errorf("night 2 counts %+v, want 1 new, 2 carried over, 1 resolved", res2.Counts)
		}
		v, err := evidence.Workbook(f.ctx, f.db, run2)
		if err != nil {
			t.Fatal(err)
		}
		lives := map[string]string{}
		for _, r := range v.Rows {
			lives[r.Kind+" "+r.Key] = r.Life
		}
		want := map[string]string{
			"gap POOL/RC2":       "open since 2026-11-01 (1 days)",
			"unsettled OR1":      "open since 2026-11-01 (1 days)",
			"duplicateDebit RC3": "new",
			"callOnly RC1":       "resolved since last run",
		}
		for k, w := range want {
			if lives[k] != w {
				t.Errorf("%s: life %q, want %q (all: %v)", k, lives[k], w, lives)
			}
		}
		e := f.exception(recon.CallOnly, "RC1")
		if e.Status != evidence.StatusResolved || e.FirstRun != run1 || e.LastRun != run1 {
			t.Errorf("the late posting's exception = %+v, want resolved, first and last seen by run %d", e, run1)
		}
		if got := f.actions(e.ID); !slices.Equal(got, []string{"svcrecon:seen", "svcrecon:resolved"}) {
			t.Errorf("its events %v, want seen then resolved", got)
		}
		if id, life := v.Lookup(&evidence.Finding{Kind: recon.BreakGap, PoolAccount: "POOL", ExternalRef: "RC2"}); id != f.exception(recon.BreakGap, "POOL/RC2").ID || !strings.HasPrefix(life, "open since") {
			t.Errorf("Lookup(gap) = %q %q", id, life)
		}
	})
}

// TestNarrowRunResolvesNothing checks that a run of one day of the month
// does not resolve what the month's run found: it cannot see a debit
// twice across days or a gap at its first call.
func TestNarrowRunResolvesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		f.day("2026-11-02")
		f.run("2026-11-01", "2026-11-02", finding{recon.DuplicateDebit, "RC3", "SO9", "2026-11-02 09:00:00"})
		_, res := f.run("2026-11-02", "2026-11-02")
		if res.Counts.Resolved != 0 || f.exception(recon.DuplicateDebit, "RC3").Status != evidence.StatusOpen {
			t.Errorf("a one-day run resolved the month's duplicate: %+v", res.Counts)
		}
		_, res = f.run("2026-11-01", "2026-11-02", finding{recon.DuplicateDebit, "RC3", "SO9", "2026-11-02 09:00:00"})
		if res.Counts.Carried != 1 {
			t.Errorf("the month again: %+v, want it carried over", res.Counts)
		}
	})
}

// TestReopened checks that an exception resolved and found again is
// reopened, and that a decided one stays decided when it disappears.
func TestReopened(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		x := finding{recon.StatementOnly, "", "SO5", "2026-11-01 12:00:00"}
		y := finding{recon.AmountMismatch, "RC7", "SO7", "2026-11-01 13:00:00"}
		f.run("2026-11-01", "2026-11-01", x, y)
		ey := f.exception(recon.AmountMismatch, "SO7")
		if _, err := evidence.Decide(f.ctx, f.db, evidence.Decision{ID: ey.ID, Status: evidence.StatusWrittenOff,
			Note: "1.18 rounding", By: "asha", At: f.now}); err != nil {
			t.Fatal(err)
		}
		f.run("2026-11-01", "2026-11-01")
		_, res := f.run("2026-11-01", "2026-11-01", x)
		if res.Counts.Reopened != 1 || f.exception(recon.StatementOnly, "SO5").Status != evidence.StatusOpen {
			t.Errorf("counts %+v, want SO5 reopened", res.Counts)
		}
		if got := f.exception(recon.AmountMismatch, "SO7").Status; got != evidence.StatusWrittenOff {
			t.Errorf("the written-off mismatch is %s once gone, want it to stay written-off", got)
		}
	})
}

// TestKeys checks the natural key of each kind of finding.
func TestKeys(t *testing.T) {
	for _, c := range []struct {
		f    evidence.Finding
		want string
	}{
		{evidence.Finding{Kind: recon.BreakGap, PoolAccount: "P", ExternalRef: "R", OrderID: "O"}, "P/R"},
		{evidence.Finding{Kind: recon.BreakArithmetic, PoolAccount: "P", OrderID: "O"}, "P/orderid O"},
		{evidence.Finding{Kind: recon.CallOnly, TS: "2026-11-01 10:00:00", Operation: "panDin"}, "2026-11-01 10:00:00 panDin"},
		{evidence.Finding{Kind: recon.AmountMismatch, ExternalRef: "R", SvcOrderID: "S"}, "S"},
		{evidence.Finding{Kind: recon.DuplicateDebit, ExternalRef: "R", SvcOrderID: "S"}, "R"},
		{evidence.Finding{Kind: recon.StatementOnly, ExternalRef: "R", SvcOrderID: "S"}, "S"},
		{evidence.Finding{Kind: recon.Pending, ExternalRef: "R", SvcOrderID: "S"}, "R"},
		{evidence.Finding{Kind: evidence.KindUnsettled, ExternalRef: "C", SvcOrderID: "S"}, "S"},
	} {
		if got := c.f.Key(); got != c.want {
			t.Errorf("%s key = %q, want %q", c.f.Kind, got, c.want)
		}
	}
	if id := evidence.IDOf("gap", "P/R", 10); len(id) != 13 || !strings.HasPrefix(id, "EX-") || id != evidence.IDOf("gap", "P/R", 0) {
		t.Errorf("IDOf = %q", id)
	}
}

// meanwhile is a Store whose first ApplyEvidence lets another run's
// evidence land first, as a second check of the period on another host
// would between this one's reading the exceptions and its writing them.
type meanwhile struct {
	evidence.Store
	other   func()
	applied int
}

func (m *meanwhile) ApplyEvidence(ctx context.Context, c evidence.Changes) error {
	if m.applied++; m.applied == 1 {
		m.other()
	}
	return m.Store.ApplyEvidence(ctx, c)
}

// TestSecondRunMeanwhile checks that two checks of a period finding the
// same new break at once make one exception, not a failure: the run whose
// state moved under it tracks again and carries the other's exception.
func TestSecondRunMeanwhile(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		gap := finding{recon.BreakGap, "RC2", "", "2026-11-01 11:00:00"}
		a := f.insertRun("2026-11-01", "2026-11-01", gap)
		b := f.insertRun("2026-11-01", "2026-11-01", gap)
		m := &meanwhile{Store: f.db, other: func() {
			if res := f.evidence(f.db, b); res.Counts != (evidence.Counts{New: 1}) {
				t.Errorf("the other run's counts %+v, want 1 new", res.Counts)
			}
		}}
		res := f.evidence(m, a)
		if m.applied != 2 {
			t.Errorf("ApplyEvidence called %d times, want 2 (refused once, then applied)", m.applied)
		}
		if res.Counts != (evidence.Counts{Carried: 1}) {
			t.Errorf("counts %+v, want the other's exception carried over", res.Counts)
		}
		e := f.exception(recon.BreakGap, "POOL/RC2")
		if e.FirstRun != b || e.LastRun != a {
			t.Errorf("exception first seen by run %d, last by %d; want %d then %d", e.FirstRun, e.LastRun, b, a)
		}
		if got := f.actions(e.ID); !slices.Equal(got, []string{"svcrecon:seen"}) {
			t.Errorf("events %v, want one seen", got)
		}
		f.verifyClean()
	})
}

// TestDecisionAfterACarryingCheck checks that a decision read before a
// check that only carried its exception over (no event: the chain's head
// did not move) does not write back the row as it read it: it is refused,
// reads again and keeps the check's last run and period.
func TestDecisionAfterACarryingCheck(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		f.day("2026-11-02")
		x := finding{recon.AmountMismatch, "RC7", "SO7", "2026-11-01 13:00:00"}
		f.run("2026-11-01", "2026-11-01", x)
		e := f.exception(recon.AmountMismatch, "SO7")
		r2 := f.insertRun("2026-11-01", "2026-11-02", x)
		var counts evidence.Counts
		m := &meanwhile{Store: f.db, other: func() { counts = f.evidence(f.db, r2).Counts }}
		d := evidence.Decision{ID: e.ID, Status: evidence.StatusExplained, Note: "rounding", By: "asha", At: f.now}
		if _, err := evidence.Decide(f.ctx, m, d); err != nil {
			t.Fatal(err)
		}
		if counts != (evidence.Counts{Carried: 1}) {
			t.Fatalf("the check's counts %+v, want it carried over (no event)", counts)
		}
		if m.applied != 2 {
			t.Errorf("ApplyEvidence called %d times, want 2 (refused once, then applied)", m.applied)
		}
		e = f.exception(recon.AmountMismatch, "SO7")
		if e.LastRun != r2 || e.LastFrom != "2026-11-01" || e.LastTo != "2026-11-02" || e.Status != evidence.StatusExplained {
			t.Errorf("exception last run %d (%s..%s), %s; want run %d's (2026-11-01..2026-11-02), explained",
				e.LastRun, e.LastFrom, e.LastTo, e.Status, r2)
		}
		f.verifyClean()
	})
}

// TestShorterRunResolvesNothing checks that a run whose period ends before
// the last row of an exception does not resolve it: the month's duplicate
// debit of 11-01 23:50 and 11-02 00:05 stays open after a run of 11-01,
// which cannot see its second debit; a run of both days resolves it.
func TestShorterRunResolvesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		f.day("2026-11-02")
		f.run("2026-11-01", "2026-11-02", finding{recon.DuplicateDebit, "RC3", "SO9", "2026-11-01 23:50:00"},
			finding{recon.DuplicateDebit, "RC3", "SO10", "2026-11-02 00:05:00"})
		e := f.exception(recon.DuplicateDebit, "RC3")
		if e.Day != "2026-11-01" || e.LastDay != "2026-11-02" {
			t.Errorf("exception's days %s..%s, want 2026-11-01..2026-11-02", e.Day, e.LastDay)
		}
		_, res := f.run("2026-11-01", "2026-11-01")
		if e := f.exception(recon.DuplicateDebit, "RC3"); res.Counts.Resolved != 0 || e.Status != evidence.StatusOpen {
			t.Errorf("a run of 11-01 resolved the duplicate of 11-01..11-02: %+v, %s %v", res.Counts, e.Status, f.actions(e.ID))
		}
		_, res = f.run("2026-11-01", "2026-11-02")
		if res.Counts.Resolved != 1 || f.exception(recon.DuplicateDebit, "RC3").Status != evidence.StatusResolved {
			t.Errorf("the month again without the duplicate: %+v, want it resolved", res.Counts)
		}
	})
}
