package ledger

import (
	"context"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// OutsideFinder looks beyond the checked period; *store.DB implements it.
type OutsideFinder interface {
	// CheckDebitBySvc finds the DR statement record with this svcOrderId.
	CheckDebitBySvc(ctx context.Context, svcOrderID string) (recon.Record, bool, error)
	// CheckDebitByClient finds the earliest DR statement record with this clientOrderId.
	CheckDebitByClient(ctx context.Context, clientOrderID string) (recon.Record, bool, error)
	// CheckOutsideCall finds calls outside the window with this orderid or externalRef.
	CheckOutsideCall(ctx context.Context, w store.CheckWindow, svcOrderID, clientOrderID string) (found, debit bool, err error)
}

// linkOutside looks beyond the period: a call whose record lies outside it
// (by orderid, else externalRef), and a period record whose call lies
// outside it (which then is no statementOnly record).
func linkOutside(ctx context.Context, calls []kcall, b *book, f OutsideFinder, w store.CheckWindow) error {
	lookup := func(find func(context.Context, string) (recon.Record, bool, error), key string) (int32, error) {
		r, ok, err := find(ctx, key)
		if err != nil || !ok {
			return -1, err
		}
		return b.addOutside(&r)
	}
	for ci := range calls {
		k := &calls[ci]
		if k.rec >= 0 || k.skip {
			continue
		}
		i := int32(-1)
		var err error
		if k.orderID != "" {
			if i, err = lookup(f.CheckDebitBySvc, k.orderID); err != nil {
				return err
			}
		}
		if i < 0 && k.ref != "" {
			if i, err = lookup(f.CheckDebitByClient, k.ref); err != nil {
				return err
			}
		}
		if i >= 0 {
			k.rec = i
			b.mark(i, !k.pending, k.pending)
		}
	}
	for i := range b.period() {
		r := &b.recs[i]
		if r.flags&(recCR|recLinked) != 0 {
			continue
		}
		found, debit, err := f.CheckOutsideCall(ctx, w, r.svc, r.client)
		if err != nil {
			return err
		}
		if found {
			b.mark(int32(i), debit, false)
		}
	}
	return nil
}
