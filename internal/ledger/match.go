package ledger

import (
	"cmp"
	"slices"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// kcall is a call the results need: one carrying a pool debit, or pending.
type kcall struct {
	id      int64
	ts      int64
	ref     string
	orderID string
	op      string
	amount  decimal.Decimal // pool amount; zero for pending calls
	rec     int32           // linked record, -1
	acct    uint16
	pending bool
	skip    bool // the same debit logged twice (same orderid, same second)
}

// matchRow is one matching result: a call, a record or both.
type matchRow struct {
	outcome string
	call    int32 // -1 for none
	rec     int32 // -1 for none
	ts      int64
	delta   string
	note    string
	pair    string // the suggested counterpart and why (pair.go); never a match
}

// duplicateRefs finds the externalRefs debited more than once: by two
// debits with distinct orderids, or by two DR records of the period.
func duplicateRefs(calls []kcall, b *book) map[string]bool {
	dup := map[string]bool{}
	firstOrder := map[string]string{}
	for i := range calls {
		k := &calls[i]
		if k.pending || k.skip || k.ref == "" {
			continue
		}
		if o, ok := firstOrder[k.ref]; !ok {
			firstOrder[k.ref] = k.orderID
		} else if o != k.orderID {
			dup[k.ref] = true
		}
	}
	for ref, i := range b.byClient {
		if b.recs[i].next >= 0 {
			dup[ref] = true
		}
	}
	return dup
}

// match gives every debit, pending call and unlinked DR record of the
// period its outcome (recon.Outcomes), in time order: matched (amounts
// equal), amountMismatch, callOnly (no record), statementOnly (no call),
// duplicateDebit (its externalRef debited twice), pending, reversed.
func match(calls []kcall, b *book) []matchRow {
	dupRefs := duplicateRefs(calls, b)
	var out []matchRow
	for i := range calls {
		k := &calls[i]
		if k.skip {
			continue
		}
		m := matchRow{call: int32(i), rec: k.rec, ts: k.ts}
		var r *srec
		if k.rec >= 0 {
			r = &b.recs[k.rec]
		}
		switch {
		case k.pending:
			m.outcome = recon.Pending
			if r == nil {
				m.note = "no statement record: look the outcome up with txnStatus"
			} else {
				m.note = "the statement shows the debit"
			}
		case dupRefs[k.ref]:
			m.outcome = recon.DuplicateDebit
			m.note = "externalRef debited more than once"
			if r != nil {
				m.delta = amountDelta(k.amount, r.amount)
			}
		case r == nil:
			m.outcome = recon.CallOnly
			m.note = "no statement record for this debit"
		case r.reversal != "":
			m.outcome = recon.Reversed
			m.note = "reversed by " + r.reversal
		default:
			if d := amountDelta(k.amount, r.amount); d != "" {
				m.outcome, m.delta = recon.AmountMismatch, d
				m.note = "call amount ≠ txnChargedValue"
			} else {
				m.outcome = recon.Matched
			}
		}
		out = append(out, m)
	}
	for i, r := range b.period() {
		if r.flags&(recCR|recLinked) != 0 {
			continue
		}
		m := matchRow{outcome: recon.StatementOnly, call: -1, rec: int32(i), ts: r.ts, note: "no call logged for this debit"}
		if r.client != "" && dupRefs[r.client] {
			m.outcome, m.note = recon.DuplicateDebit, "externalRef debited more than once; no call logged for this debit"
		}
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b matchRow) int { return cmp.Compare(a.ts, b.ts) })
	return out
}

// amountDelta returns call − statement, or "" when they are equal.
func amountDelta(call, stmt decimal.Decimal) string {
	if call.Equal(stmt) {
		return ""
	}
	return recon.Money(call.Sub(stmt))
}
