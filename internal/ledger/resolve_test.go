package ledger

import (
	"encoding/json"
	"errors"
	"iter"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func lookupsOf(ls ...Lookup) iter.Seq2[Lookup, error] {
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
	got, err := resolvePending([]int64{3}, lookupsOf(
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
