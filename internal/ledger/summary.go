package ledger

import (
	"cmp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The summary stage: every finding of the other stages passes through the
// tally on its way to the run's writer, which counts it for the run's
// summary and lists the first ones for the report (summarize).

// maxReportRows bounds the breaks and the matching exceptions a Report
// holds, and maxExplained the explained gaps among the breaks (routine:
// every reversal credit makes one); the database holds them all and the
// summary counts them all.
const (
	maxReportRows = 10_000
	maxExplained  = 1_000
)

// findingWriter is where the tally writes the findings (RunWriter).
type findingWriter interface {
	Break(Break)
	Match(Match)
	Difference(Difference)
	Reversal(Reversal)
	Unsettled(Unsettled)
	Fee(Fee)
	Err() error
}

// tally counts the findings as they are written.
type tally struct {
	out                 findingWriter
	outcomes, breaks    counts // by outcome, by break kind (Delta summed)
	buckets             counts // unsettled orders by aging bucket
	reversals, unlinked int
	reversed            decimal.Decimal
	differences         map[string]int  // by field
	groups              map[string]bool // the groups' ids
	groupRows           int
	grouped             decimal.Decimal // the groups' wholes
	lists               reportLists
	fees                *feeTally // the fees stage's (fees.go); nil without a rate card
}

// counts are how many findings of each key, and their amounts' sum.
type counts struct {
	n   map[string]int
	sum map[string]decimal.Decimal
}

func newCounts() counts { return counts{n: map[string]int{}, sum: map[string]decimal.Decimal{}} }

func (c counts) add(key string, amount decimal.Decimal) {
	c.n[key]++
	c.sum[key] = c.sum[key].Add(amount)
}

func (c counts) remove(key string, amount decimal.Decimal) {
	c.n[key]--
	c.sum[key] = c.sum[key].Sub(amount)
}

func (c counts) countSum(key string) recon.CountSum { return countSum(c.n[key], c.sum[key]) }

func newTally(out findingWriter) *tally {
	return &tally{out: out, outcomes: newCounts(), breaks: newCounts(), buckets: newCounts(), groups: map[string]bool{},
		differences: map[string]int{}}
}

// brk writes a break and counts it.
func (t *tally) brk(b Break) {
	t.out.Break(b)
	t.breaks.add(b.Kind, b.Delta)
	t.lists.addBreak(b)
}

// match writes a matching row and counts it; amount is what it counts for
// (the call's debit, else the record's; none for a record's row in a
// group, whose call counts the whole); ts is its time, rec the record of
// a row without a call (nil for a call's).
func (t *tally) match(m Match, amount decimal.Decimal, ts int64, rec *wrec) {
	t.out.Match(m)
	t.outcomes.add(m.Outcome, amount)
	if m.Group != "" {
		t.groups[m.Group] = true
		t.groupRows++
		t.grouped = t.grouped.Add(amount)
	}
	if m.Outcome != recon.Matched && m.Outcome != recon.Reversed {
		t.lists.addException(m, ts, rec)
	}
}

// difference writes a field-level difference and counts it.
func (t *tally) difference(d Difference) {
	t.out.Difference(d)
	t.differences[d.Field]++
}

// replace counts a row rewritten after it was written (a late duplicate)
// as what it became; amount is what it counts for.
func (t *tally) replace(old, fixed Match, amount decimal.Decimal) {
	t.outcomes.remove(old.Outcome, amount)
	t.outcomes.add(fixed.Outcome, amount)
	ts, _ := parseTS(fixed.TS)
	t.lists.replaceException(fixed, ts)
}

// reversal writes a reversal row and counts it; amount is the reversed
// record's.
func (t *tally) reversal(r Reversal, amount decimal.Decimal) {
	t.out.Reversal(r)
	t.reversals++
	t.reversed = t.reversed.Add(amount)
	if !r.Found {
		t.unlinked++
	}
}

// unsettled writes an unsettled order and counts it.
func (t *tally) unsettled(u Unsettled, amount decimal.Decimal) {
	t.out.Unsettled(u)
	t.buckets.add(u.AgeBucket, amount)
}

// fill puts the tally's counts in s: outcomes, pending, breaks, reversals
// and unsettled orders.
func (t *tally) fill(s *recon.Summary) {
	s.Outcomes, s.Breaks, s.Unsettled = map[string]recon.CountSum{}, map[string]recon.BreakSum{}, map[string]recon.CountSum{}
	for _, o := range recon.Outcomes {
		s.Outcomes[o] = t.outcomes.countSum(o)
	}
	s.Pending = s.Outcomes[recon.Pending]
	for _, k := range recon.BreakKinds {
		s.Breaks[k] = recon.BreakSum{Count: t.breaks.n[k], Delta: recon.Money(t.breaks.sum[k])}
	}
	s.Reversals = recon.ReversalSum{Count: t.reversals, Amount: recon.Money(t.reversed), Unlinked: t.unlinked}
	for _, b := range recon.BucketNames() {
		s.Unsettled[b] = t.buckets.countSum(b)
	}
	s.Groups = recon.GroupSum{Count: len(t.groups), Rows: t.groupRows, Amount: recon.Money(t.grouped)}
	s.Differences = map[string]int{}
	for _, f := range recon.DiffFields {
		s.Differences[f] = t.differences[f]
	}
	t.fees.fill(s)
}

// summarize builds the run's report: its summary from the stages' counts,
// and the first findings.
func summarize(run Run, pool *poolStage, m *matcher, pairs *suggester, t *tally) *Report {
	records, credited := m.counts()
	s := recon.Summary{From: run.From, To: run.To, AsOf: run.AsOf, Credited: recon.Money(credited)}
	pool.fill(&s)
	t.fill(&s)
	s.SuggestedPairs, s.PairingSkipped = pairs.pairs, pairs.skipped
	s.Matching = pairs.tol.Settings()
	rep := &Report{Summary: s, Records: records}
	rep.Breaks, rep.Exceptions = t.lists.sorted()
	rep.Fees = t.fees.fees()
	return rep
}

func countSum(n int, d decimal.Decimal) recon.CountSum {
	return recon.CountSum{Count: n, Amount: recon.Money(d)}
}

// reportLists are the breaks and matching exceptions a Report lists, with
// what orders them.
type reportLists struct {
	breaks     []listedBreak
	explained  int // explained gaps among breaks
	exceptions []listedMatch
	seq        int
}

type listedBreak struct {
	b   Break
	gap bool
	seq int
}

type listedMatch struct {
	m            Match
	ts           int64
	rec          bool // a record's row (no call)
	svc, account string
}

// addBreak lists a break: up to maxExplained explained gaps, and
// maxReportRows other breaks.
func (l *reportLists) addBreak(b Break) {
	explained := b.Kind == recon.BreakExplainedGap
	if explained && l.explained >= maxExplained || !explained && len(l.breaks)-l.explained >= maxReportRows {
		return
	}
	if explained {
		l.explained++
	}
	l.seq++
	l.breaks = append(l.breaks, listedBreak{b: b, gap: b.Kind != recon.BreakArithmetic, seq: l.seq})
}

func (l *reportLists) addException(m Match, ts int64, rec *wrec) {
	if len(l.exceptions) < maxReportRows {
		x := listedMatch{m: m, ts: ts}
		if rec != nil && m.CallID == 0 {
			x.rec, x.svc, x.account = true, rec.svc, rec.account
		}
		l.exceptions = append(l.exceptions, x)
	}
}

// replaceException puts a corrected row (a call's, or a record's without a
// call) in place of its old one, or adds it.
func (l *reportLists) replaceException(m Match, ts int64) {
	for i := range l.exceptions {
		x := &l.exceptions[i]
		if !x.rec && m.CallID != 0 && x.m.CallID == m.CallID || x.rec && m.CallID == 0 && x.m.SvcOrderID == m.SvcOrderID {
			x.m = m
			return
		}
	}
	l.addException(m, ts, nil)
}

// sorted returns the lists in the report's order: breaks by time and call
// (an arithmetic break before a gap of the same call), exceptions by time,
// calls (by id) before records (by svcOrderId).
func (l *reportLists) sorted() ([]Break, []Match) {
	slices.SortFunc(l.breaks, func(a, b listedBreak) int {
		return cmp.Or(strings.Compare(a.b.TS, b.b.TS), cmp.Compare(a.b.CallID, b.b.CallID),
			cmpBool(a.gap, b.gap), cmp.Compare(a.seq, b.seq))
	})
	slices.SortFunc(l.exceptions, func(a, b listedMatch) int {
		return cmp.Or(cmp.Compare(a.ts, b.ts), cmpBool(a.rec, b.rec), cmp.Compare(a.m.CallID, b.m.CallID),
			strings.Compare(a.svc, b.svc), strings.Compare(a.account, b.account))
	})
	var breaks []Break
	for _, b := range l.breaks {
		breaks = append(breaks, b.b)
	}
	var exc []Match
	for _, x := range l.exceptions {
		exc = append(exc, x.m)
	}
	return breaks, exc
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
