package ledger

import (
	"fmt"
	"iter"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// A pending call (TUP, or no answer) is often resolved afterwards: bulkrun
// recheck, or the client, looks it up with txnStatus, or a row the look-up
// found never executed is sent again with the same externalRef. Those
// later calls say what became of the pending one, and the check uses them:
//
//   - a txnStatus answer TXN with a pool object: the call was executed; it
//     takes that debit (orderid, opening, amount, closing) and is checked,
//     chained and matched like any other debit;
//   - a txnStatus answer TXN without a pool: executed, no debit logged; the
//     call is no longer pending (its statement record still explains the
//     balance change);
//   - any other transaction status but TUP (SNA included): not executed;
//     the call is counted as failed;
//   - a later successful debit of the same externalRef (a re-send; the
//     service refuses a repeated externalRef of an executed transaction):
//     the pending call was not executed; counted as failed. This wins over
//     a look-up, which would find the re-send's transaction.
//
// A TUP look-up, or none, leaves the call pending.
type resolution struct {
	state   recon.CallOutcome // success or failed
	resent  bool              // superseded by a later debit of its externalRef
	orderID string
	pool    *svcapi.Pool
}

// resolvePending finds what became of the period's pending calls, by call
// id: resent lists the pending calls re-sent and executed (a later debit of
// their externalRef); lookups yields the successful txnStatus answers at or
// after each pending call, the newest of a call last. An unreadable answer
// resolves nothing. The error is lookups' own.
func resolvePending(resent []int64, lookups iter.Seq2[Lookup, error]) (map[int64]resolution, error) {
	out := map[int64]resolution{}
	for _, id := range resent {
		out[id] = resolution{state: recon.CallFailed, resent: true}
	}
	for l, err := range lookups {
		if err != nil {
			return nil, fmt.Errorf("resolve pending calls: %w", err)
		}
		if out[l.PendingID].resent {
			// A look-up after the re-send finds the re-send's transaction.
			continue
		}
		env, err := svcapi.DecodeEnvelope(l.Response)
		if err != nil {
			continue // an unreadable look-up resolves nothing
		}
		var d svcapi.TxnStatusData
		if err := env.DecodeData(&d); err != nil {
			continue
		}
		switch code := string(d.TransactionStatusCode); code {
		case svcapi.StatusPending, "":
			// still under process: no change
		case svcapi.StatusSuccess:
			out[l.PendingID] = resolution{state: recon.CallSuccess, orderID: string(d.OrderID), pool: d.Pool}
		default:
			if r, ok := out[l.PendingID]; !ok || r.state != recon.CallSuccess {
				out[l.PendingID] = resolution{state: recon.CallFailed}
			}
		}
	}
	return out, nil
}

// apply gives a pending call what became of it.
func (r resolution) apply(c *recon.Call) {
	c.Outcome = r.state
	if r.pool == nil {
		return
	}
	c.Pool = recon.PoolEntry{Account: r.pool.Account, Shape: string(r.pool.Shape), Mode: r.pool.Mode,
		Opening: r.pool.Opening.String(), Amount: r.pool.Amount.String(), Closing: r.pool.Closing.String()}
	if r.orderID != "" {
		c.OrderID = r.orderID
	}
}

// resolvedOrders are the orderids the pending calls were resolved to.
func resolvedOrders(resolved map[int64]resolution) map[string]bool {
	orders := map[string]bool{}
	for _, r := range resolved {
		if r.orderID != "" {
			orders[r.orderID] = true
		}
	}
	return orders
}

// resolve gives a pending call of the period what became of it, when that
// is known; it returns the outcome the call was stored with.
func (p *period) resolve(c *recon.Call) recon.CallOutcome {
	stored := c.Outcome
	if r, ok := p.resolved[c.ID]; ok && c.Outcome == recon.CallPending {
		r.apply(c)
	}
	return stored
}
