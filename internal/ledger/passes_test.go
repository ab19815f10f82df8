package ledger

import (
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// These tests run the passes on their own, with no database.

// rec is a statement record for the passes.
func rec(svc, client, ts, mode, amount, reversal string) Record {
	return Record{Account: "0409000123456", SvcOrderID: svc, ClientOrderID: client, TxnDateTime: ts,
		TxnMode: mode, Amount: amount, ReversalSvcOrderID: reversal}
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

func TestMatchPass(t *testing.T) {
	const day = "2026-11-21 10:00:0"
	for _, tt := range []struct {
		name  string
		recs  []Record
		calls []recon.Call
		want  []string // outcomes in time order
	}{
		{"matched by orderid", []Record{rec("OA", "other", day+"0", "DR", "10", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.Matched}},
		{"matched by externalRef", []Record{rec("OA", "A", day+"1", "DR", "10", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.Matched}},
		{"amount mismatch", []Record{rec("OA", "A", day+"0", "DR", "9.50", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.AmountMismatch}},
		{"call only and statement only", []Record{rec("OX", "X", day+"1", "DR", "3", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.CallOnly, recon.StatementOnly}},
		{"a CR record is never statement only", []Record{rec("RV", "X", day+"0", "CR", "3", "")}, nil, nil},
		{"duplicate debit", []Record{rec("OA1", "A", day+"0", "DR", "10", ""), rec("OA2", "A", day+"5", "DR", "10", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA1", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.DuplicateDebit, recon.DuplicateDebit}},
		{"pending", []Record{rec("OP", "P", day+"0", "DR", "7", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "P", Outcome: recon.CallPending}},
			[]string{recon.Pending}},
		{"reversed", []Record{rec("OA", "A", day+"0", "DR", "10", "RV")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.Reversed}},
		{"a failed call's record is no statement only", []Record{rec("OX", "X", day+"0", "DR", "3", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "X", Outcome: recon.CallFailed}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range runPass(t, tt.calls, tt.recs, nil).inOrder() {
				got = append(got, m.Outcome)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
		})
	}
}

func lookups(ls ...Lookup) iter.Seq2[Lookup, error] {
	return func(yield func(Lookup, error) bool) {
		for _, l := range ls {
			if !yield(l, nil) {
				return
			}
		}
	}
}

func answer(tb testing.TB, id int64, code string) Lookup {
	tb.Helper()
	b, err := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": "2026-11-21 10:00:00",
		"data": map[string]any{"transactionStatusCode": code, "orderid": "O" + code}})
	if err != nil {
		tb.Fatal(err)
	}
	return Lookup{PendingID: id, Response: b}
}

func TestResolvePending(t *testing.T) {
	got, err := resolvePending([]int64{3}, lookups(
		answer(t, 1, svcapi.StatusSuccess),
		answer(t, 2, svcapi.TxnNotFound),
		answer(t, 3, svcapi.StatusSuccess), // after a re-send: the re-send's
		answer(t, 4, svcapi.StatusPending),
		Lookup{PendingID: 5, Response: []byte("not json")},
	))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]recon.CallOutcome{1: recon.CallSuccess, 2: recon.CallFailed, 3: recon.CallFailed}
	if len(got) != len(want) {
		t.Errorf("resolvePending = %+v, want %v", got, want)
	}
	for id, o := range want {
		if got[id].state != o {
			t.Errorf("call %d resolved %q, want %q", id, got[id].state, o)
		}
	}
	boom := errors.New("boom")
	if _, err := resolvePending(nil, func(yield func(Lookup, error) bool) { yield(Lookup{}, boom) }); !errors.Is(err, boom) {
		t.Errorf("resolvePending with a failing stream: %v, want %v", err, boom)
	}
}
