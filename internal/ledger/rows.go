package ledger

import (
	"fmt"
	"sort"

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
		p.orphanCall(k)
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

// orphanCall holds an unmatched call for the pairing at the end.
func (p *pass) orphanCall(k *kcall) {
	if p.unpaired {
		p.settleOrphans([]kcall{*k}, nil, false)
		return
	}
	p.orphanCalls = append(p.orphanCalls, *k)
	p.boundOrphans()
}

// orphanRec holds an unmatched statement record for the pairing at the end.
func (p *pass) orphanRec(r *wrec) {
	if p.unpaired {
		p.settleOrphans(nil, []*wrec{r}, false)
		return
	}
	p.orphanRecs = append(p.orphanRecs, r)
	p.boundOrphans()
}

// boundOrphans gives the pairing up when more orphans are held than
// cfg.maxOrphans (MaxOrphans): those held are stored now, unpaired, and so
// is every one found after.
func (p *pass) boundOrphans() {
	limit := p.cfg.maxOrphans
	if limit <= 0 {
		limit = MaxOrphans
	}
	if len(p.orphanCalls)+len(p.orphanRecs) <= limit {
		return
	}
	p.unpaired = true
	p.sum.pairingSkipped = fmt.Sprintf("more than %d unmatched calls and records", limit)
	p.settleOrphans(p.orphanCalls, p.orphanRecs, false)
	p.orphanCalls, p.orphanRecs = nil, nil
}

// orphans ends the matching: the calls and records held without a
// counterpart are settled, and paired unless the pairing was given up.
func (p *pass) orphans() {
	p.settleOrphans(p.orphanCalls, p.orphanRecs, !p.unpaired)
	p.orphanCalls, p.orphanRecs = nil, nil
}

// settleOrphans stores calls and records without a counterpart:
// duplicateDebit when their externalRef is known to be debited twice, else
// callOnly and statementOnly, each paired with its likely counterpart
// where the rule allows (pair.go) when pair is set, else noted unpaired.
// A row stored before its externalRef is found debited twice is made a
// duplicateDebit at the end (fixDuplicates).
func (p *pass) settleOrphans(orphanCalls []kcall, orphanRecs []*wrec, pair bool) {
	var calls []orphanCall
	var recs []orphanRec
	var callKs []kcall
	var recWs []*wrec
	for _, k := range orphanCalls {
		if p.dups.isDup(k.ref) {
			m := Match{TS: fmtTS(k.ts), CallID: k.id, ExternalRef: k.ref, Operation: k.op, CallAmount: k.money}
			asDuplicate(&m, "")
			p.tally.match(m, k.amount, k.ts, nil)
			continue
		}
		calls = append(calls, orphanCall{id: k.id, ts: k.ts, account: p.accts.names[k.acct], amount: k.amount, op: k.op})
		callKs = append(callKs, k)
	}
	for _, r := range orphanRecs {
		if p.dups.isDup(r.client) {
			m := Match{TS: fmtTS(r.ts), SvcOrderID: r.svc, ExternalRef: r.client, StatementAmount: r.money}
			asDuplicate(&m, "")
			p.tally.match(m, r.amount, r.ts, r)
			continue
		}
		recs = append(recs, orphanRec{svc: r.svc, ts: r.ts, account: r.account, amount: r.amount, product: r.product})
		recWs = append(recWs, r)
	}
	callNotes := make([]pairNote, len(calls))
	recNotes := make([]pairNote, len(recs))
	switch {
	case pair && len(calls) > 0 && len(recs) > 0:
		rule := pairRule{window: p.cfg.pairWindow, products: p.products, accounts: p.cfg.recAccts}
		callNotes, recNotes, p.sum.pairs = suggestPairs(calls, recs, rule)
	case !pair:
		for i := range callNotes {
			callNotes[i].reason = p.sum.pairingSkipped
		}
		for i := range recNotes {
			recNotes[i].reason = p.sum.pairingSkipped
		}
	}
	note := func(m *Match, n pairNote) {
		m.SuggestedPair = n.suggestion
		if n.reason != "" {
			m.Note += "; no suggested pair: " + n.reason
		}
	}
	for i, k := range callKs {
		m := Match{Outcome: recon.CallOnly, TS: fmtTS(k.ts), CallID: k.id, ExternalRef: k.ref, Operation: k.op,
			CallAmount: k.money, Note: "no statement record for this debit"}
		note(&m, callNotes[i])
		p.tally.match(m, k.amount, k.ts, nil)
	}
	for i, r := range recWs {
		m := Match{Outcome: recon.StatementOnly, TS: fmtTS(r.ts), SvcOrderID: r.svc, ExternalRef: r.client,
			StatementAmount: r.money, Note: "no call logged for this debit"}
		note(&m, recNotes[i])
		p.tally.match(m, r.amount, r.ts, r)
	}
}

// report builds the run's summary and the report's lists.
func (p *pass) report(run Run) (*Report, error) {
	if err := p.out.Err(); err != nil {
		return nil, err
	}
	sm := &p.sum
	s := recon.Summary{From: run.From, To: run.To, AsOf: run.AsOf,
		Calls: sm.calls, CallsFailed: sm.failed, CallsPending: sm.pending, CallsWithDebit: sm.withDebit,
		Debited: recon.Money(sm.debited), Credited: recon.Money(sm.credited), Pools: []recon.PoolSummary{}}
	accts := make([]uint16, 0, len(p.chain.states))
	for a := range p.chain.states {
		accts = append(accts, a)
	}
	sort.Slice(accts, func(i, j int) bool { return p.accts.names[accts[i]] < p.accts.names[accts[j]] })
	for _, a := range accts {
		st := p.chain.states[a]
		s.Pools = append(s.Pools, recon.PoolSummary{Account: p.accts.names[a], Opening: recon.Money(st.opening),
			Closing: recon.Money(st.closing), Calls: st.calls, Debited: recon.Money(st.debited)})
	}
	p.tally.fill(&s)
	s.SuggestedPairs = sm.pairs
	s.PairingSkipped = sm.pairingSkipped
	rep := &Report{Summary: s, Records: sm.records}
	rep.Breaks, rep.Exceptions = p.tally.lists.sorted()
	return rep, nil
}
