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
