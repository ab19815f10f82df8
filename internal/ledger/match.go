package ledger

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The matching stage (design: matching) streams the period's statement
// records alongside the calls (the record window, window.go) and links
// each call to its record: by orderid = svcOrderId, else externalRef =
// clientOrderId, looking beyond the window, and beyond the period, by key
// when the record is not near. Each call with a row then gets its outcome:
// pending, reversed, matched or amountMismatch, or none yet (callOnly: the
// suggested-pairs stage's). The records leave the window with their links
// known, to the later stages.

// matchFinder is the matching stage's look-ups (Finder).
type matchFinder interface {
	windowFinder
	PeriodRecord(ctx context.Context, svcOrderID string) (Record, bool, error)
	PeriodRecordsByClient(ctx context.Context, clientOrderID string) ([]Record, error)
	DebitBySvc(ctx context.Context, svcOrderID string) (Record, bool, error)
	DebitByClient(ctx context.Context, clientOrderID string) (Record, bool, error)
}

// matcher is the matching stage.
type matcher struct {
	ctx      context.Context
	find     matchFinder
	win      *recWindow
	period   Window          // the period's first and last timestamps
	openRefs map[string]bool // the load stage's: calls not stored successful that records carry
	// products are the productCodes the rows linking a call to its record
	// show for each operation (the suggested pairs' rule).
	products map[string]map[string]bool
	lastTS   int64 // the second last formatted, and its text
	lastTxt  string
}

// newMatcher starts the matching stage over the period's statement
// records (next pulls them in time order); the records leave to out.
func newMatcher(ctx context.Context, per *period, find matchFinder, next func() (Record, error, bool), out recordOut) *matcher {
	win := newRecWindow(ctx, find, out, next)
	win.resolvedOrders = per.resolvedOrders
	return &matcher{ctx: ctx, find: find, win: win, period: per.window, openRefs: per.openRefs,
		products: map[string]map[string]bool{}}
}

// advance moves the record window to the call at second t (ts its text):
// the records near it are loaded, the others leave.
func (m *matcher) advance(t int64, ts string) error {
	m.win.now = ts
	return m.win.advance(t)
}

// settled reports whether every record of [from, to] has left the window.
func (m *matcher) settled(from, to int64) bool { return m.win.settled(from, to) }

// counts are the statement records the stage read and finished, and the
// sum of the credit (CR) records' amounts.
func (m *matcher) counts() (records int, credited decimal.Decimal) {
	return m.win.records, m.win.credited
}

// drain ends the stream after the last call: every record left is read
// and leaves.
func (m *matcher) drain() error { return m.win.drain() }

// link links call c (resolved; stored is its outcome as stored) to its
// record, nil when the period has none for it, and marks the record.
func (m *matcher) link(c *recon.Call, stored recon.CallOutcome) (*wrec, error) {
	rec, err := m.recordOf(c.OrderID, c.ExternalRef, stored == recon.CallSuccess)
	if err != nil {
		return nil, err
	}
	m.win.mark(rec, c.Debit(), c.Outcome == recon.CallPending)
	return rec, nil
}

// recordOf returns the debit record a call links to: by orderid, else by
// externalRef = clientOrderId, the first such record not yet linked to a
// debit, else the first; nil when there is none in the period. stored says
// the call was stored as successful: only those and the externalRefs of
// openRefs may have records by externalRef.
func (m *matcher) recordOf(orderID, ref string, stored bool) (*wrec, error) {
	w := m.win
	if orderID != "" {
		if r, ok := w.bySvc[orderID]; ok {
			if !r.cr() {
				return r, nil
			}
		} else {
			rec, ok, err := m.find.PeriodRecord(m.ctx, orderID)
			if err != nil {
				return nil, err
			}
			if ok && !isCR(rec.TxnMode) {
				return w.far(&rec)
			}
		}
	}
	if ref == "" {
		return nil, nil
	}
	cands := w.byClient[ref]
	for _, r := range cands {
		if !r.linkedDebit() {
			return r, nil
		}
	}
	if len(cands) == 0 && !stored && !m.openRefs[ref] {
		return nil, nil // no record of the period carries it
	}
	all, err := m.find.PeriodRecordsByClient(m.ctx, ref)
	if err != nil {
		return nil, err
	}
	var first *wrec
	for i := range all {
		if isCR(all[i].TxnMode) {
			continue
		}
		r, err := w.far(&all[i])
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = r
		}
		if !r.linkedDebit() {
			return r, nil
		}
	}
	return first, nil
}

