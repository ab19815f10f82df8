package ledger

import (
	"context"
	"fmt"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The reversals stage (design: reversals): a statement record of the
// period with a reversalSvcOrderId is reversed; its row links the reversal
// record where it was synced (the matching stage hands it over when it
// holds it, else it is looked up, of any date), and flags it where it was
// not.

// reversalFinder looks a reversal record up (Finder).
type reversalFinder interface {
	Record(ctx context.Context, svcOrderID string) (Record, bool, error)
}

// reversals makes the reversal rows.
type reversals struct {
	ctx  context.Context
	find reversalFinder
}

// row is the row of reversed record r; rev is its reversal record when
// the matching stage holds it, else nil. The error is the look-up's, or
// for a reversal record whose amount is no decimal.
func (s *reversals) row(r, rev *wrec) (Reversal, error) {
	row := Reversal{SvcOrderID: r.svc, ReversalSvcOrderID: r.reversal, TxnDateTime: fmtTS(r.ts),
		Amount: r.money, Note: "reversal record not synced"}
	if rev != nil {
		row.Found, row.ReversalTxnDateTime, row.ReversalAmount, row.Note = true, fmtTS(rev.ts), rev.money, ""
		return row, nil
	}
	rec, ok, err := s.find.Record(s.ctx, r.reversal)
	if err != nil || !ok {
		return row, err
	}
	amt, err := svcapi.ParseAmount(rec.Amount)
	if err != nil {
		return row, fmt.Errorf("record %s: txnChargedValue: %w", rec.SvcOrderID, err)
	}
	row.Found, row.ReversalTxnDateTime, row.ReversalAmount, row.Note = true, rec.TxnDateTime, recon.Money(amt), ""
	return row, nil
}
