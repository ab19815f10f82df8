package ledger

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// unsettledRow is an unsettled collect order and its age in days.
type unsettledRow struct {
	svc, client, ts string
	amount          decimal.Decimal
	age             int
}

// age ages an unsettled collect order against the as-of day: whole days
// from its txnDate, never below zero. The error is for a bad date or amount.
func age(asOf time.Time, r *recon.Record) (unsettledRow, error) {
	u := unsettledRow{svc: r.SvcOrderID, client: r.Get(recon.FClientOrderID), ts: r.Get(recon.FTxnDateTime)}
	d := r.Get(recon.FTxnDate)
	td, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return u, fmt.Errorf("order %s: txn_date %q: %w", u.svc, d, err)
	}
	if u.amount, err = svcapi.ParseAmount(r.Get(recon.FTxnChargedValue)); err != nil {
		return u, fmt.Errorf("order %s: txnChargedValue: %w", u.svc, err)
	}
	u.age = max(0, int(asOf.Sub(td).Hours()/24))
	return u, nil
}

// bucket is the row's aging bucket (recon.BucketOf).
func (u *unsettledRow) bucket() string { return recon.BucketOf(u.age) }
