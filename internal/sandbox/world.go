package sandbox

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// slotKind is what one position of a generated day is.
type slotKind uint8

const (
	sDR          slotKind = iota // a logged call with a pool debit and its DR record
	sCR                          // a reversal credit record (no call)
	sUnlogged                    // a DR record whose call line is missing
	sMismatch                    // call and record disagree on the amount
	sDup                         // a second debit of an earlier slot's externalRef
	sArith                       // the call's closing is wrong by extra; the pool really lost it
	sPending                     // the call is logged TUP with no pool; the record exists
	sCallOnly                    // a logged debit with no record
	sGap                         // the pool silently lost extra just before this call
	sRevUnlinked                 // a debit reversed by a record after the period
	sOrphan                      // the call's line lost its orderid and externalRef; the record exists
)

// hasCall says whether the slot has a call line with a pool debit.
func (k slotKind) hasPoolCall() bool {
	switch k {
	case sCR, sUnlogged, sPending:
		return false
	}
	return true
}

// hasRecord says whether the slot has a statement record.
func (k slotKind) hasRecord() bool { return k != sCallOnly }

// slot flags.
const (
	flagSameSecond   uint8 = 1 << iota // same second as the previous slot
	flagSwapLog                        // logged before the previous slot although it came after
	flagReversed                       // reversed; link is the CR slot (or the post day)
	flagFailedBefore                   // a failed call line precedes it (code in fail)
	flagNoAccount                      // the shape A pool object omits account
	flagStrict                         // at least one second after the previous slot
	flagNumber                         // some amounts written as JSON numbers
)

// slot is one generated event of a day: a billable call and/or a record.
// Amounts are paise.
type slot struct {
	open, close int64 // pool balance before and after (true balances)
	amount      int64 // charged (DR) or credited (CR)
	extra       int64 // transfer amount / denomination in paise; mismatch: statement amount; arith, gap: delta
	sec         int32 // second of the day (IST)
	link        int32 // reversed DR: its CR slot (-1: post day); CR: the reversed DR slot
	refOf       int32 // slot whose externalRef the call carries
	ms, lat     int16 // response millisecond, latency
	kind        slotKind
	prod        uint8
	flags       uint8
	fail        uint8 // failure code of the failed line before it
	sub         uint8 // fund transfer mode
}

// failCodes are the failures of the history's failed call lines.
var failCodes = []struct{ code, status string }{
	{"ERR", "Transaction failed"},
	{"SPE", "Service provider error"},
	{"SPD", "Service provider down, try later"},
	{"ISE", "Internal server error"},
	{"DTX", "Duplicate transaction: externalRef already used"},
}

const failDTX = 4

// dayData is one generated day.
type dayData struct {
	d     int // history day index (days = the post day)
	dn    int // day number
	ds    dayStrings
	slots []slot
	recs  []int32 // slots with a record, in statement order
	calls int     // call lines of the day
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
	{sRevUnlinked, DefectReversalUnlinked}, // last: on the period's last day
}

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
	days     int // period days; day index days is the post day
	startDN  int // day number of the first day
	ordStart int // day number of the first collect-order day

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
	planted    []Defect
	counts     Counts
	billers    []biller
	aepsBanks  []aepsBank
	bankList   []verifyBank

	cacheMu sync.Mutex
	cache   map[int]*dayData
	lru     []int
	cached  int
}

const cacheSlots = 1 << 19

