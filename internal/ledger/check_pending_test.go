package ledger_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// addLookup stores a txnStatus call answering code (with a pool when
// amount is not empty) for ref.
func addLookup(tb testing.TB, db interface {
	Write(context.Context, func(*sql.Tx) error) error
}, ts, ref, code, orderID, opening, amount, closing string) {
	tb.Helper()
	data := map[string]any{"externalRef": ref, "transactionStatusCode": code, "orderid": orderID}
	if amount != "" {
		data["pool"] = poolA(opening, amount, closing)
	}
	resp, _ := json.Marshal(map[string]any{"statuscode": "TXN", "status": "ok", "timestamp": ts, "data": data})
	err := db.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO calls (line_hash, source, ts, operation, external_ref, outcome, response, imported_at)
			VALUES (?,?,?,?,?,?,?,?)`, fmt.Sprintf("h%d", callSeq.Add(1)), "test", ts, svcapi.OpTxnStatus, ref, recon.CallSuccess, string(resp), "now")
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func TestPendingCallsResolvedByLaterCalls(t *testing.T) {
	const day, acct = "2026-11-21", "0409000123456"
	t.Run("looked up executed: the look-up's debit closes the chain", func(t *testing.T) {
		db := openDB(t)
		addCalls(t, db,
			tcall{ts: day + " 10:00:00", ref: "A", acct: acct, orderID: "O1", opening: "100", amount: "10", closing: "90"},
			tcall{ts: day + " 10:00:05", ref: "B", outcome: recon.CallPending},
			tcall{ts: day + " 10:00:10", ref: "C", acct: acct, orderID: "O3", opening: "85", amount: "5", closing: "80"})
		addRecords(t, db,
			trec{svc: "O1", client: "A", ts: day + " 10:00:00", amount: "10"},
			trec{svc: "O2", client: "B", ts: day + " 10:00:05", amount: "5"},
			trec{svc: "O3", client: "C", ts: day + " 10:00:10", amount: "5"})
		addLookup(t, db, day+" 10:05:00", "B", "TXN", "O2", "90", "5", "85")
		rep := check(t, db, day, day, "")
		if len(rep.Breaks) != 0 || rep.Summary.CallsPending != 0 {
			t.Errorf("breaks %+v, pending %d; want none: the look-up resolved the pending call", rep.Breaks, rep.Summary.CallsPending)
		}
		if got := storedMatches(t, db, rep.RunID); !mapsEqual(got, map[string]int{recon.Matched: 3}) {
			t.Errorf("matches = %v, want 3 matched", got)
		}
	})
	t.Run("looked up not executed, then re-sent: one debit, no pending", func(t *testing.T) {
		db := openDB(t)
		addCalls(t, db,
			tcall{ts: day + " 10:00:00", ref: "A", acct: acct, orderID: "O1", opening: "100", amount: "10", closing: "90"},
			tcall{ts: day + " 10:00:05", ref: "B", outcome: recon.CallPending},
			tcall{ts: day + " 10:02:00", ref: "B", acct: acct, orderID: "O2", opening: "90", amount: "5", closing: "85"})
		addRecords(t, db,
			trec{svc: "O1", client: "A", ts: day + " 10:00:00", amount: "10"},
			trec{svc: "O2", client: "B", ts: day + " 10:02:00", amount: "5"})
		addLookup(t, db, day+" 10:01:00", "B", svcapi.TxnNotFound, "", "", "", "")
		addLookup(t, db, day+" 10:03:00", "B", "TXN", "O2", "90", "5", "85") // finds the re-send
		rep := check(t, db, day, day, "")
		if len(rep.Breaks) != 0 || rep.Summary.CallsPending != 0 || rep.Summary.CallsFailed != 1 {
			t.Errorf("breaks %+v, pending %d, failed %d; want no breaks, none pending, the first attempt failed",
				rep.Breaks, rep.Summary.CallsPending, rep.Summary.CallsFailed)
		}
		if got := storedMatches(t, db, rep.RunID); !mapsEqual(got, map[string]int{recon.Matched: 2}) {
			t.Errorf("matches = %v, want 2 matched (no duplicate debit for B)", got)
		}
	})
	t.Run("still under process: stays pending", func(t *testing.T) {
		db := openDB(t)
		addCalls(t, db, tcall{ts: day + " 10:00:05", ref: "B", outcome: recon.CallPending})
		addLookup(t, db, day+" 10:05:00", "B", "TUP", "", "", "", "")
		rep := check(t, db, day, day, "")
		if rep.Summary.CallsPending != 1 {
			t.Errorf("pending = %d, want 1", rep.Summary.CallsPending)
		}
	})
}
