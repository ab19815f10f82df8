package ledger

import (
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// findings is a findingWriter that keeps what it is given.
type findings struct {
	matches   []Match
	breaks    []Break
	reversals []Reversal
	unsettled []Unsettled
	diffs     []Difference
	fees      []Fee
}

func (f *findings) Difference(d Difference) { f.diffs = append(f.diffs, d) }
func (f *findings) Fee(x Fee)               { f.fees = append(f.fees, x) }
func (f *findings) Break(b Break)           { f.breaks = append(f.breaks, b) }
func (f *findings) Match(m Match)           { f.matches = append(f.matches, m) }
func (f *findings) Reversal(r Reversal)     { f.reversals = append(f.reversals, r) }
func (f *findings) Unsettled(u Unsettled)   { f.unsettled = append(f.unsettled, u) }
func (f *findings) Err() error              { return nil }

// TestTally: every finding is written as it is given and counted in the
// summary; the report lists the exceptions (not matched or reversed) and
// the breaks by time and call, an arithmetic break before a gap of the
// same call; a row rewritten later is counted, and listed, as what it
// became.
func TestTally(t *testing.T) {
	out := &findings{}
	tl := newTally(out)
	const day = "2026-11-21 10:00:0"
	ts := func(s string) int64 { v, _ := parseTS(day + s); return v }
	tl.match(Match{Outcome: recon.Matched, CallID: 1, TS: day + "1"}, dec("10"), ts("1"), nil)
	tl.match(Match{Outcome: recon.CallOnly, CallID: 3, TS: day + "3", CallAmount: "2.00"}, dec("2"), ts("3"), nil)
	tl.match(Match{Outcome: recon.AmountMismatch, CallID: 2, TS: day + "2"}, dec("5"), ts("2"), nil)
	tl.match(Match{Outcome: recon.StatementOnly, SvcOrderID: "S", TS: day + "2", StatementAmount: "4.00"}, dec("4"), ts("2"),
		&wrec{svc: "S"})
	tl.brk(Break{Kind: recon.BreakGap, CallID: 7, TS: day + "5", Delta: dec("3")})
	tl.brk(Break{Kind: recon.BreakArithmetic, CallID: 7, TS: day + "5", Delta: dec("1")})
	tl.brk(Break{Kind: recon.BreakExplainedGap, CallID: 4, TS: day + "4", Delta: dec("-2")})
	tl.reversal(Reversal{SvcOrderID: "A", Found: true}, dec("10"))
	tl.reversal(Reversal{SvcOrderID: "B"}, dec("20"))
	tl.unsettled(Unsettled{SvcOrderID: "O", AgeDays: 40, AgeBucket: ">30"}, dec("100"))
	old := Match{Outcome: recon.CallOnly, CallID: 3, TS: day + "3", CallAmount: "2.00"}
	fixed := old
	fixed.Outcome = recon.DuplicateDebit
	tl.replace(old, fixed, dec("2"))

	if len(out.matches) != 4 || len(out.breaks) != 3 || len(out.reversals) != 2 || len(out.unsettled) != 1 {
		t.Errorf("written %d matches, %d breaks, %d reversals, %d unsettled; want 4, 3, 2, 1",
			len(out.matches), len(out.breaks), len(out.reversals), len(out.unsettled))
	}
	var s recon.Summary
	tl.fill(&s)
	for o, want := range map[string]recon.CountSum{recon.Matched: {Count: 1, Amount: "10.00"}, recon.CallOnly: {Count: 0, Amount: "0.00"},
		recon.DuplicateDebit: {Count: 1, Amount: "2.00"}, recon.AmountMismatch: {Count: 1, Amount: "5.00"},
		recon.StatementOnly: {Count: 1, Amount: "4.00"}, recon.Pending: {Count: 0, Amount: "0.00"}} {
		if s.Outcomes[o] != want {
			t.Errorf("outcome %s = %+v, want %+v", o, s.Outcomes[o], want)
		}
	}
	if s.Breaks[recon.BreakGap] != (recon.BreakSum{Count: 1, Delta: "3.00"}) || s.Breaks[recon.BreakExplainedGap].Delta != "-2.00" {
		t.Errorf("breaks = %+v", s.Breaks)
	}
	if s.Reversals != (recon.ReversalSum{Count: 2, Amount: "30.00", Unlinked: 1}) {
		t.Errorf("reversals = %+v", s.Reversals)
	}
	if s.Unsettled[">30"] != (recon.CountSum{Count: 1, Amount: "100.00"}) || s.Unsettled["0-1"].Amount != "0.00" {
		t.Errorf("unsettled = %+v", s.Unsettled)
	}
	breaks, exc := tl.lists.sorted()
	var got []string
	for _, b := range breaks {
		got = append(got, b.Kind)
	}
	if want := []string{recon.BreakExplainedGap, recon.BreakArithmetic, recon.BreakGap}; !slices.Equal(got, want) {
		t.Errorf("listed breaks %v, want %v", got, want)
	}
	got = nil
	for _, m := range exc {
		got = append(got, m.Outcome)
	}
	// At the same time a call's row comes before a record's.
	if want := []string{recon.AmountMismatch, recon.StatementOnly, recon.DuplicateDebit}; !slices.Equal(got, want) {
		t.Errorf("listed exceptions %v, want %v", got, want)
	}
}

// TestReportListsBounded: the report lists at most maxExplained explained
// gaps and maxReportRows other breaks and exceptions; the tally counts
// them all.
func TestReportListsBounded(t *testing.T) {
	tl := newTally(&findings{})
	for i := range maxReportRows + 5 {
		tl.brk(Break{Kind: recon.BreakGap, CallID: int64(i)})
		tl.brk(Break{Kind: recon.BreakExplainedGap, CallID: int64(i)})
		tl.match(Match{Outcome: recon.CallOnly, CallID: int64(i)}, dec("1"), int64(i), nil)
	}
	breaks, exc := tl.lists.sorted()
	if len(breaks) != maxReportRows+maxExplained || len(exc) != maxReportRows {
		t.Errorf("listed %d breaks, %d exceptions; want %d, %d", len(breaks), len(exc), maxReportRows+maxExplained, maxReportRows)
	}
	if n := tl.breaks.n[recon.BreakExplainedGap]; n != maxReportRows+5 {
		t.Errorf("explained gaps counted %d, want %d", n, maxReportRows+5)
	}
}
