package bulk

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// --max-debit with one holder: the execution keeps the run's account
// (store.DebitCap) in memory — no other process changes the run's rows
// while it holds the lease — and reserves each call at the expected debit
// before it is handed to a sender, releasing the reservation with the
// call's outcome. Workers of a shared run reserve in the database instead
// (store.DB.ClaimBulkRows), with the same arithmetic.

// expected returns the expected debit of one call of the run's operation
// before this execution: the largest debit of the run so far (c), or the
// rate card's (Runner.Price) when larger; an operation that reports no
// debit expects zero. known is false when nothing says it yet.
func (r *Runner) expected(op string, c Counts) (e decimal.Decimal, known bool) {
	if c.DebitRows > 0 {
		e, known = c.MaxDebit, true
	}
	if r.Price != nil {
		if p, ok := r.Price(op); ok {
			e, known = decimal.Max(e, p), true
		}
	}
	if o, ok := svcapi.Lookup(op); ok && o.Pool == svcapi.PoolNone {
		known = true
	}
	return e, known
}

// openAccount starts the execution's account of the run's debits from its
// counts before the execution.
func (ex *execution) openAccount(c Counts) {
	ex.account = store.DebitCap{Limit: ex.MaxDebit, Debited: c.Debit, Pending: c.Pending}
	ex.account.Expected, ex.account.Known = ex.expected(ex.run.Op, c)
	ex.changed = make(chan struct{})
}

// reserve reserves the next call (alone: not for a worker of a shared
// run), waiting while calls in flight hold what is left of MaxDebit. false
// when the execution stops instead: MaxDebit is reached (StopMaxDebit) or
// ctx ended.
func (ex *execution) reserve(ctx context.Context) bool {
	for {
		ex.mu.Lock()
		if ex.reason != "" {
			ex.mu.Unlock()
			return false
		}
		n, hold := 1, ""
		if ex.MaxDebit.IsPositive() {
			n, hold = ex.account.Room(1)
		}
		if n == 1 {
			ex.account.InFlight++
			ex.mu.Unlock()
			return true
		}
		if hold == store.BulkHoldMaxDebit {
			ex.reason = StopMaxDebit
			a := ex.account
			ex.mu.Unlock()
			ex.log.Warn("pool debits, with the calls whose debit is unknown at the expected debit, reached --max-debit; no new calls",
				"confirmed", a.Debited.String(), "unknown", a.Unknown(), "expected", expectedText(a), "maxDebit", ex.MaxDebit.String())
			return false
		}
		wait := ex.changed
		ex.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			ex.stop(StopInterrupted, nil)
			return false
		}
	}
}

// expectedText is the expected debit of a, or "unknown".
func expectedText(a store.DebitCap) string {
	if !a.Known {
		return "unknown"
	}
	return a.Expected.String()
}

// release ends a call's reservation: with the call's journaled outcome
// res, or nil when the call was not made. A worker of a shared run has no
// reservation here (its account is the database's).
func (ex *execution) release(res *Entry) {
	if ex.worker != "" {
		return
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.account.InFlight--
	if res != nil {
		ex.account = settled(ex.account, *res)
	}
	close(ex.changed)
	ex.changed = make(chan struct{})
}

// settled is account a after a call ended with the journaled outcome res:
// a success adds its debit (and teaches the expected debit: the largest
// so far), a pending row's debit stays unknown, a failure debited nothing.
func settled(a store.DebitCap, res Entry) store.DebitCap {
	switch res.State {
	case StateSuccess:
		if d, err := decimal.NewFromString(res.PoolAmount); err == nil {
			a.Debited = a.Debited.Add(d)
			a.Expected = decimal.Max(a.Expected, d)
		}
		// A success without a debit is an operation that reports none:
		// the call's answer says what it costs all the same.
		a.Known = true
	case StatePending:
		a.Pending++
	}
	return a
}
