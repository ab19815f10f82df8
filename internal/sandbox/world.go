package sandbox

import (
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// mix is a splitmix64-style hash of its inputs: the source of every
// per-item property that must not depend on generation order.
func mix(vals ...uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range vals {
		h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
		h = (h ^ (h >> 27)) * 0x94d049bb133111eb
		h ^= h >> 31
	}
	return h
}

// defectPlace puts a planted defect on a day at a primary position.
type defectPlace struct {
	kind slotKind
	pos  int
}

var defectKinds = []struct {
	kind slotKind
	name string
}{
	{sUnlogged, DefectUnloggedDebit},
	{sMismatch, DefectAmountMismatch},
	{sDup, DefectDuplicateDebit},
	{sArith, DefectArithmetic},
	{sPending, DefectPending},
	{sCallOnly, DefectCallOnly},
	{sGap, DefectGap},
	{sOrphan, DefectOrphanPair},
	// These on the period's last day: the days before stay as they were
	// before the matching's cases were planted (plants.go).
	{sRevUnlinked, DefectReversalUnlinked},
	{sPaisa, DefectOnePaisa},
	{sSplit, DefectSplitPosting},
	{sMidnight, DefectMidnight}, // the day's last call
}

// lastDayDefects are how many of defectKinds (the last ones) go on the
// period's last day.
const lastDayDefects = 4

// Planted amounts, paise.
const (
	mismatchDelta = 118  // call − statement of the amountMismatch defect
	arithDelta    = 1000 // arithmetic defect
	gapDelta      = 2550 // gap defect
	defectSpacing = 6    // primary positions kept clean around a defect
	dayFirstSec   = 6 * 3600
	dayLastSec    = 86399
)

// world is the generated history: everything is a function of the options.
type world struct {
	opts     Options
	seed     uint64
	days     int   // period days; day index days is the post day
	firstSec int32 // second of the day of a day's first call (Options.CallsFrom)
	startDN  int   // day number of the first day
	ordStart int   // day number of the first collect-order day

	nDR     []int // primary positions per day
	nCR     []int // reversals per day
	defects map[int][]defectPlace

	dayOpen []int64 // pool balance before day d (d = 0..days+1)
	dayRecs []int   // records per day (d = 0..days)
	opening int64

	postAmount int64 // the reversalUnlinked debit's amount
	postSlot   int32 // its slot on the last day
	postProd   uint8
	postRef    string // its externalRef
	postDR     string // its svcOrderId
	mid        midnightCall
	planted    []Defect
	counts     Counts
	billers    []biller
	aepsBanks  []aepsBank
	bankList   []verifyBank

	index      []dayIndex    // per day of the period: how to generate a range of its slots
	orderMarks [][]orderMark // per collect-order day: how to generate a range of its orders
}

func newWorld(o Options) (*world, error) {
	w := &world{opts: o, seed: uint64(o.Seed), days: o.Days}
	w.firstSec = dayFirstSec
	if o.CallsFrom > 0 {
		w.firstSec = int32(o.CallsFrom / time.Second)
	}
	w.startDN = dayNumber(o.End) - o.Days + 1
	w.ordStart = w.startDN - ordersLead
	w.sizeDays()
	w.defects = map[int][]defectPlace{}
	if !o.NoDefects {
		if err := w.placeDefects(); err != nil {
			return nil, err
		}
	}
	spent := w.walkHistory()
	w.setOpening(spent)
	w.walkOrders()
	w.genBillers()
	w.genBanks()
	w.counts.Billers = len(w.billers)
	return w, nil
}

// sizeDays decides each day's primary positions and reversals: TotalRecords
// spread evenly (one record in 50 a reversal), or CallsPerDay with zero to
// two reversals a day.
func (w *world) sizeDays() {
	o := w.opts
	w.nDR = make([]int, o.Days+1)
	w.nCR = make([]int, o.Days+1)
	for d := 0; d < o.Days; d++ {
		if o.TotalRecords > 0 {
			r := o.TotalRecords / o.Days
			if d < o.TotalRecords%o.Days {
				r++
			}
			w.nCR[d] = r / 50
			w.nDR[d] = r - w.nCR[d]
		} else {
			w.nDR[d] = o.CallsPerDay
			w.nCR[d] = int(mix(w.seed, uint64(d), 0xda7) % 3) // 0..2 reversals a day
		}
	}
}

// placeDefects spreads the planted defects over the days before the last
// (the unlinked reversal goes on the last) and gives each its primary
// position, evenly spaced in its day.
func (w *world) placeDefects() error {
	last := w.days - 1
	spread := len(defectKinds) - lastDayDefects // over the days before the last
	for k := 0; k < spread; k++ {
		d := 0
		if last > 0 {
			d = int((float64(k) + 0.5) * float64(last) / float64(spread))
		}
		w.defects[d] = append(w.defects[d], defectPlace{kind: defectKinds[k].kind})
	}
	for _, k := range defectKinds[spread:] {
		w.defects[last] = append(w.defects[last], defectPlace{kind: k.kind})
	}
	for d, ps := range w.defects {
		for _, df := range ps {
			switch {
			case w.opts.TotalRecords == 0:
			case df.kind == sCallOnly || df.kind == sMidnight:
				w.nDR[d]++ // its record is missing (that day): keep the total
			case df.kind == sSplit:
				w.nDR[d]-- // two records: keep the total
			}
		}
		spaced := len(ps) // evenly spaced; the midnight call is the day's last
		if d == last && !noMidnight(ps) {
			spaced--
		}
		if d == last && last > 0 {
			// The last day makes room for its defects (a small world's
			// too); a one-day world holds them all, or says it cannot.
			w.nDR[d] = max(w.nDR[d], (spaced+1)*defectSpacing+1)
		}
		if w.nDR[d] < 2*defectSpacing {
			w.nDR[d] = 2 * defectSpacing
		}
		if w.nDR[d]/(spaced+1) < defectSpacing {
			return fmt.Errorf("sandbox: %d calls a day leave no room for %d planted defects on day %d; use more calls, more days or NoDefects: %w", w.nDR[d], len(ps), d+1, ErrNoRoom)
		}
		for j := range ps {
			ps[j].pos = (j + 1) * w.nDR[d] / (spaced + 1)
			if ps[j].kind == sMidnight {
				ps[j].pos = w.nDR[d] - 1
			}
		}
	}
	return nil
}

// noMidnight says whether a day's defects lack the midnight call.
func noMidnight(ps []defectPlace) bool {
	for _, df := range ps {
		if df.kind == sMidnight {
			return false
		}
	}
	return true
}

// walkHistory generates every day once, the post day last, with balances
// relative to the opening (not known yet): it learns each day's opening,
// its records, the counts and the planted defects, and keeps each day's
// index. It returns the history's total debit.
func (w *world) walkHistory() (spent int64) {
	w.dayOpen = make([]int64, w.days+2)
	w.dayRecs = make([]int, w.days+1)
	w.index = make([]dayIndex, w.days)
	var rel int64
	for d := 0; d <= w.days; d++ {
		w.dayOpen[d] = rel
		var ix *dayIndex
		if d < w.days {
			ix = &w.index[d]
		}
		dd := w.genWholeDay(d, rel, ix)
		if n := len(dd.slots); n > 0 {
			rel = dd.slots[n-1].close
		}
		for i := range dd.slots {
			if k := dd.slots[i].kind; k != sCR && k != sSplitPart && k != sMidnightRec {
				spent += dd.slots[i].amount
			}
		}
		w.dayRecs[d] = len(dd.recs)
		if d < w.days {
			w.countDay(dd)
		}
		w.notePlanted(dd)
	}
	w.dayOpen[w.days+1] = rel
	return spent
}

// countDay adds a day of the period to the counts.
func (w *world) countDay(dd *dayData) {
	w.counts.Statement += len(dd.recs)
	w.counts.Calls += dd.calls
	for i := range dd.slots {
		sl := &dd.slots[i]
		switch {
		case sl.kind == sCR:
			w.counts.Credits++
		case sl.kind == sPending:
			w.counts.CallsPending++
		case sl.kind.hasPoolCall():
			w.counts.CallsWithDebit++
		}
		if sl.flags&flagFailedBefore != 0 {
			w.counts.CallsFailed++
		}
	}
}

// setOpening fixes the pool's opening balance (by default 1,000,000.00,
// raised to leave a quarter of the history's debits spare) and makes the
// days' openings absolute.
func (w *world) setOpening(spent int64) {
	w.opening = w.opts.OpeningBalance.Shift(2).IntPart()
	if w.opts.OpeningBalance.IsZero() {
		w.opening = 100_000_000 // 1,000,000.00
		if need := spent + spent/4; need > w.opening {
			w.opening = (need/10_000_000 + 1) * 10_000_000
		}
	}
	for d := range w.dayOpen {
		w.dayOpen[d] += w.opening
	}
	sort.Slice(w.planted, func(i, j int) bool { return w.planted[i].At < w.planted[j].At })
}

// walkOrders generates every day's collect orders once: it counts them and
// the unsettled ones by age, and keeps each day's order marks.
func (w *world) walkOrders() {
	w.counts.Orders = w.ordersIn(w.startDN, w.endDN())
	w.counts.OrdersAll = w.ordersIn(w.ordStart, w.endDN())
	w.counts.Unsettled = map[string]int{"0-1": 0, "2-3": 0, "4-7": 0, "8-30": 0, ">30": 0}
	w.orderMarks = make([][]orderMark, w.endDN()-w.ordStart+1)
	for dn := w.ordStart; dn <= w.endDN(); dn++ {
		for _, od := range w.genOrders(dn, &w.orderMarks[dn-w.ordStart]) {
			if od.unsettled {
				w.counts.Unsettled[recon.BucketOf(w.endDN()-dn)]++
			}
		}
	}
}

// notePlanted records the planted defects of a generated day.
func (w *world) notePlanted(dd *dayData) {
	for i := range dd.slots {
		s := &dd.slots[i]
		var kind string
		for _, k := range defectKinds {
			if k.kind == s.kind && s.kind != sDR && s.kind != sCR {
				kind = k.name
			}
		}
		if kind == "" {
			continue
		}
		df := Defect{Kind: kind, ExternalRef: w.ref(dd, s.refOf), SvcOrderID: w.orderID(dd, int32(i)),
			At: string(appendTimestamp(nil, dd.ds.date, s.sec))}
		switch s.kind {
		case sMismatch:
			df.Delta = decimal.New(mismatchDelta, -2)
		case sArith:
			df.Delta = decimal.New(arithDelta, -2)
		case sGap:
			df.Delta = decimal.New(gapDelta, -2)
		case sPaisa:
			df.Delta = decimal.New(paisaDelta, -2)
		case sMidnight:
			w.mid = midnightCall{amount: s.amount, slot: int32(i), prod: s.prod, ref: df.ExternalRef, svc: df.SvcOrderID}
		case sRevUnlinked:
			w.postAmount = s.amount
			w.postSlot = int32(i)
			w.postProd = s.prod
			w.postRef = df.ExternalRef
			w.postDR = df.SvcOrderID
		}
		w.planted = append(w.planted, df)
	}
}

// orderID is the svcOrderId of slot i of a day.
func (w *world) orderID(dd *dayData, i int32) string {
	b := make([]byte, 0, 16)
	b = append(b, "SO"...)
	b = append(b, dd.ds.short...)
	return string(appendPad(b, int64(i), 8))
}

// ref is the externalRef of the call of slot i (its refOf).
func (w *world) ref(dd *dayData, i int32) string {
	if i < 0 {
		return ""
	}
	b := make([]byte, 0, 18)
	b = append(b, "RC"...)
	b = append(b, dd.ds.compact...)
	return string(appendPad(b, int64(i), 8))
}
