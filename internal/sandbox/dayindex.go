package sandbox

import (
	"math/rand/v2"
	"sort"
)

// A page of a day with a million records must not cost a million slots.
// New generates every day once (to learn its balances and counts) and keeps
// its index: the reversal plan, the slots without a statement record, and
// every markEvery slots a mark, the generation's state at that point. A
// page then generates only its own slots, resuming from the mark before
// them: the same slots, byte for byte, as the whole day's generation.

// markEvery is the spacing of a day's marks in slots (and of a day's
// collect orders): a page generates at most this many slots besides its own.
const markEvery = 512

// rangeMargin is how many slots past a range are generated with it: the
// credit of a reversed debit comes at most seven slots after it (its link),
// and the slot right after a range can change the range's last (a
// same-second pair logged out of order).
const rangeMargin = 8

// dayIndex is what a page needs of day d to generate a range of its slots.
type dayIndex struct {
	nDR      int     // primary positions, after the reversal plan
	nSlots   int32   // slots of the day
	mean     float64 // the mean gap between the slots' times (fitTimes)
	rev      reversalPlan
	noRecord []int32 // slots without a statement record (callOnly), ascending
	marks    []dayMark
}

// dayMark is the state of a day's generation when it reaches slot, which is
// primary position p: what the slots, times and balances steps carry from
// one slot to the next.
type dayMark struct {
	p, slot  int32
	t        int32    // the time before slot
	bal      int64    // the balance before slot, less the day's opening
	slotsRNG rand.PCG // the random stream where the slots step is at primary p
	timesRNG rand.PCG // the random stream where the times step is at slot
	prim     [3]int32 // the slots of primary positions p-3, p-2, p-1
	tail     []slot   // slots from primary p-3 up to slot, as the slots step left them
}

// markAt records a mark at primary position p when the last one is
// markEvery slots behind (and always at the first primary). Past the first,
// a mark needs three primaries behind it: a duplicate debit reuses the
// reference of the primary three back, and a credit copies the primary it
// reverses, at most three back.
func (g *dayGen) markAt(p int) {
	ms := *g.marks
	at := g.base + int32(len(g.slots))
	if p != 0 && (p < 3 || at < ms[len(ms)-1].slot+markEvery) {
		return
	}
	m := dayMark{p: int32(p), slot: at, slotsRNG: *g.src}
	if p >= 3 {
		back := g.primary[p-3-g.primBase : p-g.primBase]
		copy(m.prim[:], back)
		m.tail = append([]slot(nil), g.slots[back[0]-g.base:]...)
	}
	*g.marks = append(ms, m)
}

// nextMark returns the first recorded mark at or after slot i, or nil (also
// when no marks are being recorded).
func (g *dayGen) nextMark(i int32) *dayMark {
	if g.marks == nil {
		return nil
	}
	ms := *g.marks
	k := sort.Search(len(ms), func(k int) bool { return ms[k].slot >= i })
	if k == len(ms) {
		return nil
	}
	return &ms[k]
}

// slotRange generates slots [from, to) of history day d (d < days), from
// the last mark at or before from. It costs the slots asked for plus at
// most markEvery+rangeMargin, whatever the size of the day.
func (w *world) slotRange(d int, from, to int32) *dayData {
	ix := &w.index[d]
	k := sort.Search(len(ix.marks), func(k int) bool { return ix.marks[k].slot > from }) - 1
	m := &ix.marks[k]
	g := w.resumeDay(d, m, to)
	end := min(to+rangeMargin, ix.nSlots)
	for g.p < g.nDR && g.base+int32(len(g.slots)) < end {
		g.nextPrimary()
	}
	*g.src = m.timesRNG
	g.timeSlots(m.slot, min(to+1, ix.nSlots), m.t)
	open := w.dayOpen[d]
	g.chainBalances(m.slot, to, open+m.bal, open)
	return &dayData{d: d, dn: w.startDN + d, ds: newDayStrings(w.startDN + d), first: from,
		slots: g.slots[from-g.base : to-g.base]}
}

// resumeDay restarts the generation of day d at mark m, to generate up to
// slot to.
func (w *world) resumeDay(d int, m *dayMark, to int32) *dayGen {
	ix := &w.index[d]
	g := w.newDayGen(d)
	*g.src = m.slotsRNG
	g.nDR, g.nSlots, g.p, g.mean = ix.nDR, int(ix.nSlots), int(m.p), ix.mean
	g.slots = append(make([]slot, 0, len(m.tail)+int(to-m.slot)+rangeMargin+2), m.tail...)
	g.base = m.slot - int32(len(m.tail))
	if m.p >= 3 {
		g.primBase = int(m.p) - 3
		g.primary = append(g.primary, m.prim[:]...)
	}
	// Each primary adds at least one slot: no more primaries than slots.
	g.rev = ix.rev.window(g.primBase, min(g.nDR, int(m.p)+int(to+rangeMargin-m.slot)+1))
	return g
}

// reversalPlan is a day's reversals: the credit of primary of[k] comes right
// after primary after[k]; after is ascending.
type reversalPlan struct{ after, of []int32 }

func newReversalPlan(crAfter map[int]int) reversalPlan {
	p := reversalPlan{after: make([]int32, 0, len(crAfter)), of: make([]int32, len(crAfter))}
	for j := range crAfter {
		p.after = append(p.after, int32(j))
	}
	sort.Slice(p.after, func(a, b int) bool { return p.after[a] < p.after[b] })
	for k, j := range p.after {
		p.of[k] = int32(crAfter[int(j)])
	}
	return p
}

// window is the plan over primary positions [lo, hi).
func (p reversalPlan) window(lo, hi int) revWindow {
	r := revWindow{lo: lo, credit: make([]int32, max(0, hi-lo)), reversed: make([]bool, max(0, hi-lo))}
	k := sort.Search(len(p.after), func(k int) bool { return int(p.after[k]) >= lo })
	for ; k < len(p.after) && int(p.after[k]) < hi+3; k++ {
		j, i := int(p.after[k]), int(p.of[k])
		if j < hi {
			r.credit[j-lo] = int32(i) + 1
		}
		if i >= lo && i < hi {
			r.reversed[i-lo] = true
		}
	}
	return r
}

// revWindow answers the slots step's questions about the reversals of the
// primaries it generates.
type revWindow struct {
	lo       int
	credit   []int32 // primary lo+k is followed by the credit of primary credit[k]-1 (0: none)
	reversed []bool  // primary lo+k is reversed
}

// creditAfter returns the primary whose credit comes right after primary j.
func (r *revWindow) creditAfter(j int) (int, bool) {
	k := j - r.lo
	if k < 0 || k >= len(r.credit) || r.credit[k] == 0 {
		return 0, false
	}
	return int(r.credit[k]) - 1, true
}

func (r *revWindow) hasCredit(j int) bool { _, ok := r.creditAfter(j); return ok }

func (r *revWindow) isReversed(i int) bool {
	k := i - r.lo
	return k >= 0 && k < len(r.reversed) && r.reversed[k]
}
