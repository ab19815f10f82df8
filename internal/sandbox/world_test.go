package sandbox

import (
	"testing"
	"time"
)

// TestDenseDay checks the generator's invariants at the density of the
// 1,000,000-record benchmark world (many calls a second), where the
// reconciliation depends on them: records that no pool call carries sit
// strictly between the seconds of the calls around them, a same-second
// pair starts with a call that links to the one before, balances chain.
func TestDenseDay(t *testing.T) {
	for _, o := range []Options{
		{TotalRecords: 35_000, Days: 1},
		{TotalRecords: 120_000, Days: 1}, // several calls a second
		{TotalRecords: 1_000_000, Days: 30},
		{CallsPerDay: 40, Days: 30},
	} {
		o.End = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		sb, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if o.TotalRecords > 0 && sb.Counts().Statement != o.TotalRecords {
			t.Errorf("TotalRecords %d: Counts().Statement = %d", o.TotalRecords, sb.Counts().Statement)
		}
		for _, d := range []int{0, o.Days - 1} {
			dd := sb.w.genDay(d, sb.w.dayOpen[d])
			sl := dd.slots
			for i := range sl {
				s := &sl[i]
				if i == 1 && s.sec == sl[0].sec {
					t.Errorf("day %d: the first call shares its second", d)
				}
				if i > 0 && s.sec < sl[i-1].sec {
					t.Fatalf("day %d slot %d: time goes back", d, i)
				}
				if !s.kind.hasPoolCall() && i > 0 && i+1 < len(sl) && !(sl[i-1].sec < s.sec && s.sec < sl[i+1].sec) {
					t.Errorf("day %d slot %d (kind %d): not strictly between its neighbours' seconds", d, i, s.kind)
				}
				if i > 1 && i+1 < len(sl) && !sl[i-1].kind.hasPoolCall() && (s.sec == sl[i+1].sec || s.sec == sl[i-1].sec) {
					t.Errorf("day %d slot %d: the first call after a record without call shares its second", d, i)
				}
				if (s.kind == sGap || s.kind == sArith) && i+1 < len(sl) && (s.sec == sl[i+1].sec || s.sec == sl[i-1].sec) {
					t.Errorf("day %d slot %d: a %d defect shares its second", d, i, s.kind)
				}
				if i > 0 && s.kind != sGap && s.open != sl[i-1].close {
					t.Errorf("day %d slot %d: opening %d, previous closing %d", d, i, s.open, sl[i-1].close)
				}
			}
		}
	}
}

// TestSlotRange: a range of a day's slots generated from its marks is the
// same, slot for slot, as that part of the whole day's generation; so are
// a range of collect orders and the visible records a page maps to.
func TestSlotRange(t *testing.T) {
	for _, o := range []Options{
		{TotalRecords: 120_000, Days: 2, OrdersPerDay: 3000}, // several calls a second, many marks a day
		{TotalRecords: 35_000, Days: 3, Seed: 9},
		{CallsPerDay: 40, Days: 30, Seed: 4},
		{CallsPerDay: 700, Days: 9, NoDefects: true, OrdersPerDay: 1025},
		busyDays, // timed again to fit its seconds (fitTimes)
	} {
		o.End = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		sb, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		w := sb.w
		for d := 0; d < w.days; d++ {
			whole := w.genDay(d, w.dayOpen[d])
			n := int32(len(whole.slots))
			if n != w.index[d].nSlots {
				t.Fatalf("%+v day %d: index says %d slots, the day has %d", o, d, w.index[d].nSlots, n)
			}
			for _, r := range slotRanges(n) {
				got := w.slotRange(d, r[0], r[1]).slots
				for i := range got {
					if got[i] != whole.slots[int(r[0])+i] {
						t.Fatalf("%+v day %d: slotRange(%d, %d) slot %d = %+v, the whole day's %+v",
							o, d, r[0], r[1], int(r[0])+i, got[i], whole.slots[int(r[0])+i])
					}
				}
			}
			checkRecords(t, w, d, whole)
		}
		for dn := w.ordStart; dn <= w.endDN(); dn++ {
			whole := w.genOrders(dn, nil)
			for _, r := range slotRanges(int32(len(whole))) {
				got := w.orderRange(dn, int(r[0]), int(r[1]))
				for i := range got {
					if got[i] != whole[int(r[0])+i] {
						t.Fatalf("%+v day %d: orderRange(%d, %d) order %d differs", o, dn, r[0], r[1], int(r[0])+i)
					}
				}
			}
		}
	}
}