func newWorld(o Options) (*world, error) {
	w := &world{opts: o, seed: uint64(o.Seed), days: o.Days, cache: map[int]*dayData{}}
	w.startDN = dayNumber(o.End) - o.Days + 1
	w.ordStart = w.startDN - ordersLead
	w.nDR = make([]int, o.Days+1)
	w.nCR = make([]int, o.Days+1)
	for d := 0; d < o.Days; d++ {
		h := mix(w.seed, uint64(d), 0xda7)
		if o.TotalRecords > 0 {
			r := o.TotalRecords / o.Days
			if d < o.TotalRecords%o.Days {
				r++
			}
			w.nCR[d] = r / 50
			w.nDR[d] = r - w.nCR[d]
		} else {
			w.nDR[d] = o.CallsPerDay
			w.nCR[d] = int(h % 3) // 0..2 reversals a day
		}
	}
	w.defects = map[int][]defectPlace{}
	if !o.NoDefects {
		last := o.Days - 1
		spread := len(defectKinds) - 1 // all but sRevUnlinked, over the days before the last
		for k := 0; k < spread; k++ {
			d := 0
			if last > 0 {
				d = int((float64(k) + 0.5) * float64(last) / float64(spread))
			}
			w.defects[d] = append(w.defects[d], defectPlace{kind: defectKinds[k].kind})
		}
		w.defects[last] = append(w.defects[last], defectPlace{kind: sRevUnlinked})
		for d, ps := range w.defects {
			for _, df := range ps {
				if df.kind == sCallOnly && o.TotalRecords > 0 {
					w.nDR[d]++ // its record is missing: keep the total
				}
			}
			if w.nDR[d] < 2*defectSpacing {
				w.nDR[d] = 2 * defectSpacing
			}
			if w.nDR[d]/(len(ps)+1) < defectSpacing {
				return nil, fmt.Errorf("sandbox: %d calls a day leave no room for %d planted defects on day %d; use more calls, more days or NoDefects: %w", w.nDR[d], len(ps), d+1, ErrNoRoom)
			}
			for j := range ps {
				ps[j].pos = (j + 1) * w.nDR[d] / (len(ps) + 1)
			}
		}
	}
	// One pass over the whole history: balances, counts, planted defects.
	w.dayOpen = make([]int64, o.Days+2)
	w.dayRecs = make([]int, o.Days+1)
	var rel int64
	var spent int64
	for d := 0; d <= o.Days; d++ {
		w.dayOpen[d] = rel
		dd := w.genDay(d, rel)
		if n := len(dd.slots); n > 0 {
			rel = dd.slots[n-1].close
		}
		for i := range dd.slots {
			if dd.slots[i].kind != sCR {
				spent += dd.slots[i].amount
			}
		}
		w.dayRecs[d] = len(dd.recs)
		if d < o.Days {
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
		w.notePlanted(dd)
	}
	w.dayOpen[o.Days+1] = rel
	w.opening = o.OpeningBalance.Shift(2).IntPart()
	if o.OpeningBalance.IsZero() {
		w.opening = 100_000_000 // 1,000,000.00
		if need := spent + spent/4; need > w.opening {
			w.opening = (need/10_000_000 + 1) * 10_000_000
		}
	}
	for d := range w.dayOpen {
		w.dayOpen[d] += w.opening
	}
	sort.Slice(w.planted, func(i, j int) bool { return w.planted[i].At < w.planted[j].At })
	w.counts.Orders = w.ordersIn(w.startDN, w.startDN+o.Days-1)
	w.counts.OrdersAll = w.ordersIn(w.ordStart, w.startDN+o.Days-1)
	w.counts.Unsettled = map[string]int{"0-1": 0, "2-3": 0, "4-7": 0, "8-30": 0, ">30": 0}
	for dn := w.ordStart; dn <= w.endDN(); dn++ {
		for _, od := range w.genOrders(dn) {
			if od.unsettled {
				w.counts.Unsettled[recon.BucketOf(w.endDN()-dn)]++
			}
		}
	}
	w.genBillers()
	w.genBanks()
	w.counts.Billers = len(w.billers)
	return w, nil
}

// day returns the generated day d (0..days), cached.
func (w *world) day(d int) *dayData {
	w.cacheMu.Lock()
	defer w.cacheMu.Unlock()
	if dd, ok := w.cache[d]; ok {
		return dd
	}
	dd := w.genDay(d, w.dayOpen[d])
	for w.cached+len(dd.slots) > cacheSlots && len(w.lru) > 0 {
		old := w.lru[0]
		w.lru = w.lru[1:]
		w.cached -= len(w.cache[old].slots)
		delete(w.cache, old)
	}
	w.cache[d] = dd
	w.lru = append(w.lru, d)
	w.cached += len(dd.slots)
	return dd
}

// genDay generates day d of the history with the pool at open before it.
func (w *world) genDay(d int, open int64) *dayData {
	dd := &dayData{d: d, dn: w.startDN + d, ds: newDayStrings(w.startDN + d)}
	if d == w.days {
		if w.postAmount > 0 {
			dd.slots = []slot{{kind: sCR, sec: 300, amount: w.postAmount, open: open, close: open + w.postAmount,
				link: w.postSlot, refOf: -1, prod: w.postProd, flags: flagStrict}}
			dd.recs = []int32{0}
		}
		return dd
	}
	rng := rand.New(rand.NewPCG(w.seed, mix(uint64(d), 0x5eed)))
	nDR := w.nDR[d]
	defs := w.defects[d]
	kindAt := make(map[int]slotKind, len(defs))
	near := func(p int) bool {
		for _, df := range defs {
			if p >= df.pos-defectSpacing+1 && p <= df.pos+defectSpacing-1 {
				return true
			}
		}
		return false
	}
	for _, df := range defs {
		kindAt[df.pos] = df.kind
	}
	// Reversals: DR primary i reversed, its CR emitted after primary j > i.
	crAfter := map[int]int{} // primary j -> reversed primary i
	reversed := map[int]bool{}
	nCR := w.nCR[d]
	for r := 0; r < nCR; r++ {
		placed := false
		for try := 0; try < 20 && nDR > 10; try++ {
			i := 2 + rng.IntN(nDR-8)
			j := i + 1 + rng.IntN(3)
			if j+1 >= nDR || reversed[i] || near(i) || near(j) || near(j+1) {
				continue
			}
			if _, used := crAfter[j]; used {
				continue
			}
			if _, used := crAfter[j-1]; used {
				continue
			}
			if _, used := crAfter[j+1]; used {
				continue
			}
			if _, used := crAfter[i]; used {
				continue
			}
			crAfter[j] = i
			reversed[i] = true
			placed = true
			break
		}
		if !placed && w.opts.TotalRecords > 0 {
			nDR++ // keep the day's record count
		}
	}
	var primary []int32 // slot index of each primary position
	slots := make([]slot, 0, nDR+len(crAfter)+1)
	for p := 0; p < nDR; p++ {
		s := slot{kind: sDR, refOf: -1, link: -1}
		if k, ok := kindAt[p]; ok {
			s.kind = k
		}
		s.prod = pickProduct(rng.IntN(weightTotal))
		if s.kind == sMismatch {
			s.prod = prodLitigation
		}
		s.amount = products[s.prod].charge
		switch s.prod {
		case prodFundTransfer:
			s.sub = uint8(rng.IntN(4) / 3) // IMPS (3 in 4) or NEFT in the history
			s.extra = int64(100+rng.IntN(4900)) * 100
			if rng.IntN(4) == 0 {
				s.extra += int64(rng.IntN(100))
			}
			s.amount = s.extra + transferFee(transferModes[s.sub])
		case prodBrandOrder:
			s.extra = []int64{25000, 50000, 100000, 200000}[rng.IntN(4)]
			s.amount = s.extra
		}
		switch s.kind {
		case sMismatch:
			s.extra = s.amount - mismatchDelta
		case sArith:
			s.extra = arithDelta
		case sGap:
			s.extra = gapDelta
		}
		clean := s.kind == sDR && !near(p)
		if reversed[p] {
			s.flags |= flagReversed
		}
		if rng.IntN(5) == 0 {
			s.flags |= flagNoAccount
		}
		if rng.IntN(7) == 0 {
			s.flags |= flagNumber
		}
		// Same-second pairs and failed attempts only among clean calls.
		// The call before must link to the chain by itself: no credit
		// record right before it either.
		prevClean := p > 1 && slots[len(slots)-1].kind == sDR && !near(p-1) && !hasCR(crAfter, p-1) && !hasCR(crAfter, p-2)
		if clean && prevClean && !reversed[p] && rng.IntN(25) == 0 {
			s.flags |= flagSameSecond
			if rng.IntN(2) == 0 {
				s.flags |= flagSwapLog
			}
		}
		if clean && rng.IntN(40) == 0 {
			s.flags |= flagFailedBefore
			s.fail = uint8(rng.IntN(len(failCodes)))
			if s.fail == failDTX && !prevClean {
				s.fail = 0
			}
		}
		if s.kind != sDR || near(p) {
			s.flags |= flagStrict
		}
		idx := int32(len(slots))
		s.refOf = idx
		if s.kind == sDup {
			s.refOf = primary[p-3]
		}
		primary = append(primary, idx)
		slots = append(slots, s)
		if i, ok := crAfter[p]; ok {
			ri := primary[i]
			slots[ri].link = int32(len(slots))
			slots = append(slots, slot{kind: sCR, amount: slots[ri].amount, link: ri, refOf: slots[ri].refOf,
				prod: slots[ri].prod, flags: flagStrict, sub: slots[ri].sub, extra: slots[ri].extra})
		}
	}
	// Times: gaps with a mean that leaves room before midnight.
	n := len(slots)
	mean := float64(dayLastSec-dayFirstSec) * 0.85 / float64(n+1)
	t := int32(dayFirstSec)
	for i := range slots {
		s := &slots[i]
		var g int32
		if mean >= 2 {
			g = 1 + int32(rng.IntN(int(2*mean-1)))
		} else {
			g = int32(mean + rng.Float64())
		}
		// A record without a pool call, and the first call after it, are
		// alone in their seconds, so the chain can be ordered within a second.
		strict := s.flags&flagStrict != 0 || (i > 0 && slots[i-1].flags&flagStrict != 0) ||
			(i > 1 && !slots[i-2].kind.hasPoolCall())
		if s.flags&flagSameSecond != 0 && !strict && i > 0 {
			g = 0
		}
		if strict && g < 1 {
			g = 1
		}
		if i <= 1 && g < 1 {
			g = 1 // a day's (a period's) first call is alone in its second
		}
		t += g
		if t > dayLastSec {
			t = dayLastSec
		}
		s.sec = t
		s.ms = int16(rng.IntN(1000))
		s.lat = int16(120 + rng.IntN(1400))
		if products[s.prod].op == "creditReport" {
			s.lat += 1500
		}
		if s.flags&flagSwapLog != 0 && i > 0 {
			slots[i-1].ms = int16(700 + rng.IntN(300))
			slots[i-1].lat = int16(80 + rng.IntN(100))
			s.ms = int16(rng.IntN(200))
			s.lat = int16(1200 + rng.IntN(800))
		}
	}
	// Balances.
	bal := open
	for i := range slots {
		s := &slots[i]
		switch s.kind {
		case sCR:
			s.open = bal
			bal += s.amount
		case sGap:
			bal -= s.extra
			s.open = bal
			bal -= s.amount
		case sArith:
			s.open = bal
			bal -= s.amount + s.extra
		default:
			s.open = bal
			bal -= s.amount
		}
		s.close = bal
		if s.kind == sRevUnlinked {
			s.flags |= flagReversed
			s.link = -1
		}
	}
	dd.slots = slots
	for i := range slots {
		if slots[i].kind.hasRecord() {
			dd.recs = append(dd.recs, int32(i))
		}
		if slots[i].kind != sCR && slots[i].kind != sUnlogged {
			dd.calls++
		}
		if slots[i].flags&flagFailedBefore != 0 {
			dd.calls++
		}
	}
	return dd
}

func hasCR(m map[int]int, p int) bool { _, ok := m[p]; return ok }

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
