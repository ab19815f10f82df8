package store

import (
	"context"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestFees: the fees stage reads the window's debits only (credits and
// other days left out) with their amounts; its findings are stored with
// the run, read back for the export in order (debits by time, then the
// unpriced products) and as evidence's findings; a later run of the same
// period replaces them.
func TestFees(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		rec := func(id, ts, mode, amount string) recon.Record {
			r := testRecord(id, ts, amount)
			r.Values[recon.FTxnMode], r.Values[recon.FProductCode], r.Values[recon.FSubProductCode] = mode, "IDV", "MOBPAN"
			r.Values[recon.FOrderValue], r.Values[recon.FTxnSurcharge] = amount, "0.00"
			r.Values[recon.FTxnCashback], r.Values[recon.FTxnTds] = "1.00", "0.05"
			return r
		}
		reversed := rec("S2", "2026-11-21 11:00:00", "DR", "4.54")
		reversed.Values[recon.FReversalSvcOrderID] = "S3"
		recs := []recon.Record{rec("S1", "2026-11-21 10:00:00", "DR", "3.54"), reversed,
			rec("S3", "2026-11-21 12:00:00", "CR", "4.54"), rec("S4", "2026-11-22 10:00:00", "DR", "3.54")}
		if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: recs}}); err != nil {
			t.Fatal(err)
		}
		var got []ledger.Debit
		for d, err := range db.CheckDebits(ctx, ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, d)
		}
		want := []ledger.Debit{
			{SvcOrderID: "S1", TxnDateTime: "2026-11-21 10:00:00", ProductCode: "IDV", SubProductCode: "MOBPAN", Charged: "3.54",
				OrderValue: "3.54", Surcharge: "0.00", Cashback: "1.00", TDS: "0.05"},
			{SvcOrderID: "S2", TxnDateTime: "2026-11-21 11:00:00", ProductCode: "IDV", SubProductCode: "MOBPAN", Charged: "4.54",
				OrderValue: "4.54", Surcharge: "0.00", Cashback: "1.00", TDS: "0.05", Reversed: true},
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("CheckDebits =\n%+v\nwant\n%+v", got, want)
		}

		over := ledger.Fee{Kind: recon.Overcharged, SvcOrderID: "S2", TxnDateTime: "2026-11-21 11:00:00", ProductCode: "IDV",
			SubProductCode: "MOBPAN", Field: "txnChargedValue", Expected: "3.54", Charged: "4.54", Difference: "1.00",
			Rule: "IDV/MOBPAN: charge 3.54", Debits: 1, Reversed: true}
		cash := over
		cash.Field, cash.Expected, cash.Charged, cash.Difference, cash.Reversed = "txnCashback", "2.00", "1.00", "-1.00", false
		unpriced := ledger.Fee{Kind: recon.Unpriced, TxnDateTime: "2026-11-21 09:00:00", ProductCode: "KYB", Charged: "23.60",
			Rule: "no price for KYB", Debits: 2}
		id := storeRun(t, db, testRun, func(w ledger.RunWriter) {
			w.Fee(unpriced)
			w.Fee(cash)
			w.Fee(over)
		})
		var back []ledger.Fee
		for f, err := range db.ReportFees(ctx, id) {
			if err != nil {
				t.Fatal(err)
			}
			back = append(back, *f)
		}
		if len(back) != 3 || back[0] != cash || back[1] != over || back[2] != unpriced {
			t.Errorf("ReportFees =\n%+v\nwant the cashback's, the charge's, then the unpriced product", back)
		}
		var keys []string
		for f, err := range db.EvidenceFindings(ctx, id) {
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, f.Kind+" "+f.Key()+" "+f.Amount.String())
		}
		wantKeys := []string{"unpriced KYB 23.6", "overcharged S2/txnCashback -1", "overcharged S2 1"}
		if len(keys) != 3 || keys[0] != wantKeys[0] || keys[1] != wantKeys[1] || keys[2] != wantKeys[2] {
			t.Errorf("EvidenceFindings = %q, want %q", keys, wantKeys)
		}
		again := storeRun(t, db, testRun, func(ledger.RunWriter) {})
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM recon_fees`).Scan(&n); err != nil || n != 0 {
			t.Errorf("recon_fees after run %d replaced run %d: %d rows (%v), want none", again, id, n, err)
		}
	})
}
