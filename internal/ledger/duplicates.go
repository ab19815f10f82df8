package ledger

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The duplicates stage (design: duplicate debit) finds the externalRefs
// debited more than once: by two debits with distinct orderids, or by two
// debit records of the period. Two Bloom filters remember the externalRefs
// of the debits and the clientOrderIds of the debit records met so far; a
// second meeting is checked exactly, once per externalRef, against all the
// period's calls or records of it. A row made after its externalRef is
// known twice is a duplicateDebit row from the start; one written before
// is rewritten at the end (fixLate).

// dupFinder is the duplicates stage's look-ups (Finder).
type dupFinder interface {
	RefCalls(ctx context.Context, ref string) ([]RefCall, error)
	PeriodRecordsByClient(ctx context.Context, clientOrderID string) ([]Record, error)
}

// duplicates is the duplicates stage.
type duplicates struct {
	ctx                     context.Context
	find                    dupFinder
	resolved                map[int64]resolution // the load stage's pending calls resolved
	calls, recs             *bloom
	callVerdict, recVerdict map[string]bool
	dup                     map[string]bool
	found                   []string // in the order found
}

func newDuplicates(ctx context.Context, find dupFinder, resolved map[int64]resolution) *duplicates {
	return &duplicates{ctx: ctx, find: find, resolved: resolved, calls: newBloom(), recs: newBloom(),
		callVerdict: map[string]bool{}, recVerdict: map[string]bool{}, dup: map[string]bool{}}
}

// isDup reports whether ref is known to be debited more than once.
func (d *duplicates) isDup(ref string) bool { return ref != "" && d.dup[ref] }

func (d *duplicates) markDup(ref string) {
	if !d.dup[ref] {
		d.dup[ref] = true
		d.found = append(d.found, ref)
	}
}

// again reports whether key was met before in b (maybe) and has no verdict
// yet: it is then to be checked exactly. A key met first is added.
func again(b *bloom, verdicts map[string]bool, key string) bool {
	if !b.has(key) {
		b.add(key)
		return false
	}
	_, done := verdicts[key]
	return !done
}

// seeDebit notes a debit (not pending, counted once) of externalRef ref.
func (d *duplicates) seeDebit(ref string) error {
	if !again(d.calls, d.callVerdict, ref) {
		return nil
	}
	calls, err := d.find.RefCalls(d.ctx, ref)
	if err != nil {
		return err
	}
	first, seen, dup := "", false, false
	for _, c := range calls {
		outcome, shape, orderID := recon.CallOutcome(c.Outcome), c.Shape, c.OrderID
		if r, ok := d.resolved[c.ID]; ok && outcome == recon.CallPending {
			outcome = r.state
			if r.pool != nil {
				shape = string(r.pool.Shape)
			}
			if r.orderID != "" {
				orderID = r.orderID
			}
		}
		if outcome != recon.CallSuccess || shape == "" {
			continue
		}
		if !seen {
			first, seen = orderID, true
		} else if orderID != first {
			dup = true
		}
	}
	d.callVerdict[ref] = dup
	if dup {
		d.markDup(ref)
	}
	return nil
}

// seeRecord notes a debit record of the period with clientOrderId client.
func (d *duplicates) seeRecord(client string) error {
	if !again(d.recs, d.recVerdict, client) {
		return nil
	}
	recs, err := d.find.PeriodRecordsByClient(d.ctx, client)
	if err != nil {
		return err
	}
	n := 0
	for _, r := range recs {
		if !isCR(r.TxnMode) {
			n++
		}
	}
	d.recVerdict[client] = n > 1
	if n > 1 {
		d.markDup(client)
	}
	return nil
}

// asDuplicate makes m a duplicateDebit row; delta is the call's amount less
// the record's ("" when equal, or when the row has no call or no record).
func asDuplicate(m *Match, delta string) {
	m.Outcome, m.Note, m.Delta = recon.DuplicateDebit, "externalRef debited more than once", delta
	if m.CallID == 0 {
		m.Note += "; no call logged for this debit"
	}
}

// rewriter rewrites the rows written so far (RunWriter).
type rewriter interface {
	RewriteMatches(refs []string, rewrite func(Match) (Match, bool)) error
}

// lateFix is a row written before its externalRef was found debited twice,
// and the duplicateDebit row that replaced it; amount is what it counts
// for.
type lateFix struct {
	old, fixed Match
	amount     decimal.Decimal
}

// fixLate rewrites the rows written before their externalRef was found
// debited more than once: a call's row (but a pending call's), or a
// statementOnly row of that clientOrderId, becomes a duplicateDebit row.
// It returns the rows rewritten.
func (d *duplicates) fixLate(w rewriter) ([]lateFix, error) {
	if len(d.found) == 0 {
		return nil, nil
	}
	var fixes []lateFix
	err := w.RewriteMatches(d.found, func(m Match) (Match, bool) {
		if m.Outcome == recon.DuplicateDebit || m.Outcome == recon.Pending || m.CallID == 0 && m.Outcome != recon.StatementOnly {
			return m, false
		}
		f := lateFix{old: m, fixed: m}
		asDuplicate(&f.fixed, storedDelta(&m))
		switch {
		case m.CallAmount != "":
			f.amount, _ = decimal.NewFromString(m.CallAmount)
		case m.StatementAmount != "":
			f.amount, _ = decimal.NewFromString(m.StatementAmount)
		}
		fixes = append(fixes, f)
		return f.fixed, true
	})
	return fixes, err
}

// storedDelta is the call's amount less the record's of a row as written,
// when it has both.
func storedDelta(m *Match) string {
	if m.SvcOrderID == "" || m.CallAmount == "" || m.StatementAmount == "" {
		return ""
	}
	c, err1 := decimal.NewFromString(m.CallAmount)
	s, err2 := decimal.NewFromString(m.StatementAmount)
	if err1 != nil || err2 != nil {
		return ""
	}
	return amountDelta(c, s)
}
