package ledger

import (
	"math"
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestGapLog: a gap waits until every record of its interval has
// finished, then is explained by the logged records of its interval (of
// its account, when the records name it) that sum to its delta; records
// before every gap to come are dropped.
func TestGapLog(t *testing.T) {
	at := func(s string) int64 { v, _ := parseTS("2026-11-21 10:00:" + s); return v }
	logged := func(svc, acct, ts, amount string, flags uint8) *wrec {
		return &wrec{svc: svc, account: acct, ts: at(ts), amount: dec(amount), flags: flags}
	}
	var breaks []Break
	g := &gapLog{recAccts: map[string]bool{"A": true, "B": true}, emit: func(b Break) { breaks = append(breaks, b) }}
	for _, svc := range []string{"OLD1", "OLD2", "OLD3", "OLD4"} { // dropped in a batch, at least half the log
		g.log(logged(svc, "A", "00", "9", 0))
	}
	g.log(logged("X3", "A", "30", "1.50", recLinked|recLinkedPending))
	g.log(logged("X2", "B", "20", "7", 0)) // another account's: no part of A's gap
	g.log(logged("X1", "A", "20", "2", 0)) // logged after a later record: kept in time order
	g.log(logged("RV", "A", "25", "1", recCR))
	g.add(gapCand{account: "A", prevID: 1, curID: 2, from: at("10"), to: at("40"), delta: dec("2.50"),
		expected: dec("90"), actual: dec("87.50")})
	g.resolve(func(from, to int64) bool { return false }, at("10"), false)
	if len(breaks) != 0 {
		t.Fatalf("explained before its records finished: %+v", breaks)
	}
	if len(g.entries) != 4 || g.entries[0].svc != "X1" {
		t.Errorf("entries after the trim: %d from %s, want the 4 from 10:00:10 on", len(g.entries), g.entries[0].svc)
	}
	g.resolve(func(from, to int64) bool { return from == at("10") && to == at("40") }, math.MaxInt64, false)
	if len(breaks) != 1 {
		t.Fatalf("breaks %+v, want the gap explained", breaks)
	}
	b := breaks[0]
	if b.Kind != recon.BreakExplainedGap || !slices.Equal(b.ExplainedBy, []string{"X1", "RV", "X3"}) || b.CallID != 2 || b.PrevCallID != 1 ||
		b.Note != "explained by unlogged debit X1 (2.00), reversal credit RV (1.00), a pending call's debit X3 (1.50)" {
		t.Errorf("break %+v", b)
	}
	g.add(gapCand{account: "A", from: at("45"), to: at("50"), delta: dec("1")})
	g.resolve(nil, math.MaxInt64, true)
	if len(breaks) != 2 || breaks[1].Kind != recon.BreakGap || breaks[1].Note != "no statement record explains it" {
		t.Errorf("breaks %+v, want the second gap unexplained at the end", breaks)
	}
}

func TestExplanationNamesFive(t *testing.T) {
	var recs []*wrec
	for _, s := range []string{"A", "B", "C", "D", "E", "F", "G"} {
		recs = append(recs, &wrec{svc: s, amount: dec("1"), flags: recLinked})
	}
	want := "explained by debit of a call logged without one A (1.00), debit of a call logged without one B (1.00), " +
		"debit of a call logged without one C (1.00), debit of a call logged without one D (1.00), " +
		"debit of a call logged without one E (1.00) and 2 more records"
	if got := explanation(recs); got != want {
		t.Errorf("explanation = %q, want %q", got, want)
	}
}

func TestExplainGaps(t *testing.T) {
	const day = "2026-11-21 "
	// Two debits of pool account A, 10:00:00 and 10:05:00, the second
	// opening delta below the first one's closing.
	chainCalls := func(delta string) []recon.Call {
		c1 := recon.Call{ID: 1, TS: day + "10:00:00", ExternalRef: "C1", OrderID: "SC1", Outcome: recon.CallSuccess,
			Pool: pool("100", "10", "90")}
		c2 := recon.Call{ID: 2, TS: day + "10:05:00", ExternalRef: "C2", OrderID: "SC2", Outcome: recon.CallSuccess,
			Pool: pool(dec("90").Sub(dec(delta)).String(), "1", dec("89").Sub(dec(delta)).String())}
		c1.Pool.Account, c2.Pool.Account = "A", "A"
		return []recon.Call{c1, c2}
	}
	// A debit of another pool account links record OX.
	linkOX := recon.Call{ID: 3, TS: day + "10:02:00", OrderID: "OX", Outcome: recon.CallSuccess,
		Pool: recon.PoolEntry{Account: "B", Shape: "A", Opening: "50", Amount: "3", Closing: "47"}}
	pendingP := recon.Call{ID: 4, TS: day + "10:01:00", ExternalRef: "P", Outcome: recon.CallPending}
	for _, tt := range []struct {
		name     string
		recs     []Record
		calls    []recon.Call // besides the two debits
		delta    string
		kind     string
		explains []string
		note     string
	}{
		{"an unlogged debit explains it", []Record{rec("OX", "X", day+"10:02:00", "DR", "4.50", "")}, nil,
			"4.50", recon.BreakExplainedGap, []string{"OX"}, "explained by unlogged debit OX (4.50)"},
		{"a credit explains a negative gap", []Record{rec("RV", "A", day+"10:03:00", "CR", "10", "")}, nil,
			"-10", recon.BreakExplainedGap, []string{"RV"}, "explained by reversal credit RV (10.00)"},
		{"a pending call's debit explains it", []Record{rec("OP", "P", day+"10:01:00", "DR", "2.95", "")},
			[]recon.Call{pendingP}, "2.95", recon.BreakExplainedGap, []string{"OP"}, "explained by a pending call's debit OP (2.95)"},
		{"each record named for what it is", []Record{rec("OP", "P", day+"10:01:00", "DR", "2.95", ""),
			rec("OX", "X", day+"10:02:00", "DR", "1.50", ""), rec("RV", "A", day+"10:03:00", "CR", "25", "")},
			[]recon.Call{pendingP}, "-20.55", recon.BreakExplainedGap, []string{"OP", "OX", "RV"},
			"explained by a pending call's debit OP (2.95), unlogged debit OX (1.50), reversal credit RV (25.00)"},
		{"records that do not sum to it", []Record{rec("OX", "X", day+"10:02:00", "DR", "2", "")}, nil,
			"3", recon.BreakGap, nil, "statement records with no logged debit in the interval sum to 2.00, not 3.00"},
		{"a logged debit's record does not count", []Record{rec("OX", "X", day+"10:02:00", "DR", "3", "")},
			[]recon.Call{linkOX}, "3", recon.BreakGap, nil, "no statement record explains it"},
		{"a record outside the interval does not count", []Record{rec("OX", "X", day+"11:00:00", "DR", "3", "")}, nil,
			"3", recon.BreakGap, nil, "no statement record explains it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := append(chainCalls(tt.delta), tt.calls...)
			res := runPass(t, calls, tt.recs, nil)
			var got []Break
			for _, b := range res.breaks {
				if b.PoolAccount == "A" {
					got = append(got, b)
				}
			}
			var ids []string
			if len(got) == 1 && got[0].ExplainedBy != nil {
				ids = got[0].ExplainedBy
			}
			if len(got) != 1 || got[0].Kind != tt.kind || !slices.Equal(ids, tt.explains) || got[0].Note != tt.note {
				t.Errorf("breaks = %+v, want %s by %v, note %q", got, tt.kind, tt.explains, tt.note)
			}
		})
	}
}
