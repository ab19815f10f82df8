package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// bridge walks one pool account's balance from the first call's opening to
// the last call's closing. Every chain gap and arithmetic break moves the
// balance by -delta (delta = expected − actual: positive when the pool lost
// money), so
//
//	closing = opening − debits + credits − unlogged − unexplained
//
// where credits and unlogged are the explained gaps whose deltas are
// negative (reversal credits) and positive (debits with no logged call),
// and unexplained is the sum of the deltas of the gaps and arithmetic
// breaks nothing explains. The computed closing is checked against the
// last call's closing (LastClosing).
type bridge struct {
	Account                         string
	Opening, Debits, Credits        decimal.Decimal
	Unlogged, Unexplained           decimal.Decimal // sums of deltas (signed)
	LastClosing                     decimal.Decimal
	Calls, NCredits, NUnlogged, NUn int
}

// Closing is the closing balance the bridge arrives at.
func (b *bridge) Closing() decimal.Decimal {
	return b.Opening.Sub(b.Debits).Add(b.Credits).Sub(b.Unlogged).Sub(b.Unexplained)
}

// Difference is the last call's closing less the bridge's closing (zero
// when the bridge checks).
func (b *bridge) Difference() decimal.Decimal { return b.LastClosing.Sub(b.Closing()) }

// bridgeLine is one line of a bridge: a label, a signed amount (the lines
// add up to the closing balance), and how many items it sums (-1: none).
type bridgeLine struct {
	Key, Label string
	Amount     decimal.Decimal
	N          int
}

// Lines are the bridge's lines from the opening balance to the closing
// balance; the amounts of all but the last add up to the last.
func (b *bridge) Lines() []bridgeLine {
	return []bridgeLine{
		{"opening", "Opening balance (first call's opening)", b.Opening, -1},
		{"debits", "− Debits of logged calls", b.Debits.Neg(), b.Calls},
		{"credits", "+ Credits (reversals) that explain gaps", b.Credits, b.NCredits},
		{"unloggedDebits", "− Debits with no logged call that explain gaps", b.Unlogged.Neg(), b.NUnlogged},
		{"unexplainedBreaks", "± Unexplained breaks", b.Unexplained.Neg(), b.NUn},
		{"closing", "= Closing balance", b.Closing(), -1},
	}
}

// Check says whether the bridge's closing is the last call's closing:
// "checked", or "difference <last − bridge>".
func (b *bridge) Check() string {
	if d := b.Difference(); !d.IsZero() {
		return "difference " + recon.Money(d)
	}
	return "checked"
}

// parseAmount reads an exact amount of the run's summary ("" is 0).
func parseAmount(what, s string) (decimal.Decimal, error) {
	d, err := decimal.NewFromString(orZero(s))
	if err != nil {
		return d, fmt.Errorf("run summary: %s %q is not an amount", what, s)
	}
	return d, nil
}

// bridges builds the bridge of every pool account of the run's summary,
// with the break totals of the run (per pool account, kind and sign). A
// pool account that has breaks but no pool summary gets a bridge of its
// own (opening and closing 0), which then shows its difference.
func bridges(s *recon.Summary, totals []store.ReportBreakTotal) ([]bridge, error) {
	out := make([]bridge, 0, len(s.Pools))
	idx := map[string]int{}
	for _, p := range s.Pools {
		b := bridge{Account: p.Account, Calls: p.Calls}
		var err error
		if b.Opening, err = parseAmount("pool "+p.Account+" opening", p.Opening); err != nil {
			return nil, err
		}
		if b.LastClosing, err = parseAmount("pool "+p.Account+" closing", p.Closing); err != nil {
			return nil, err
		}
		if b.Debits, err = parseAmount("pool "+p.Account+" debited", p.Debited); err != nil {
			return nil, err
		}
		idx[p.Account] = len(out)
		out = append(out, b)
	}
	for _, t := range totals {
		i, ok := idx[t.PoolAccount]
		if !ok {
			i = len(out)
			idx[t.PoolAccount] = i
			out = append(out, bridge{Account: t.PoolAccount})
		}
		b := &out[i]
		switch {
		case t.Kind != recon.BreakExplainedGap:
			b.Unexplained, b.NUn = b.Unexplained.Add(t.Delta), b.NUn+t.Count
		case t.Negative:
			b.Credits, b.NCredits = b.Credits.Sub(t.Delta), b.NCredits+t.Count
		default:
			b.Unlogged, b.NUnlogged = b.Unlogged.Add(t.Delta), b.NUnlogged+t.Count
		}
	}
	return out, nil
}

