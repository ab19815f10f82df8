package ledger

import (
	"context"
	"fmt"

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
	state   string // OutcomeSuccess or OutcomeFailed
	resent  bool   // superseded by a later debit of its externalRef
	orderID string
	pool    *svcapi.Pool
}

// resolvePending finds what became of the period's pending calls, by call id.
func (c *checker) resolvePending(ctx context.Context, lo, hi string) (map[int64]resolution, error) {
	out := map[int64]resolution{}
	// Re-sent and executed: a later pool debit with the same externalRef.
	rows, err := c.db.QueryContext(ctx, `SELECT p.id FROM calls p
		WHERE p.outcome = 'pending' AND p.ts >= ? AND p.ts <= ? AND p.external_ref <> ''
		AND EXISTS (SELECT 1 FROM calls s WHERE s.external_ref = p.external_ref AND s.id <> p.id
			AND s.outcome = 'success' AND s.pool_shape <> '' AND s.ts >= p.ts)`, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("resolve pending calls: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		out[id] = resolution{state: OutcomeFailed, resent: true}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Looked up: the newest txnStatus answer of each pending call's ref.
	rows, err = c.db.QueryContext(ctx, `SELECT p.id, t.response FROM calls p
		JOIN calls t ON t.external_ref = p.external_ref AND t.operation = ? AND t.outcome = 'success' AND t.ts >= p.ts
		WHERE p.outcome = 'pending' AND p.ts >= ? AND p.ts <= ? AND p.external_ref <> ''
		ORDER BY p.id, t.ts, t.id`, svcapi.OpTxnStatus, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("resolve pending calls: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var resp []byte
		if err := rows.Scan(&id, &resp); err != nil {
			return nil, err
		}
		if out[id].resent {
			// A look-up after the re-send finds the re-send's transaction.
			continue
		}
		env, err := svcapi.DecodeEnvelope(resp)
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
			out[id] = resolution{state: OutcomeSuccess, orderID: string(d.OrderID), pool: d.Pool}
		default:
			if r, ok := out[id]; !ok || r.state != OutcomeSuccess {
				out[id] = resolution{state: OutcomeFailed}
			}
		}
	}
	return out, rows.Err()
}
