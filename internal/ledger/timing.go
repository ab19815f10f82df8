package ledger

import (
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The timing stage (design: tolerance, groups, timing): a break across the
// period's edge is a timing difference, not a break. A debit call in the
// last minutes of the period (the timing window) with no record, while no
// statement record after the period is stored yet (the next day's
// statement not synced), is timing: the next day's statement should bring
// its record. So is a debit record in the first minutes of the period with
// no call, while no call before the period is stored (the day before's
// call log not imported). Timing rows are counted apart from the breaks;
// the exceptions' life (internal/evidence) resolves them when the other
// side arrives. A row with a suggested pair stays what it is: its other
// side may be that pair.

// Edges say what the database holds beyond the period's edges, for the
// timing stage.
type Edges struct {
	// RecordsAfter: a statement record dated after the period is stored
	// (the next day's statement was synced, at least in part).
	RecordsAfter bool
	// CallsBefore: a call (not a read-only one) before the period is
	// stored (the day before's call log was imported).
	CallsBefore bool
}

// timingRule says which rows without a counterpart are timing.
type timingRule struct {
	window   int64 // seconds (0: none is)
	from, to int64 // the period's first and last seconds
	edges    Edges
}

// newTimingRule is the rule of a period (its window) with timing window d.
func newTimingRule(w Window, d time.Duration, edges Edges) *timingRule {
	t := &timingRule{window: int64(d / time.Second), edges: edges}
	var err1, err2 error
	t.from, err1 = parseTS(w.From)
	t.to, err2 = parseTS(w.To)
	if err1 != nil || err2 != nil {
		t.window = 0 // a window the check parsed already; never so
	}
	return t
}

// call reports whether a debit call at ts with no record is timing, and
// says why.
func (t *timingRule) call(ts int64) (string, bool) {
	if t == nil || t.window <= 0 || t.edges.RecordsAfter || t.to-ts >= t.window || ts > t.to {
		return "", false
	}
	return "timing: a debit in the last " + fmtSeconds(t.window) +
		" of the period; its record is expected in the next day's statement (not synced yet)", true
}

// record reports whether a debit record at ts with no call is timing, and
// says why.
func (t *timingRule) record(ts int64) (string, bool) {
	if t == nil || t.window <= 0 || t.edges.CallsBefore || ts-t.from >= t.window || ts < t.from {
		return "", false
	}
	return "timing: a record in the first " + fmtSeconds(t.window) +
		" of the period; its call is expected in the day before's call log (not imported yet)", true
}

// asTiming makes an unpaired callOnly or statementOnly row timing when
// the rule says so.
func (t *timingRule) asTiming(m *Match, ts int64) {
	if m.SuggestedPair != "" {
		return
	}
	note, ok := t.call(ts)
	if m.Outcome == recon.StatementOnly {
		note, ok = t.record(ts)
	}
	if ok {
		m.Outcome, m.Note = recon.Timing, note
	}
}
