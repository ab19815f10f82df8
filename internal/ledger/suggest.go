package ledger

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The suggested-pairs stage: the debits the matching stage found no
// record for (callOnly) and the debit records no call links
// (statementOnly) are held until the end, where each is paired with its
// likely counterpart where the rule allows (pair.go). Past a bound of
// rows held the pairing is given up, and each row is written as it comes,
// noted why. A row whose externalRef is known to be debited twice is a
// duplicateDebit row instead.

// MaxOrphans is how many unmatched calls and statement records together a
// check holds for the suggested pairs, which are chosen at the end among
// all of them. Past it the check gives the pairing up: it stores each
// unmatched row as it finds it, with a note, and holds none. An ordinary
// month leaves a few dozen; a hundred thousand means something else is
// wrong (a call log not imported, a statement of another account), and
// memory must not grow with it.
const MaxOrphans = 100_000

// suggester is the suggested-pairs stage.
type suggester struct {
	max    int        // MaxOrphans unless set
	tol    Tolerances // how far apart a pair may be (PairWindow set)
	isDup  func(ref string) bool
	emit   func(m Match, amount decimal.Decimal, ts int64, rec *wrec) // where the rows go (the tally)
	timing *timingRule                                                // which unpaired rows are timing (timing.go)

	calls   []kcall
	recs    []*wrec
	skipped string // why the pairing was given up ("": it was not)
	pairs   int    // pairs suggested
}

// holdCall holds a debit with no record.
func (s *suggester) holdCall(k kcall) {
	if s.skipped != "" {
		s.settle([]kcall{k}, nil, nil)
		return
	}
	s.calls = append(s.calls, k)
	s.bound()
}

// holdRecord holds a debit record no call links.
func (s *suggester) holdRecord(r *wrec) {
	if s.skipped != "" {
		s.settle(nil, []*wrec{r}, nil)
		return
	}
	s.recs = append(s.recs, r)
	s.bound()
}

// bound gives the pairing up when more rows are held than s.max: those
// held are written now, unpaired, and so is every one after.
func (s *suggester) bound() {
	limit := s.max
	if limit <= 0 {
		limit = MaxOrphans
	}
	if len(s.calls)+len(s.recs) <= limit {
		return
	}
	s.skipped = fmt.Sprintf("more than %d unmatched calls and records", limit)
	s.settle(s.calls, s.recs, nil)
	s.calls, s.recs = nil, nil
}

// filterRecords hands the debit records held to keep, which returns
// those the suggested pairs keep (the groups stage takes its parts).
func (s *suggester) filterRecords(keep func([]*wrec) []*wrec) { s.recs = keep(s.recs) }

// end writes the rows held, paired unless the pairing was given up. The
// rule's inputs: the productCodes the matched rows show for each operation
// (the matching stage's), the accounts the period's records name (the load
// stage's).
func (s *suggester) end(products map[string]map[string]bool, accounts map[string]bool) {
	var rule *pairRule
	if s.skipped == "" {
		rule = &pairRule{window: s.tol.PairWindow, tol: s.tol, products: products, accounts: accounts}
	}
	s.settle(s.calls, s.recs, rule)
	s.calls, s.recs = nil, nil
}

// settle writes calls and records without a counterpart: duplicateDebit
// when their externalRef is known to be debited twice, else callOnly and
// statementOnly, each with its suggested counterpart where rule allows,
// or (no rule) noted why there is none; an unpaired one at the period's
// edge is timing where the timing stage says so.
func (s *suggester) settle(heldCalls []kcall, heldRecs []*wrec, rule *pairRule) {
	var calls []orphanCall
	var recs []orphanRec
	var callKs []kcall
	var recWs []*wrec
	for _, k := range heldCalls {
		if s.isDup(k.ref) {
			m := Match{TS: fmtTS(k.ts), CallID: k.id, ExternalRef: k.ref, Operation: k.op, CallAmount: k.money}
			asDuplicate(&m, "")
			s.emit(m, k.amount, k.ts, nil)
			continue
		}
		calls = append(calls, orphanCall{id: k.id, ts: k.ts, account: k.account, amount: k.amount, op: k.op})
		callKs = append(callKs, k)
	}
	for _, r := range heldRecs {
		if s.isDup(r.client) {
			m := Match{TS: fmtTS(r.ts), SvcOrderID: r.svc, ExternalRef: r.client, StatementAmount: r.money}
			asDuplicate(&m, "")
			s.emit(m, r.amount, r.ts, r)
			continue
		}
		recs = append(recs, orphanRec{svc: r.svc, ts: r.ts, account: r.account, amount: r.amount, product: r.product})
		recWs = append(recWs, r)
	}
	callNotes, recNotes := s.notes(calls, recs, rule)
	for i, k := range callKs {
		m := Match{Outcome: recon.CallOnly, TS: fmtTS(k.ts), CallID: k.id, ExternalRef: k.ref, Operation: k.op,
			CallAmount: k.money, Note: "no statement record for this debit"}
		callNotes[i].put(&m)
		s.timing.asTiming(&m, k.ts)
		s.emit(m, k.amount, k.ts, nil)
	}
	for i, r := range recWs {
		m := Match{Outcome: recon.StatementOnly, TS: fmtTS(r.ts), SvcOrderID: r.svc, ExternalRef: r.client,
			StatementAmount: r.money, Note: "no call logged for this debit"}
		recNotes[i].put(&m)
		s.timing.asTiming(&m, r.ts)
		s.emit(m, r.amount, r.ts, r)
	}
}

// notes pairs calls and records by rule, or (no rule) notes each why the
// pairing was given up.
func (s *suggester) notes(calls []orphanCall, recs []orphanRec, rule *pairRule) (callNotes, recNotes []pairNote) {
	callNotes, recNotes = make([]pairNote, len(calls)), make([]pairNote, len(recs))
	switch {
	case rule != nil && len(calls) > 0 && len(recs) > 0:
		callNotes, recNotes, s.pairs = suggestPairs(calls, recs, *rule)
	case rule == nil:
		for i := range callNotes {
			callNotes[i].reason = s.skipped
		}
		for i := range recNotes {
			recNotes[i].reason = s.skipped
		}
	}
	return callNotes, recNotes
}

// put writes the note on its row: the suggested pair, or why there is none.
func (n pairNote) put(m *Match) {
	m.SuggestedPair = n.suggestion
	if n.reason != "" {
		m.Note += "; no suggested pair: " + n.reason
	}
}