// linkOutside looks beyond the period for the record of a call that has
// none in it: by orderid, else by externalRef.
func (m *matcher) linkOutside(k *kcall) error {
	var rec Record
	var ok bool
	var err error
	if k.orderID != "" {
		if rec, ok, err = m.find.DebitBySvc(m.ctx, k.orderID); err != nil {
			return err
		}
	}
	if !ok && k.ref != "" {
		if rec, ok, err = m.find.DebitByClient(m.ctx, k.ref); err != nil {
			return err
		}
	}
	if !ok {
		return nil
	}
	r, err := m.outside(rec)
	if err != nil {
		return err
	}
	k.rec = r
	m.win.mark(r, !k.pending, k.pending)
	return nil
}

// outside returns a record found beyond the period (for a call that has
// none in it); one of the period's after all (a mode the database and the
// check read differently) is the period's own.
func (m *matcher) outside(rec Record) (*wrec, error) {
	if rec.TxnDateTime >= m.period.From && rec.TxnDateTime <= m.period.To {
		return m.win.far(&rec)
	}
	r, err := compact(&rec)
	if err != nil {
		return nil, err
	}
	r.far, r.flags = farOutside, r.flags|recOutside
	return r, nil
}

// callRow gives a debit or pending call its row: pending, reversed,
// matched (amounts equal) or amountMismatch; orphan is true for a debit
// without a record (callOnly, for the suggested pairs), whose row has its
// call's fields only. amount is what the row counts for.
func (m *matcher) callRow(k *kcall) (row Match, amount decimal.Decimal, orphan bool) {
	r := k.rec
	row = Match{TS: m.fmtTS(k.ts), CallID: k.id, ExternalRef: k.ref, Operation: k.op}
	amount = k.amount
	if !k.pending {
		row.CallAmount = k.money
	}
	if r != nil {
		row.SvcOrderID, row.StatementAmount = r.svc, r.money
		if row.ExternalRef == "" {
			row.ExternalRef = r.client
		}
		// TS is the call's own text (parseTS reads only what fmtTS writes).
		row.CallsOwn = row.ExternalRef == k.ref
		if k.pending {
			amount = r.amount
		}
		m.seeProduct(k.op, r.product)
	}
	switch {
	case k.pending:
		row.Outcome = recon.Pending
		row.Note = "the statement shows the debit"
		if r == nil {
			row.Note, amount = "no statement record: look the outcome up with txnStatus", decimal.Zero
		}
	case r == nil:
		return row, amount, true
	case r.reversal != "":
		row.Outcome = recon.Reversed
		row.Note = "reversed by " + r.reversal
	default:
		// Equal texts of recon.Money are equal amounts: no decimal needed.
		if k.money != r.money {
			row.Delta = amountDelta(k.amount, r.amount)
		}
		row.Outcome = recon.Matched
		if row.Delta != "" {
			row.Outcome, row.Note = recon.AmountMismatch, "call amount ≠ txnChargedValue"
		}
	}
	return row, amount, false
}

// delta is the call's amount less its record's ("" when equal, or with no
// record).
func (k *kcall) delta() string {
	if k.rec == nil {
		return ""
	}
	return amountDelta(k.amount, k.rec.amount)
}

// seeProduct notes that a row links a call of operation op to a record of
// productCode code.
func (m *matcher) seeProduct(op, code string) {
	if op == "" || code == "" {
		return
	}
	seen := m.products[op]
	if seen == nil {
		seen = map[string]bool{}
		m.products[op] = seen
	}
	seen[code] = true
}

// fmtTS formats a time of the stage (the same second, over and over).
func (m *matcher) fmtTS(v int64) string {
	if v != m.lastTS || m.lastTxt == "" {
		m.lastTS, m.lastTxt = v, fmtTS(v)
	}
	return m.lastTxt
}