// slotRanges are ranges of a list of n: single items at the start, the end
// and around every mark, and pages across marks.
func slotRanges(n int32) [][2]int32 {
	var out [][2]int32
	for _, i := range []int32{0, 1, 2, 3, 4, n - 2, n - 1} {
		if i >= 0 && i < n {
			out = append(out, [2]int32{i, i + 1})
		}
	}
	for m := int32(markEvery); m < n+markEvery; m += markEvery {
		for _, i := range []int32{m - 9, m - 2, m - 1, m, m + 1, m + 5} {
			if i >= 0 && i < n {
				out = append(out, [2]int32{i, i + 1})
			}
		}
	}
	for a := int32(0); a < n; a += 997 {
		out = append(out, [2]int32{a, min(n, a+1000)})
	}
	return out
}

// checkRecords compares the records a page maps to, drift hiding some or
// not, with the whole day's list.
func checkRecords(t *testing.T, w *world, d int, whole *dayData) {
	t.Helper()
	n := len(whole.recs)
	for _, hidden := range []bool{false, true} {
		var visible []int32
		for p, si := range whole.recs {
			if !hidden || !driftHidden(n, p) {
				visible = append(visible, si)
			}
		}
		for _, r := range slotRanges(int32(len(visible))) {
			run := w.records(d, int(r[0]), int(r[1]), hidden)
			for v := int(r[0]); v < int(r[1]); v++ {
				if got, want := run.slots[v-run.from], visible[v]; got != want {
					t.Fatalf("day %d (hidden %v): visible record %d is slot %d, want %d", d, hidden, v, got, want)
				}
				if run.sec(v) != whole.slots[visible[v]].sec {
					t.Fatalf("day %d: visible record %d: second %d, want %d", d, v, run.sec(v), whole.slots[visible[v]].sec)
				}
			}
		}
	}
}

// busyDays is a world whose days have more slots than seconds: 10,000
// records a day from 23:30, as a day of the 10,000,000-record month has
// from 06:00.
var busyDays = Options{TotalRecords: 30_000, Days: 3, Seed: 5, CallsFrom: 23*time.Hour + 30*time.Minute - time.Second}

// TestBusyDaySpread: a day with more slots than seconds is spread over its
// seconds like any other: nothing crowds into its last second, and every
// record without a pool call is alone in its second (the check could not
// order the pool's chain in a second shared with one).
func TestBusyDaySpread(t *testing.T) {
	for _, from := range []time.Duration{-time.Second, 23*time.Hour + 30*time.Minute} {
		if _, err := New(Options{CallsFrom: from}); err == nil {
			t.Errorf("CallsFrom %v: no error", from)
		}
	}
	o := busyDays
	o.End = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	sb, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	w := sb.w
	for d := 0; d < w.days; d++ {
		dd := w.genDay(d, w.dayOpen[d])
		per := map[int32]int{}
		for i := range dd.slots {
			per[dd.slots[i].sec]++
		}
		if per[dayLastSec] > 1 {
			t.Errorf("day %d: %d slots at 23:59:59", d, per[dayLastSec])
		}
		busiest, shared := 0, 0
		for i := range dd.slots {
			s := &dd.slots[i]
			busiest = max(busiest, per[s.sec])
			if !s.kind.hasPoolCall() && per[s.sec] > 1 {
				shared++
			}
		}
		if shared > 0 {
			t.Errorf("day %d: %d records without a pool call share their second (busiest second: %d slots)", d, shared, busiest)
		}
		if busiest < 2 {
			t.Errorf("day %d: busiest second has %d slots; the world is not busy", d, busiest)
		}
	}
}
