package sandbox

import (
	"math"
	"math/rand/v2"
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
	sPaisa                       // as sOrphan, and the record is one paisa short of the call (plants.go)
	sSplit                       // the call is posted as two records: the first part here, the second in the next slot
	sSplitPart                   // the second part's record of the sSplit slot before it (no call)
	sMidnight                    // the period's last call, at 23:58:30; its record posts after midnight
	sMidnightRec                 // the post day's record of the sMidnight call (no call)
)

// hasCall says whether the slot has a call line with a pool debit.
func (k slotKind) hasPoolCall() bool {
	switch k {
	case sCR, sUnlogged, sPending, sSplitPart, sMidnightRec:
		return false
	}
	return true
}

// hasRecord says whether the slot has a statement record (that day).
func (k slotKind) hasRecord() bool { return k != sCallOnly && k != sMidnight }

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

// dayData is one generated day, or a run of its slots (see slotRange).
type dayData struct {
	d     int // history day index (days = the post day)
	dn    int // day number
	ds    dayStrings
	first int32   // day index of slots[0]: 0 for a whole day
	slots []slot  // the slots first, first+1, ...
	recs  []int32 // whole days: slots with a record, in statement order
	calls int     // whole days: call lines of the day
}

// slot returns slot i of the day (a day index), which must be among dd's.
func (dd *dayData) slot(i int32) *slot { return &dd.slots[i-dd.first] }

// A day is generated in four steps, each walking the day front to back: the
// reversal plan (which primary positions are reversed, and after which
// later primary each credit comes), the slots (kind, product, amounts,
// flags; a credit right after the primary it follows), their times, and the
// balances they chain. One random stream, seeded by (seed, day), runs
// through the first three steps, so the same options give the same day.
// dayGen holds a day's generation in progress; a mark (dayindex.go) saves it
// so that a page can start generating in the middle of the day.

// dayGen is the generation of one day in progress.
type dayGen struct {
	w        *world
	d        int
	nDR      int     // primary positions (a reversal that found no room adds one: TotalRecords)
	nSlots   int     // the day's slots, once known (the times spread over them)
	mean     float64 // the mean gap between the times of the slots, seconds (fitTimes)
	defs     []defectPlace
	kindAt   map[int]slotKind
	src      *rand.PCG // the day's random stream
	rng      *rand.Rand
	rev      revWindow // the reversal plan over the primaries being generated
	p        int       // next primary position
	base     int32     // day index of slots[0]
	slots    []slot
	primary  []int32 // day index of primary position primBase+k
	primBase int
	marks    *[]dayMark // when set, the marks of the day are recorded (newWorld)
}

// genDay generates day d of the history with the pool at open before it.
func (w *world) genDay(d int, open int64) *dayData {
	return w.genWholeDay(d, open, nil)
}

// genWholeDay generates day d; with ix set it also fills in the day's index
// (nDR, the reversal plan, the slots without a record, the marks).
func (w *world) genWholeDay(d int, open int64, ix *dayIndex) *dayData {
	dd := &dayData{d: d, dn: w.startDN + d, ds: newDayStrings(w.startDN + d)}
	if d == w.days {
		dd.slots, dd.recs = w.postDaySlots(open)
		return dd
	}
	g := w.newDayGen(d)
	g.slots = make([]slot, 0, g.nDR+w.nCR[d]+1)
	plan := g.planReversals()
	g.rev = plan.window(0, g.nDR)
	if ix != nil {
		ix.nDR, ix.rev = g.nDR, plan
		g.marks = &ix.marks
	}
	for g.p < g.nDR {
		g.nextPrimary()
	}
	g.nSlots = len(g.slots)
	g.fitTimes()
	g.chainBalances(0, int32(g.nSlots), open, open)
	dd.slots = g.slots
	dd.recs, dd.calls = tally(g.slots)
	if ix != nil {
		ix.nSlots, ix.mean = int32(len(g.slots)), g.mean
		for i := range g.slots {
			if !g.slots[i].kind.hasRecord() {
				ix.noRecord = append(ix.noRecord, int32(i))
			}
		}
	}
	return dd
}

// postDaySlots is the day after the period: the record of the midnight
// call and the credit of the reversalUnlinked debit, if planted.
func (w *world) postDaySlots(open int64) ([]slot, []int32) {
	var slots []slot
	if w.postAmount != 0 { // first: the reversed record names svcOrderId slot 0 of the post day
		slots = append(slots, slot{kind: sCR, sec: 300, amount: w.postAmount, open: open, close: open + w.postAmount,
			link: w.postSlot, refOf: -1, prod: w.postProd, flags: flagStrict})
	}
	if w.mid.amount != 0 {
		bal := open + w.postAmount
		slots = append(slots, slot{kind: sMidnightRec, sec: midnightRecSec, amount: w.mid.amount, open: bal, close: bal,
			link: w.mid.slot, refOf: -1, prod: w.mid.prod, flags: flagStrict})
	}
	recs := make([]int32, len(slots))
	for i := range recs {
		recs[i] = int32(i)
	}
	return slots, recs
}

