package ledger

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// reversalRow is a reversed record of the period and its reversal record,
// when that was synced.
type reversalRow struct {
	rec    int32
	found  bool
	revTS  string
	revAmt decimal.Decimal
}

// findRecord looks a statement record up by svcOrderId, of any date.
type findRecord func(ctx context.Context, svcOrderID string) (recon.Record, bool, error)

// reversals links every reversed record of the period (one with a
// reversalSvcOrderId) to its reversal record: one of the period's, else
// one find finds; a reversal found nowhere is flagged (found false).
func reversals(ctx context.Context, b *book, find findRecord) ([]reversalRow, error) {
	var out []reversalRow
	for i, r := range b.period() {
		if r.reversal == "" {
			continue
		}
		rv := reversalRow{rec: int32(i)}
		if j, ok := b.bySvc[r.reversal]; ok {
			rv.found, rv.revTS, rv.revAmt = true, fmtTS(b.recs[j].ts), b.recs[j].amount
		} else {
			rec, ok, err := find(ctx, r.reversal)
			if err != nil {
				return nil, err
			}
			if ok {
				rv.found, rv.revTS = true, rec.Get(recon.FTxnDateTime)
				if rv.revAmt, err = svcapi.ParseAmount(rec.Get(recon.FTxnChargedValue)); err != nil {
					return nil, fmt.Errorf("record %s: txnChargedValue: %w", rec.SvcOrderID, err)
				}
			}
		}
		out = append(out, rv)
	}
	return out, nil
}
