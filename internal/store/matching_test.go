package store

import (
	"context"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestMatchingQueries: on each backend, what the timing stage and the
// timing exceptions ask (a record after the window, a call before it, a
// record or a call arriving by key, read-only calls and credits aside),
// the status the differences stage reads, and the differences and a
// group's row a run stores, read back.
func TestMatchingQueries(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		w := ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59", Skip: []string{"txnStatus"}}
		edges := func(want ledger.Edges) {
			t.Helper()
			if got, err := db.CheckEdges(ctx, w); err != nil || got != want {
				t.Errorf("CheckEdges = %+v, %v; want %+v", got, err, want)
			}
		}
		edges(ledger.Edges{})
		rec := func(svc, client, ts, mode, status string) {
			r := testRecord(svc, ts, "1.50")
			r.Values[recon.FClientOrderID], r.Values[recon.FTxnMode], r.Values[recon.FStatus] = client, mode, status
			if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: []recon.Record{r}}}); err != nil {
				t.Fatal(err)
			}
		}
		call := func(hash, ts, op, ref, order, shape string) {
			if _, err := db.ExecContext(ctx, `INSERT INTO calls (line_hash, source, ts, operation, external_ref, orderid, outcome,
				pool_shape, imported_at) VALUES (?, '-', ?, ?, ?, ?, 'success', ?, 'x')`, hash, ts, op, ref, order, shape); err != nil {
				t.Fatal(err)
			}
		}
		rec("S1", "R1", "2026-11-21 10:00:00", "DR", "FAILED")
		call("h0", "2026-11-20 23:59:00", "txnStatus", "R0", "", "") // read-only: not a call of the day before
		edges(ledger.Edges{})
		rec("S2", "R2", "2026-11-22 00:06:10", "DR", "SUCCESS")
		call("h1", "2026-11-20 23:59:30", "litigation", "R9", "S9", "A")
		edges(ledger.Edges{RecordsAfter: true, CallsBefore: true})

		for rec, err := range db.CheckStatement(ctx, w) {
			if err != nil || rec.Status != "FAILED" {
				t.Errorf("CheckStatement = %+v, %v; want the record's status FAILED", rec, err)
			}
		}
		rec("S3", "R3", "2026-11-22 08:00:00", "CR", "SUCCESS")
		for _, tc := range []struct {
			order, ref string
			want       bool
		}{{"S2", "", true}, {"", "R2", true}, {"S3", "", false}, {"", "R3", false}, {"", "R7", false}} {
			if got, err := db.EvidenceRecordArrived(ctx, tc.order, tc.ref); err != nil || got != tc.want {
				t.Errorf("EvidenceRecordArrived(%q, %q) = %v, %v; want %v", tc.order, tc.ref, got, err, tc.want)
			}
		}
		call("h2", "2026-11-21 09:00:00", "litigation", "R1", "", "A") // S1's call, by its clientOrderId
		call("h3", "2026-11-21 09:00:00", "txnStatus", "R2", "", "")   // a look-up: no call of S2
		rec("S4", "R4", "2026-11-21 00:01:00", "DR", "SUCCESS")        // no call at all
		for svc, want := range map[string]bool{"S1": true, "S9": true, "S2": false, "S4": false} {
			if got, err := db.EvidenceCallArrived(ctx, svc); err != nil || got != want {
				t.Errorf("EvidenceCallArrived(%s) = %v, %v; want %v", svc, got, err, want)
			}
		}

		id := storeRun(t, db, testRun, func(rw ledger.RunWriter) {
			rw.Difference(ledger.Difference{CallID: 2, SvcOrderID: "S1", ExternalRef: "R1", Operation: "litigation",
				TS: "2026-11-21 09:00:00", Field: recon.DiffStatus, CallValue: "TXN", StatementValue: "FAILED", Note: "n"})
			rw.Difference(ledger.Difference{CallID: 2, SvcOrderID: "S1", ExternalRef: "R1", Operation: "litigation",
				TS: "2026-11-21 09:00:00", Field: recon.DiffAmount, CallValue: "1.60", StatementValue: "1.50", Difference: "0.10"})
			rw.Match(ledger.Match{Outcome: recon.Matched, SvcOrderID: "S2", ExternalRef: "R1", TS: "2026-11-21 09:00:01",
				StatementAmount: "0.10", Group: "G-R1", Note: "group G-R1: part"})
		})
		var group string
		if err := db.QueryRowContext(ctx, `SELECT group_id FROM recon_matches WHERE run_id = ? AND svc_order_id = 'S2'`, id).Scan(&group); err != nil || group != "G-R1" {
			t.Errorf("group_id = %q, %v; want G-R1", group, err)
		}
		var got []string
		for d, err := range db.ReportDifferences(ctx, id) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, d.Field+" "+d.CallValue+" "+d.StatementValue+" "+d.Difference)
		}
		if len(got) != 2 || got[0] != "amount 1.60 1.50 0.10" || got[1] != "status TXN FAILED " {
			t.Errorf("ReportDifferences = %q, want amount, then status", got)
		}
	})
}