// newDayGen starts the generation of day d at its first primary position.
func (w *world) newDayGen(d int) *dayGen {
	g := &dayGen{w: w, d: d, nDR: w.nDR[d], defs: w.defects[d], kindAt: make(map[int]slotKind, len(w.defects[d]))}
	for _, df := range g.defs {
		g.kindAt[df.pos] = df.kind
	}
	g.src = rand.NewPCG(w.seed, mix(uint64(d), 0x5eed))
	g.rng = rand.New(g.src)
	return g
}

// near says whether primary position p is within a defect's clean margin.
func (g *dayGen) near(p int) bool {
	for _, df := range g.defs {
		if p >= df.pos-defectSpacing+1 && p <= df.pos+defectSpacing-1 {
			return true
		}
	}
	return false
}

// planReversals places the day's reversals: primary i reversed, its credit
// emitted right after primary j, i < j ≤ i+3, away from the defects and from
// each other. A reversal that finds no room in 20 tries is dropped (with
// TotalRecords a primary takes its place, keeping the day's records).
func (g *dayGen) planReversals() reversalPlan {
	crAfter := map[int]int{} // primary j -> reversed primary i
	reversed := map[int]bool{}
	used := func(j int) bool { _, ok := crAfter[j]; return ok }
	for r := 0; r < g.w.nCR[g.d]; r++ {
		placed := false
		for try := 0; try < 20 && g.nDR > 10; try++ {
			i := 2 + g.rng.IntN(g.nDR-8)
			j := i + 1 + g.rng.IntN(3)
			if j+1 >= g.nDR || reversed[i] || g.near(i) || g.near(j) || g.near(j+1) {
				continue
			}
			if used(j) || used(j-1) || used(j+1) || used(i) {
				continue
			}
			crAfter[j] = i
			reversed[i] = true
			placed = true
			break
		}
		if !placed && g.w.opts.TotalRecords > 0 {
			g.nDR++ // keep the day's record count
		}
	}
	return newReversalPlan(crAfter)
}

// nextPrimary generates primary position p: its slot, and the credit of
// the primary it reverses when a credit follows it.
func (g *dayGen) nextPrimary() {
	p := g.p
	if g.marks != nil {
		g.markAt(p)
	}
	s := slot{kind: sDR, refOf: -1, link: -1}
	if k, ok := g.kindAt[p]; ok {
		s.kind = k
	}
	g.drawAmounts(&s)
	g.drawFlags(&s, p)
	idx := g.base + int32(len(g.slots))
	s.refOf = idx
	if s.kind == sDup {
		s.refOf = g.primary[p-3-g.primBase]
	}
	g.primary = append(g.primary, idx)
	g.slots = append(g.slots, s)
	if s.kind == sSplit {
		g.slots = append(g.slots, splitPart(&s, idx))
	}
	if i, ok := g.rev.creditAfter(p); ok {
		r := &g.slots[g.primary[i-g.primBase]-g.base]
		r.link = g.base + int32(len(g.slots))
		g.slots = append(g.slots, slot{kind: sCR, amount: r.amount, link: g.primary[i-g.primBase], refOf: r.refOf,
			prod: r.prod, flags: flagStrict, sub: r.sub, extra: r.extra})
	}
	g.p++
}

// drawAmounts draws the slot's product and sets what it charges: the
// product's charge, a transfer amount plus its fee, a denomination; a
// planted defect sets its extra.
func (g *dayGen) drawAmounts(s *slot) {
	rng := g.rng
	s.prod = pickProduct(rng.IntN(weightTotal))
	switch s.kind {
	case sMismatch, sMidnight:
		s.prod = prodLitigation
	case sPaisa:
		s.prod = prodFundTransfer // priced on top of orderValue: a paisa less of each is no fee finding
	case sSplit:
		s.prod = prodBrandOrder // a gift card order settled in two parts
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
	case prodMispriced:
		if g.w.mispricedDay(g.d) {
			s.amount += mispriceDelta // mispriced.go
		}
	}
	switch s.kind {
	case sMismatch:
		s.extra = s.amount - mismatchDelta
	case sArith:
		s.extra = arithDelta
	case sGap:
		s.extra = gapDelta
	}
}

