package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestPlainMatchesReadBackAsStored: a plain match (its time and
// externalRef its call's) is stored in recon_matched with only its record
// and amount, the others in recon_matches; ReportMatches gives every row
// back as it was added, in the report's order (exceptions first, then by
// time, externalRef, svcOrderId, call), one that holds the separator of
// the joined text too; a plain match found to be a
// duplicate debit later is moved to recon_matches, as fixed.
func TestPlainMatchesReadBackAsStored(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		call := func(line int, ts, ref, op, orderID string) recon.Call {
			return recon.Call{Hash: testHash(fmt.Sprint("h", line)), Source: "a.jsonl", Line: line, TS: ts, Operation: op,
				ExternalRef: ref, OrderID: orderID, StatusCode: "TXN", Outcome: recon.CallSuccess,
				Pool: recon.PoolEntry{Account: "P", Shape: "A", Opening: "100.00", Amount: "1.50", Closing: "98.50"}}
		}
		calls := []recon.Call{
			call(1, "2026-11-21 10:00:02", "R1", "verifyPanPlusV2", "O1"),
			call(2, "2026-11-21 10:00:01", "R2", "mobilePanLookup", "O2"),
			call(3, "2026-11-21 10:00:01", "", "verifyPanPlusV2", "O3"), // no externalRef: the record's is shown
			call(4, "2026-11-21 10:00:03", "R4", "verifyPanPlusV2", "O4"),
			call(5, "2026-11-21 09:00:00", "R5", "verifyPanPlusV2", "O5"),
		}
		if _, err := db.InsertCalls(ctx, time.Now(), calls, nil); err != nil {
			t.Fatal(err)
		}
		id := map[int]int64{}
		for c, err := range db.CheckCalls(ctx, ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}) {
			if err != nil {
				t.Fatal(err)
			}
			id[map[string]int{"O1": 1, "O2": 2, "O3": 3, "O4": 4, "O5": 5}[c.OrderID]] = c.ID
		}
		plain := func(n int, ts, ref, op, svc string) ledger.Match {
			return ledger.Match{Outcome: recon.Matched, CallID: id[n], SvcOrderID: svc, ExternalRef: ref, Operation: op, TS: ts,
				CallAmount: "1.50", StatementAmount: "1.50", CallsOwn: true}
		}
		added := []ledger.Match{
			plain(1, "2026-11-21 10:00:02", "R1", "verifyPanPlusV2", "S"+unitSep+"1"), // read again by its key
			plain(2, "2026-11-21 10:00:01", "R2", "mobilePanLookup", "S2"),
			{Outcome: recon.Matched, CallID: id[3], SvcOrderID: "S3", ExternalRef: "C3", Operation: "verifyPanPlusV2",
				TS: "2026-11-21 10:00:01", CallAmount: "1.50", StatementAmount: "1.50"}, // externalRef not the call's
			plain(4, "2026-11-21 10:00:03", "R4", "verifyPanPlusV2", "S4"),
			{Outcome: recon.AmountMismatch, CallID: id[5], SvcOrderID: "S5", ExternalRef: "R5", Operation: "verifyPanPlusV2",
				TS: "2026-11-21 09:00:00", CallAmount: "1.50", StatementAmount: "2.00", Delta: "-0.50", Note: "call amount ≠ txnChargedValue"},
			{Outcome: recon.StatementOnly, SvcOrderID: "S6", ExternalRef: "R6", TS: "2026-11-21 08:00:00", StatementAmount: "3.00",
				Note: "no call logged for this debit"},
		}
		w, err := db.BeginCheckRun(ctx, testRun)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range added {
			w.Match(m)
		}
		var old []ledger.Match
		err = w.RewriteMatches([]string{"R4"}, func(m ledger.Match) (ledger.Match, bool) {
			old = append(old, m)
			m.Outcome, m.Note = recon.DuplicateDebit, "externalRef debited more than once"
			return m, true
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(old) != 1 || old[0] != added[3] {
			t.Errorf("RewriteMatches(R4) offered %+v, want the plain match as it was added: %+v", old, added[3])
		}
		if err := w.Commit([]byte(`{}`), time.Now); err != nil {
			t.Fatal(err)
		}
		var inMatched int
		if err := db.QueryRow(`SELECT count(*) FROM recon_matched WHERE run_id = ?`, w.ID()).Scan(&inMatched); err != nil || inMatched != 2 {
			t.Errorf("recon_matched holds %d rows, %v; want the 2 plain matches not moved", inMatched, err)
		}
		text := func(m ledger.Match) string {
			return strings.Join([]string{m.Outcome, m.TS, m.Operation, m.ExternalRef, m.OrderID, m.StatusCode, m.SvcOrderID,
				m.CallAmount, m.StatementAmount, m.Delta, m.Note, m.SuggestedPair, fmt.Sprint(m.CallID)}, "|")
		}
		var got []string
		for m, err := range db.ReportMatches(ctx, w.ID()) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, text(*m))
		}
		want := []string{
			"statementOnly|2026-11-21 08:00:00||R6|||S6||3.00||no call logged for this debit||0",
			"amountMismatch|2026-11-21 09:00:00|verifyPanPlusV2|R5|O5|TXN|S5|1.50|2.00|-0.50|call amount ≠ txnChargedValue||" + fmt.Sprint(id[5]),
			"duplicateDebit|2026-11-21 10:00:03|verifyPanPlusV2|R4|O4|TXN|S4|1.50|1.50||externalRef debited more than once||" + fmt.Sprint(id[4]),
			"matched|2026-11-21 10:00:01|verifyPanPlusV2|C3|O3|TXN|S3|1.50|1.50||||" + fmt.Sprint(id[3]),
			"matched|2026-11-21 10:00:01|mobilePanLookup|R2|O2|TXN|S2|1.50|1.50||||" + fmt.Sprint(id[2]),
			"matched|2026-11-21 10:00:02|verifyPanPlusV2|R1|O1|TXN|S" + unitSep + "1|1.50|1.50||||" + fmt.Sprint(id[1]),
		}
		if !slices.Equal(got, want) {
			t.Errorf("ReportMatches:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
