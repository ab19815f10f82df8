package ledger

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The timing stage through the stages with no database: an unpaired
// callOnly call in the last minutes of the period is timing while no
// record after the period is stored, and an unpaired statementOnly record
// in its first minutes is timing while no call before it is; elsewhere,
// or with the timing window 0, they stay what they were.
func TestTiming(t *testing.T) {
	call := func(id int64, ts, ref, open, amount, closing string) recon.Call {
		return recon.Call{ID: id, TS: ts, ExternalRef: ref, OrderID: "S" + ref, Operation: "verifyPanPlusV2",
			Outcome: recon.CallSuccess, Pool: pool(open, amount, closing)}
	}
	calls := []recon.Call{call(1, "2026-11-21 12:00:00", "R1", "100", "1.50", "98.50"),
		call(2, "2026-11-21 23:58:30", "R2", "98.50", "1.50", "97.00"), // its record after midnight
		call(3, "2026-11-21 23:50:00", "R3", "97.00", "2.00", "95.00")} // too early for timing
	recs := []Record{rec("SR1", "R1", "2026-11-21 12:00:01", "DR", "1.50", ""),
		rec("SX", "RX", "2026-11-21 00:01:10", "DR", "25.00", ""), // its call the day before
		rec("SY", "RY", "2026-11-21 09:00:00", "DR", "7.00", "")}
	for _, tt := range []struct {
		name   string
		timing time.Duration
		after  []Record // stored after the period
		want   []string // outcome of each row but the matched one, by time
	}{
		{name: "the window: one call, one record",
			timing: 5 * time.Minute,
			want:   []string{"timing SX", "statementOnly SY", "callOnly R3", "timing R2"}},
		{name: "the next day's statement stored: the call is callOnly",
			timing: 5 * time.Minute, after: []Record{rec("SZ", "RZ", "2026-11-22 08:00:00", "DR", "1.00", "")},
			want: []string{"timing SX", "statementOnly SY", "callOnly R3", "callOnly R2"}},
		{name: "no timing window: none",
			want: []string{"statementOnly SX", "statementOnly SY", "callOnly R3", "callOnly R2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemStore(calls, recs, tt.after)
			m.timing = tt.timing
			rep, err := m.run()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range rep.Exceptions {
				got = append(got, x.Outcome+" "+cmp.Or(x.SvcOrderID, x.ExternalRef))
				if x.Outcome == recon.Timing && !strings.HasPrefix(x.Note, "timing: ") {
					t.Errorf("timing row %+v: note %q", x, x.Note)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows = %q, want %q", got, tt.want)
			}
			n := 0
			for _, w := range tt.want {
				if strings.HasPrefix(w, recon.Timing) {
					n++
				}
			}
			if rep.Summary.Outcomes[recon.Timing].Count != n {
				t.Errorf("summary timing %+v, want %d counted apart", rep.Summary.Outcomes[recon.Timing], n)
			}
		})
	}
}