// drawFlags draws the slot's flags: reversed (planned), the pool object's
// shape, amounts as numbers, a same-second pair (sometimes logged out of
// order) and a failed attempt before it, both among clean calls only; and
// strict for what must be alone in its second.
func (g *dayGen) drawFlags(s *slot, p int) {
	rng := g.rng
	clean := s.kind == sDR && !g.near(p)
	reversed := g.rev.isReversed(p)
	if reversed {
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
	prevClean := p > 1 && g.slots[len(g.slots)-1].kind == sDR && !g.near(p-1) && !g.rev.hasCredit(p-1) && !g.rev.hasCredit(p-2)
	if clean && prevClean && !reversed && rng.IntN(25) == 0 {
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
	if s.kind != sDR || g.near(p) {
		s.flags |= flagStrict
	}
}

// fitTimes gives the whole day's slots their times (timeSlots), spread over
// the day. The plain mean gap, 85% of the day's seconds over its slots,
// leaves room before midnight unless the day has more slots than seconds:
// then the slots that must be alone in their seconds (strictAt) each take a
// whole second, more than their share, and the rest would crowd into the
// day's last second, where no order of the pool's chain can be known. Such
// a day is timed again from the same random stream, with the mean gap the
// seconds left after the strict slots allow (denseMean), lowered until the
// day fits; a day of more strict slots than seconds still crowds.
func (g *dayGen) fitTimes() {
	first := g.w.firstSec
	src := *g.src
	g.mean = float64(dayLastSec-first) * 0.85 / float64(g.nSlots+1)
	fits := g.timeSlots(0, int32(g.nSlots), first)
	for try := 0; !fits && try < 8; try++ {
		*g.src = src
		g.mean = g.denseMean() * math.Pow(0.9, float64(try))
		fits = g.timeSlots(0, int32(g.nSlots), first)
	}
}

// denseMean is the mean gap between the times of the day's slots that
// spreads them over 85% of the day's seconds when each strict slot takes a
// second of its own (and a same-second one none).
func (g *dayGen) denseMean() float64 {
	strict, free := 0, 0
	for i := int32(0); i < int32(g.nSlots); i++ {
		switch {
		case i <= 1 || g.strictAt(i):
			strict++
		case g.at(i).flags&flagSameSecond == 0:
			free++
		}
	}
	left := float64(dayLastSec-g.w.firstSec)*0.85 - float64(strict)
	return max(0, left/float64(max(free, 1)))
}

// strictAt says whether slot i (a day index; the two before it generated)
// must be in a later second than the slot before it: a record without a
// pool call, and the first call after it, are alone in their seconds, so
// that the chain can be ordered within a second; so is a defect's slot.
func (g *dayGen) strictAt(i int32) bool {
	return g.at(i).flags&flagStrict != 0 || (i > 0 && g.at(i-1).flags&flagStrict != 0) ||
		(i > 1 && !g.at(i-2).kind.hasPoolCall())
}

// timeSlots gives slots [from, to) (day indexes) their second, response
// millisecond and latency: gaps of mean g.mean, t being the time before
// slot from. The slot before from must be generated (a same-second pair
// logged out of order changes it). It reports whether the slots fit before
// midnight (else the last ones crowd into the day's last second).
func (g *dayGen) timeSlots(from, to, t int32) (fits bool) {
	rng := g.rng
	mean := g.mean
	fits = true
	next := g.nextMark(from)
	for i := from; i < to; i++ {
		if next != nil && next.slot == i {
			next.timesRNG, next.t = *g.src, t
			next = g.nextMark(i + 1)
		}
		s := g.at(i)
		var gap int32
		if mean >= 2 {
			gap = 1 + int32(rng.IntN(int(2*mean-1)))
		} else {
			gap = int32(mean + rng.Float64())
		}
		strict := g.strictAt(i)
		if s.flags&flagSameSecond != 0 && !strict && i > 0 {
			gap = 0
		}
		if strict && gap < 1 {
			gap = 1
		}
		if i <= 1 && gap < 1 {
			gap = 1 // a day's (a period's) first call is alone in its second
		}
		fits = fits && t+gap <= dayLastSec
		t = min(t+gap, dayLastSec)
		if s.kind == sMidnight {
			t = max(t, midnightSec)
		}
		s.sec = t
		s.ms = int16(rng.IntN(1000))
		s.lat = int16(120 + rng.IntN(1400))
		if products[s.prod].op == "creditReport" {
			s.lat += 1500
		}
		if s.flags&flagSwapLog != 0 && i > 0 {
			prev := g.at(i - 1)
			prev.ms = int16(700 + rng.IntN(300))
			prev.lat = int16(80 + rng.IntN(100))
			s.ms = int16(rng.IntN(200))
			s.lat = int16(1200 + rng.IntN(800))
		}
	}
	return fits
}

// chainBalances sets the opening and closing balances of slots [from, to),
// bal being the balance before slot from and open the day's opening: a
// credit adds, a debit takes, a gap loses its extra before the call, an
// arithmetic defect loses it with the call. The reversalUnlinked debit is
// reversed after the period (no credit slot).
func (g *dayGen) chainBalances(from, to int32, bal, open int64) {
	next := g.nextMark(from)
	for i := from; i < to; i++ {
		if next != nil && next.slot == i {
			next.bal = bal - open
			next = g.nextMark(i + 1)
		}
		s := g.at(i)
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
		case sSplitPart:
			s.open = bal // the call before took it
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
}

// at returns the generated slot with day index i.
func (g *dayGen) at(i int32) *slot { return &g.slots[i-g.base] }

// tally lists a whole day's slots with a record, in statement order, and
// counts its call lines (a failed attempt is a line of its own).
func tally(slots []slot) (recs []int32, calls int) {
	for i := range slots {
		if slots[i].kind.hasRecord() {
			recs = append(recs, int32(i))
		}
		if slots[i].kind.hasPoolCall() || slots[i].kind == sPending {
			calls++
		}
		if slots[i].flags&flagFailedBefore != 0 {
			calls++
		}
	}
	return recs, calls
}
