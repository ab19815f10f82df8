package sandbox

import (
	"math/rand/v2"
)

// ordersLead is how many days of collect orders precede the statement
// period, so that unsettled orders older than 30 days exist (the >30
// aging bucket) with the default 30-day period.
const ordersLead = 15

// forcedUnsettledAges are order ages (days before End) whose first order is
// always unsettled: one per aging bucket 0-1, 2-3, 4-7, 8-30, >30.
var forcedUnsettledAges = []int{1, 3, 6, 20, 38}

// order is one collect order.
type order struct {
	sec       int32
	amount    int64 // paise
	fee       int64
	unsettled bool
	number    bool
}

func (w *world) endDN() int { return w.startDN + w.days - 1 }

// ordersIn counts the collect orders dated in [from, to] (day numbers).
func (w *world) ordersIn(from, to int) int {
	from = max(from, w.ordStart)
	to = min(to, w.endDN())
	if to < from {
		return 0
	}
	return (to - from + 1) * w.opts.OrdersPerDay
}

// genOrders generates the collect orders of day number dn.
func (w *world) genOrders(dn int) []order {
	if dn < w.ordStart || dn > w.endDN() {
		return nil
	}
	n := w.opts.OrdersPerDay
	rng := rand.New(rand.NewPCG(w.seed, mix(uint64(dn), 0x0de5)))
	out := make([]order, n)
	mean := float64(dayLastSec-dayFirstSec) * 0.85 / float64(n+1)
	t := int32(dayFirstSec)
	age := w.endDN() - dn
	var share int // per 100
	switch {
	case age <= 1:
		share = 40
	case age <= 3:
		share = 10
	case age <= 7:
		share = 5
	default:
		share = 2
	}
	for i := range out {
		o := &out[i]
		if mean >= 2 {
			t += 1 + int32(rng.IntN(int(2*mean-1)))
		} else {
			t += int32(mean + rng.Float64())
		}
		t = min(t, dayLastSec)
		o.sec = t
		o.amount = int64(50+rng.IntN(20000)) * 100
		if rng.IntN(3) == 0 {
			o.amount += int64(rng.IntN(100))
		}
		o.fee = o.amount * 12 / 1000 // 1.2%
		o.unsettled = rng.IntN(100) < share
		o.number = rng.IntN(9) == 0
	}
	if n > 0 {
		for _, a := range forcedUnsettledAges {
			if a == age {
				out[0].unsettled = true
			}
		}
	}
	return out
}

// appendOrderRecord writes order i of day dn as a collect-order record.
func (w *world) appendOrderRecord(b []byte, ds *dayStrings, dn, i int, o *order) []byte {
	b = append(b, `{"status":"SUCCESS","txnDateTime":"`...)
	b = appendTimestamp(b, ds.date, o.sec)
	b = append(b, `","svcOrderId":"CO`...)
	b = append(b, ds.short...)
	b = appendPad(b, int64(i), 6)
	b = append(b, `","clientOrderId":"ORD`...)
	b = append(b, ds.compact...)
	b = appendPad(b, int64(i), 6)
	b = append(b, `","transactionId":"UPI`...)
	b = appendPad(b, int64(mix(w.seed, uint64(dn), uint64(i), 11)%1_000_000_000_000), 12)
	b = append(b, `","productCode":"UPI","productName":"UPI Collect","subProductCode":"UPICOLLECT","subProductName":"Collect Request","txnMode":"CR","txnChargedValue":`...)
	b = appendAmounts(b, o.amount, o.amount, o.fee, o.number)
	b = append(b, `"narrationValue0":"COLLECT","narrationValue1":"","narrationValue2":"","narrationValue3":"","narrationValue4":"","narrationValue5":"","narrationValue6":"","narrationValue7":"","narrationValue8":"","narrationValue9":"","responseCode":"00","responseMsg":"Transaction Successful","settlementSvcOrderId":"`...)
	if !o.unsettled {
		b = append(b, "ST"...)
		b = append(b, ds.short...)
		b = appendPad(b, int64(i), 6)
	}
	return append(b, `"}`...)
}
