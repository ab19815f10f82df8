package ledger

import (
	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// dupFinder finds the externalRefs debited more than once (design:
// duplicate debit): by two debits with distinct orderids, or by two debit
// records of the period. Two Bloom filters remember the externalRefs of
// the debits and the clientOrderIds of the debit records met so far; a
// second meeting is checked exactly, once per externalRef, against all the
// period's calls or records of it. A duplicate found after rows of its
// externalRef were stored is corrected at the end (fixDuplicates).
type dupFinder struct {
	p                       *pass
	calls, recs             *bloom
	callVerdict, recVerdict map[string]bool
	dup                     map[string]bool
	found                   []string // in the order found
}

func newDupFinder(p *pass) *dupFinder {
	return &dupFinder{p: p, calls: newBloom(), recs: newBloom(), callVerdict: map[string]bool{},
		recVerdict: map[string]bool{}, dup: map[string]bool{}}
}

// isDup reports whether ref is known to be debited more than once.
func (d *dupFinder) isDup(ref string) bool { return ref != "" && d.dup[ref] }

func (d *dupFinder) markDup(ref string) {
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
func (d *dupFinder) seeDebit(ref string) error {
	if !again(d.calls, d.callVerdict, ref) {
		return nil
	}
	calls, err := d.p.find.RefCalls(d.p.ctx, ref)
	if err != nil {
		return err
	}
	first, seen, dup := "", false, false
	for _, c := range calls {
		outcome, shape, orderID := recon.CallOutcome(c.Outcome), c.Shape, c.OrderID
		if r, ok := d.p.cfg.resolved[c.ID]; ok && outcome == recon.CallPending {
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
func (d *dupFinder) seeRecord(client string) error {
	if !again(d.recs, d.recVerdict, client) {
		return nil
	}
	recs, err := d.p.find.PeriodRecordsByClient(d.p.ctx, client)
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

// fixDuplicates turns the stored rows of calls whose externalRef turned
// out to be debited more than once after they were stored (and the
// statementOnly rows of such a clientOrderId) into duplicateDebit rows,
// and corrects the counts and the report. A pending row stays.
func (p *pass) fixDuplicates() error {
	if len(p.dups.found) == 0 {
		return nil
	}
	var old []Match
	err := p.out.RewriteMatches(p.dups.found, func(m Match) (Match, bool) {
		if m.Outcome == recon.DuplicateDebit || m.Outcome == recon.Pending || m.CallID == 0 && m.Outcome != recon.StatementOnly {
			return m, false
		}
		old = append(old, m)
		toDuplicate(&m)
		return m, true
	})
	if err != nil {
		return err
	}
	for _, m := range old {
		amount := decimal.Zero
		switch {
		case m.CallAmount != "":
			amount, _ = decimal.NewFromString(m.CallAmount)
		case m.StatementAmount != "":
			amount, _ = decimal.NewFromString(m.StatementAmount)
		}
		fixed := m
		toDuplicate(&fixed)
		p.tally.replace(m, fixed, amount)
	}
	return nil
}

// toDuplicate makes a stored call's row a duplicateDebit row.
func toDuplicate(m *Match) {
	m.Outcome, m.Note, m.Delta = recon.DuplicateDebit, "externalRef debited more than once", ""
	if m.CallID == 0 {
		m.Note += "; no call logged for this debit"
	}
	if m.SvcOrderID != "" && m.CallAmount != "" && m.StatementAmount != "" {
		c, err1 := decimal.NewFromString(m.CallAmount)
		s, err2 := decimal.NewFromString(m.StatementAmount)
		if err1 == nil && err2 == nil {
			m.Delta = amountDelta(c, s)
		}
	}
}
