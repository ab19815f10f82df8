package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// recFinder is a reversalFinder over fixed records.
type recFinder struct {
	recs []Record
	fail error
}

func (f recFinder) Record(_ context.Context, svc string) (Record, bool, error) {
	for _, r := range f.recs {
		if r.SvcOrderID == svc {
			return r, true, f.fail
		}
	}
	return Record{}, false, f.fail
}

// TestReversalRow: the reversal record the matching stage holds is linked
// as it is; another is looked up (any date); one found nowhere is flagged.
func TestReversalRow(t *testing.T) {
	const day = "2026-11-21 10:00:00"
	reversed := func(rev string) *wrec {
		r, err := compact(&Record{SvcOrderID: "O", TxnDateTime: day, TxnMode: "DR", Amount: "10", ReversalSvcOrderID: rev})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	held, _ := compact(&Record{SvcOrderID: "RV", TxnDateTime: "2026-11-21 10:05:00", TxnMode: "CR", Amount: "10.5"})
	s := &reversals{ctx: context.Background(), find: recFinder{recs: []Record{
		{SvcOrderID: "RVX", TxnDateTime: "2026-12-01 09:00:00", Amount: "10"}, {SvcOrderID: "BAD", Amount: "ten"}}}}
	for _, tt := range []struct {
		name string
		rev  string
		held *wrec
		want string
	}{
		{"held by the matching stage", "RV", held, "O RV 2026-11-21 10:00:00 10.00 true 2026-11-21 10:05:00 10.50 "},
		{"looked up", "RVX", nil, "O RVX 2026-11-21 10:00:00 10.00 true 2026-12-01 09:00:00 10.00 "},
		{"not synced", "RVN", nil, "O RVN 2026-11-21 10:00:00 10.00 false   reversal record not synced"},
	} {
		row, err := s.row(reversed(tt.rev), tt.held)
		got := fmt.Sprintf("%s %s %s %s %v %s %s %s", row.SvcOrderID, row.ReversalSvcOrderID, row.TxnDateTime, row.Amount,
			row.Found, row.ReversalTxnDateTime, row.ReversalAmount, row.Note)
		if err != nil || got != tt.want {
			t.Errorf("%s: row = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := s.row(reversed("BAD"), nil); err == nil {
		t.Error("a reversal record whose amount is no decimal: no error")
	}
	boom := errors.New("boom")
	s.find = recFinder{fail: boom}
	if _, err := s.row(reversed("RVX"), nil); !errors.Is(err, boom) {
		t.Errorf("a failing look-up: %v, want %v", err, boom)
	}
}

func TestReversalsPass(t *testing.T) {
	recs := []Record{
		rec("OA", "A", "2026-11-21 10:00:00", "DR", "10", "RVA"),
		rec("OB", "B", "2026-11-21 10:00:10", "DR", "20", "RVB"),
		rec("OC", "C", "2026-11-21 10:00:20", "DR", "30", "RVC"),
		rec("RVC", "C", "2026-11-21 11:00:00", "CR", "30", "")}
	synced := []Record{rec("RVA", "A", "2026-11-23 09:00:00", "CR", "10", "")}
	// Through the whole check: the reversal held by the window, looked up, or
	// not synced.
	var got []string
	for _, r := range runPass(t, nil, recs, synced).reversals {
		got = append(got, r.SvcOrderID+"|"+r.ReversalTxnDateTime+"|"+r.ReversalAmount+"|"+fmt.Sprint(r.Found))
	}
	want := []string{"OA|2026-11-23 09:00:00|10.00|true", "OB|||false", "OC|2026-11-21 11:00:00|30.00|true"}
	if !slices.Equal(got, want) {
		t.Errorf("reversals = %v, want %v", got, want)
	}
	boom := errors.New("boom")
	m := newMemStore(nil, recs, nil)
	m.fail = boom
	if _, err := m.run(); !errors.Is(err, boom) {
		t.Errorf("reversals with a failing look-up: %v, want %v", err, boom)
	}
}
