package ledger

import (
	"fmt"
	"iter"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The unsettled stage (design: unsettled orders): the collect orders up to
// the period's end that have no settlement, each aged in whole days
// against the as-of date and put in its bucket (recon.Buckets).

// unsettledOrders ages each order of orders (the store's stream of
// unsettled collect orders) against asOf and hands its row and amount to
// emit. The error is the stream's, or for a bad date or amount.
func unsettledOrders(orders iter.Seq2[recon.Record, error], asOf time.Time, emit func(Unsettled, decimal.Decimal)) error {
	for r, err := range orders {
		if err != nil {
			return fmt.Errorf("unsettled orders: %w", err)
		}
		u, amount, err := age(asOf, &r)
		if err != nil {
			return fmt.Errorf("unsettled orders: %w", err)
		}
		emit(u, amount)
	}
	return nil
}

// age ages an unsettled collect order against the as-of day: whole days
// from its txnDate, never below zero. The error is for a bad date or
// amount.
func age(asOf time.Time, r *recon.Record) (Unsettled, decimal.Decimal, error) {
	u := Unsettled{SvcOrderID: r.SvcOrderID, ClientOrderID: r.Get(recon.FClientOrderID), TxnDateTime: r.Get(recon.FTxnDateTime)}
	d := r.Get(recon.FTxnDate)
	td, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return u, decimal.Zero, fmt.Errorf("order %s: txn_date %q: %w", u.SvcOrderID, d, err)
	}
	amount, err := svcapi.ParseAmount(r.Get(recon.FTxnChargedValue))
	if err != nil {
		return u, decimal.Zero, fmt.Errorf("order %s: txnChargedValue: %w", u.SvcOrderID, err)
	}
	u.Amount = recon.Money(amount)
	u.AgeDays = max(0, int(asOf.Sub(td).Hours()/24))
	u.AgeBucket = recon.BucketOf(u.AgeDays)
	return u, amount, nil
}
