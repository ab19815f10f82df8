package ledger

import (
	"context"
	"fmt"
	"iter"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The duplicates stage (design: duplicate debit) finds the externalRefs
// debited more than once: by two debits with distinct orderids, or by two
// debit records of the period. Before the period's streams it reads from
// the database the externalRefs of more than one call and the
// clientOrderIds of more than one record (of any date: a superset, read
// from the indexes alone), as key sets; a debit whose key is in its set
// and met a second time is checked exactly, once per key, against all the
// period's calls or records of it. Its memory is that of the keys that
// repeat (9 bytes each), not of the month. A row made after its
// externalRef is known twice is a duplicateDebit row from the start; one
// written before is rewritten at the end (fixLate).

// dupFinder is the duplicates stage's look-ups (Finder).
type dupFinder interface {
	RefCalls(ctx context.Context, ref string) ([]RefCall, error)
	PeriodRecordsByClient(ctx context.Context, clientOrderID string) ([]Record, error)
	RepeatedRefs(ctx context.Context) iter.Seq2[string, error]
	RepeatedClients(ctx context.Context) iter.Seq2[string, error]
}

// duplicates is the duplicates stage.
type duplicates struct {
	ctx         context.Context
	find        dupFinder
	resolved    map[int64]resolution // the load stage's pending calls resolved
	calls, recs *keySet
	dup         map[string]bool
	found       []string // in the order found
}

// newDuplicates reads the two key sets at once (each a pass over an index
// of its own, half a second apiece at 1,000,000 calls, before the streams
// start), the records' in a goroutine of its own.
func newDuplicates(ctx context.Context, find dupFinder, resolved map[int64]resolution) (*duplicates, error) {
	var recs *keySet
	var recErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		recs, recErr = newKeySet(find.RepeatedClients(ctx))
	}()
	calls, err := newKeySet(find.RepeatedRefs(ctx))
	<-read
	if err != nil {
		return nil, fmt.Errorf("externalRefs of more than one call: %w", err)
	}
	if recErr != nil {
		return nil, fmt.Errorf("clientOrderIds of more than one record: %w", recErr)
	}
	return &duplicates{ctx: ctx, find: find, resolved: resolved, calls: calls, recs: recs, dup: map[string]bool{}}, nil
}

// isDup reports whether ref is known to be debited more than once.
func (d *duplicates) isDup(ref string) bool { return ref != "" && d.dup[ref] }

func (d *duplicates) markDup(ref string) {
	if !d.dup[ref] {
		d.dup[ref] = true
		d.found = append(d.found, ref)
	}
}

// again notes a meeting of key in s, and reports whether it is to be
// checked exactly now: key repeats in the database, was met before and
// has no verdict yet. check gives the verdict.
func (d *duplicates) again(s *keySet, key string, check func() (bool, error)) error {
	in, v, i := s.state(key)
	switch {
	case !in || v == single || v == twice:
		return nil
	case v == unmet:
		s.set(key, i, metOnce)
		return nil
	}
	dup, err := check()
	if err != nil {
		return err
	}
	if dup {
		s.set(key, i, twice)
		d.markDup(key)
	} else {
		s.set(key, i, single)
	}
	return nil
}

// seeDebit notes a debit (not pending, counted once) of externalRef ref.
func (d *duplicates) seeDebit(ref string) error {
	return d.again(d.calls, ref, func() (bool, error) {
		calls, err := d.find.RefCalls(d.ctx, ref)
		if err != nil {
			return false, err
		}
		return d.debitedTwice(calls), nil
	})
}

// debitedTwice reports whether calls (of one externalRef) hold two
// debits with distinct orderids, a pending call counting as the load
// stage resolved it.
func (d *duplicates) debitedTwice(calls []RefCall) bool {
	first, seen := "", false
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
			return true
		}
	}
	return false
}

// seeRecord notes a debit record of the period with clientOrderId client.
func (d *duplicates) seeRecord(client string) error {
	return d.again(d.recs, client, func() (bool, error) {
		recs, err := d.find.PeriodRecordsByClient(d.ctx, client)
		if err != nil {
			return false, err
		}
		n := 0
		for _, r := range recs {
			if !isCR(r.TxnMode) {
				n++
			}
		}
		return n > 1, nil
	})
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
