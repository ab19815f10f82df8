package ledger

import (
	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// moneyText is recon.Money of an amount read from text: the text padded
// when it is a plain decimal, else the decimal formatted.
func moneyText(text string, d decimal.Decimal) string {
	if m, ok := money(text); ok {
		return m
	}
	return recon.Money(d)
}

// amountDelta returns call − statement, or "" when they are equal.
func amountDelta(call, stmt decimal.Decimal) string {
	if call.Equal(stmt) {
		return ""
	}
	return recon.Money(call.Sub(stmt))
}

// callRow gives a debit or pending call its outcome (recon.Outcomes) and
// stores its row: pending, duplicateDebit (its externalRef debited twice),
// reversed, matched (amounts equal) or amountMismatch; a call without a
// record is kept as an orphan for the end (callOnly, maybe paired).
func (p *pass) callRow(k *kcall) {
	r := k.rec
	m := Match{TS: p.fmtTS(k.ts), CallID: k.id, ExternalRef: k.ref, Operation: k.op}
	amount := k.amount
	if !k.pending {
		m.CallAmount = k.money
	}
	if r != nil {
		m.SvcOrderID, m.StatementAmount = r.svc, r.money
		if m.ExternalRef == "" {
			m.ExternalRef = r.client
		}
		// TS is the call's own text (parseTS reads only what fmtTS writes).
		m.CallsOwn = m.ExternalRef == k.ref
		if k.pending {
			amount = r.amount
		}
	}
	switch {
	case k.pending:
		m.Outcome = recon.Pending
		if r == nil {
			m.Note = "no statement record: look the outcome up with txnStatus"
		} else {
			m.Note = "the statement shows the debit"
		}
	case p.dups.isDup(k.ref):
		delta := ""
		if r != nil {
			delta = amountDelta(k.amount, r.amount)
		}
		asDuplicate(&m, delta)
	case r == nil:
		p.pairs.holdCall(*k)
		return
	case r.reversal != "":
		m.Outcome = recon.Reversed
		m.Note = "reversed by " + r.reversal
	default:
		// Equal texts of recon.Money are equal amounts: no decimal needed.
		d := ""
		if k.money != r.money {
			d = amountDelta(k.amount, r.amount)
		}
		if d != "" {
			m.Outcome, m.Delta = recon.AmountMismatch, d
			m.Note = "call amount ≠ txnChargedValue"
		} else {
			m.Outcome = recon.Matched
		}
	}
	if r != nil && k.op != "" && r.product != "" {
		seen := p.products[k.op]
		if seen == nil {
			seen = map[string]bool{}
			p.products[k.op] = seen
		}
		seen[r.product] = true
	}
	if k.pending && r == nil {
		amount = decimal.Zero
	}
	p.tally.match(m, amount, k.ts, nil)
}

// report builds the run's summary and the report's lists.
func (p *pass) report(run Run) (*Report, error) {
	if err := p.out.Err(); err != nil {
		return nil, err
	}
	sm := &p.sum
	s := recon.Summary{From: run.From, To: run.To, AsOf: run.AsOf, Credited: recon.Money(sm.credited)}
	p.pool.fill(&s)
	p.tally.fill(&s)
	s.SuggestedPairs = p.pairs.pairs
	s.PairingSkipped = p.pairs.skipped
	rep := &Report{Summary: s, Records: sm.records}
	rep.Breaks, rep.Exceptions = p.tally.lists.sorted()
	return rep, nil
}
