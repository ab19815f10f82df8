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

// orderMark is the state of a day's order generation at order i.
type orderMark struct {
	i, t int32 // the order, the time before it
	src  rand.PCG
}

// orderGen generates a day's collect orders in order.
type orderGen struct {
	src   *rand.PCG
	rng   *rand.Rand
	mean  float64 // the mean gap between orders, seconds
	share int     // unsettled orders per 100: more among the recent
	t     int32   // the time before the next order
}

// newOrderGen starts the order generation of day number dn (n orders) at
// its first order.
func (w *world) newOrderGen(dn, n int) *orderGen {
	g := &orderGen{src: rand.NewPCG(w.seed, mix(uint64(dn), 0x0de5)), t: dayFirstSec,
		mean: float64(dayLastSec-dayFirstSec) * 0.85 / float64(n+1)}
	g.rng = rand.New(g.src)
	switch age := w.endDN() - dn; {
	case age <= 1:
		g.share = 40
	case age <= 3:
		g.share = 10
	case age <= 7:
		g.share = 5
	default:
		g.share = 2
	}
	return g
}

// next draws the next order.
func (g *orderGen) next(o *order) {
	rng := g.rng
	if g.mean >= 2 {
		g.t += 1 + int32(rng.IntN(int(2*g.mean-1)))
	} else {
		g.t += int32(g.mean + rng.Float64())
	}
	g.t = min(g.t, dayLastSec)
	o.sec = g.t
	o.amount = int64(50+rng.IntN(20000)) * 100
	if rng.IntN(3) == 0 {
		o.amount += int64(rng.IntN(100))
	}
	o.fee = o.amount * 12 / 1000 // 1.2%
	o.unsettled = rng.IntN(100) < g.share
	o.number = rng.IntN(9) == 0
}

// genOrders generates the collect orders of day number dn, recording a
// mark every markEvery orders when marks is set.
func (w *world) genOrders(dn int, marks *[]orderMark) []order {
	if dn < w.ordStart || dn > w.endDN() {
		return nil
	}
	out := make([]order, w.opts.OrdersPerDay)
	g := w.newOrderGen(dn, len(out))
	for i := range out {
		if marks != nil && i%markEvery == 0 {
			*marks = append(*marks, orderMark{i: int32(i), t: g.t, src: *g.src})
		}
		g.next(&out[i])
	}
	w.forceUnsettled(dn, out)
	return out
}

// orderRange generates orders [from, to) of day number dn (a day of
// OrdersPeriod) from the last mark at or before from.
func (w *world) orderRange(dn, from, to int) []order {
	m := w.orderMarks[dn-w.ordStart][from/markEvery]
	g := w.newOrderGen(dn, w.opts.OrdersPerDay)
	*g.src, g.t = m.src, m.t
	out := make([]order, to-int(m.i))
	for i := range out {
		g.next(&out[i])
	}
	if m.i == 0 {
		w.forceUnsettled(dn, out)
	}
	return out[from-int(m.i):]
}

// forceUnsettled makes the first order of a day unsettled on the days of
// forcedUnsettledAges (orders is the day's, from its first).
func (w *world) forceUnsettled(dn int, orders []order) {
	if len(orders) == 0 {
		return
	}
	for _, a := range forcedUnsettledAges {
		if a == w.endDN()-dn {
			orders[0].unsettled = true
		}
	}
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