// verdict is the Summary's answer in words.
type verdict struct {
	Reconciled  bool
	Text        string
	Unexplained decimal.Decimal // Σ |delta| of the unexplained breaks
	Breaks      int             // unexplained breaks
	Exceptions  int             // matching outcomes other than matched, reversed and timing
	Timing      int             // timing differences: counted apart, no exception
	Unlinked    int             // reversals whose reversal record was not synced
}

// plural is "1 break", "2 breaks".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// verdictOf judges a run: Reconciled when nothing is unexplained, no
// matching exception is left, every reversal is linked and every bridge
// checks; else "Not reconciled: " and what is left, e.g. "Not reconciled:
// 35.50 unexplained in 2 breaks; 5 exceptions to review"; timing
// differences are counted apart: "Reconciled (apart: 1 timing difference,
// expected the next day)". A period with no
// call, no statement record and no order is "Nothing to reconcile".
//
// records says whether the statement holds a debit or credit record of
// the period; it is asked only when nothing else was seen (no call, no
// finding), the one case where it decides the verdict.
func verdictOf(r *ledger.Run, records func() (bool, error), br []bridge, totals []store.ReportBreakTotal) (verdict, error) {
	s := &r.Summary
	var v verdict
	for _, t := range totals {
		if t.Kind != recon.BreakExplainedGap {
			v.Breaks += t.Count
			v.Unexplained = v.Unexplained.Add(t.Delta.Abs())
		}
	}
	seen := s.Calls > 0 || len(totals) > 0
	for k, o := range s.Outcomes {
		seen = seen || o.Count > 0
		switch k {
		case recon.Matched, recon.Reversed:
		case recon.Timing:
			v.Timing += o.Count
		default:
			v.Exceptions += o.Count
		}
	}
	for _, u := range s.Unsettled {
		seen = seen || u.Count > 0
	}
	if !seen {
		var err error
		if seen, err = records(); err != nil {
			return v, err
		}
	}
	v.Unlinked = s.Reversals.Unlinked
	var parts []string
	if v.Breaks > 0 {
		parts = append(parts, recon.Money(v.Unexplained)+" unexplained in "+plural(v.Breaks, "break", "breaks"))
	}
	if v.Exceptions > 0 {
		parts = append(parts, plural(v.Exceptions, "exception", "exceptions")+" to review")
	}
	if v.Unlinked > 0 {
		parts = append(parts, plural(v.Unlinked, "reversal", "reversals")+" not linked")
	}
	parts = append(parts, feeVerdict(s.Fees)...)
	for i := range br {
		if d := br[i].Difference(); !d.IsZero() {
			parts = append(parts, fmt.Sprintf("the bridge of pool %s is off by %s", poolName(br[i].Account), recon.Money(d)))
		}
	}
	timing := ""
	if v.Timing > 0 {
		timing = " (apart: " + plural(v.Timing, "timing difference", "timing differences") + ", expected the next day)"
	}
	switch {
	case len(parts) > 0:
		v.Text = "Not reconciled: " + strings.Join(parts, "; ") + timing
	case !seen:
		v.Text = fmt.Sprintf("Nothing to reconcile: no call and no record in %s to %s", r.From, r.To)
	default:
		v.Reconciled, v.Text = true, "Reconciled"+timing
	}
	return v, nil
}

// poolName is a pool account's name as the Summary shows it.
func poolName(acct string) string {
	if acct == "" {
		return "(unnamed)"
	}
	return acct
}
