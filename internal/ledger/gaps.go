package ledger

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The gap stage (design: chain) explains the links of the chain that do
// not hold (the pool stage's gaps): a gap between two debits is explained
// when the period's statement records of its interval that no logged call
// debited sum to its delta. Those records (credits, unlogged debits, the
// debits of pending calls: the exceptions, not the bulk) are logged as the
// matching stage finishes them, and kept while a gap, detected or still to
// come, may cover them; a gap is explained once every record of its
// interval has finished.

// gapLog is the gap stage.
type gapLog struct {
	recAccts map[string]bool // the accounts the period's records name (the load stage's)
	emit     func(Break)     // where the breaks go (the tally)
	entries  []*wrec         // finished records not linked to a debit, in period order
	pending  []gapCand       // detected gaps not explained yet, in time order
}

// add takes a gap the pool stage found.
func (g *gapLog) add(c gapCand) { g.pending = append(g.pending, c) }

// recBefore orders records as the period's stream does: by time,
// svcOrderId, account.
func recBefore(a, b *wrec) bool {
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	if a.svc != b.svc {
		return a.svc < b.svc
	}
	return a.account < b.account
}

// log keeps a finished record that is not linked to a debit.
func (g *gapLog) log(r *wrec) {
	i := len(g.entries)
	for i > 0 && recBefore(r, g.entries[i-1]) {
		i--
	}
	g.entries = append(g.entries, nil)
	copy(g.entries[i+1:], g.entries[i:])
	g.entries[i] = r
}

// resolve explains the pending gaps, in time order, whose records have all
// finished (settled says so of an interval; every gap when all), then
// forgets the records no gap can cover any more (trim).
func (g *gapLog) resolve(settled func(from, to int64) bool, floor int64, all bool) {
	for len(g.pending) > 0 {
		c := g.pending[0]
		if !all && !settled(c.from, c.to) {
			break
		}
		g.emit(g.explain(c))
		g.pending = g.pending[1:]
	}
	if len(g.pending) == 0 {
		g.pending = nil
	}
	g.trim(floor)
}

// trim drops the records before every gap detected and to come: floor is
// the earliest a gap still to come may start (poolStage.floor).
func (g *gapLog) trim(floor int64) {
	keep := floor
	if len(g.pending) > 0 {
		keep = min(keep, g.pending[0].from)
	}
	n := 0
	for n < len(g.entries) && g.entries[n].ts < keep {
		n++
	}
	if n > 0 && (n >= len(g.entries)/2 || n >= 1024) {
		k := copy(g.entries, g.entries[n:])
		clear(g.entries[k:])
		g.entries = g.entries[:k]
	}
}

// explain turns a chain gap into a break: explainedGap when the logged
// records of its interval (of its pool account, when the records name it)
// sum to its delta, a debit adding and a CR record subtracting; the note
// names each record and what it is (explanation).
func (g *gapLog) explain(c gapCand) Break {
	name := c.account
	restrict := g.recAccts[name] && name != ""
	lo := sort.Search(len(g.entries), func(i int) bool { return g.entries[i].ts >= c.from })
	sum := decimal.Zero
	var ids []string
	var used []*wrec
	for i := lo; i < len(g.entries) && g.entries[i].ts <= c.to; i++ {
		r := g.entries[i]
		if restrict && r.account != name {
			continue
		}
		if r.cr() {
			sum = sum.Sub(r.amount)
		} else {
			sum = sum.Add(r.amount)
		}
		ids = append(ids, r.svc)
		used = append(used, r)
	}
	b := Break{PoolAccount: name, Kind: recon.BreakGap, CallID: c.curID, PrevCallID: c.prevID, TS: fmtTS(c.to),
		ExternalRef: c.ref, Expected: c.expected, Actual: c.actual, Delta: c.delta}
	switch {
	case len(ids) > 0 && sum.Equal(c.delta):
		b.Kind, b.ExplainedBy = recon.BreakExplainedGap, ids
		b.Note = explanation(used)
	case len(ids) > 0:
		b.Note = fmt.Sprintf("statement records with no logged debit in the interval sum to %s, not %s",
			recon.Money(sum), recon.Money(c.delta))
	default:
		b.Note = "no statement record explains it"
	}
	return b
}

// maxNamed is how many records an explained gap's note names; ExplainedBy
// lists them all.
const maxNamed = 5

// explanation says what explains a gap, record by record: "explained by
// reversal credit X (25.00), unlogged debit Y (1.50), a pending call's
// debit Z (2.95)".
func explanation(recs []*wrec) string {
	var b strings.Builder
	b.WriteString("explained by ")
	for i, r := range recs {
		if i == maxNamed {
			fmt.Fprintf(&b, " and %d more records", len(recs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		var what string
		switch {
		case r.flags&recCR != 0:
			what = "reversal credit"
		case r.flags&recLinkedPending != 0:
			what = "a pending call's debit"
		case r.flags&recLinked == 0:
			what = "unlogged debit"
		default:
			what = "debit of a call logged without one" // a failed call, or one outside the period
		}
		fmt.Fprintf(&b, "%s %s (%s)", what, r.svc, recon.Money(r.amount))
	}
	return b.String()
}
