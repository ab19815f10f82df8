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
			dd := sb.w.day(d)
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
