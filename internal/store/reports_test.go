package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// seed runs stmts on db.
func seed(tb testing.TB, db *DB, stmts ...string) {
	tb.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(context.Background(), s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

const insertRecord = `INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, status, client_order_id,
	txn_mode, txn_charged_value, narration_value3, reversal_svc_order_id, settlement_svc_order_id, first_synced_at, last_synced_at) VALUES `

func TestReportRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		seed(t, db, `INSERT INTO recon_runs (id, period_from, period_to, as_of, started_at, finished_at, state, superseded_by, summary) VALUES
			(1, '2026-11-01', '2026-11-03', '2026-11-03', 's', 'f1', 'ok', 2, '{}'),
			(2, '2026-11-01', '2026-11-03', '2026-11-04', 's', NULL, 'ok', NULL,
			 '{"calls":9,"debited":"12.50","outcomes":{"matched":{"count":1,"amount":"12.50"}},"unsettled":{">30":{"count":2,"amount":"1.00"}}}'),
			(3, '2026-11-01', '2026-11-03', '2026-11-03', 's', NULL, 'failed', NULL, '{}'),
			(4, '2026-12-01', '2026-12-01', '2026-12-01', 's', NULL, 'ok', NULL, 'not json')`)
		run, found, err := db.ReportRun(ctx, "2026-11-01", "2026-11-03")
		if err != nil || !found {
			t.Fatalf("ReportRun = %v, %v", found, err)
		}
		s := run.Summary
		if run.ID != 2 || run.AsOf != "2026-11-04" || !run.Finished.IsZero() || s.Calls != 9 || s.Debited != "12.50" ||
			s.Outcomes[recon.Matched].Amount != "12.50" || s.Unsettled[">30"].Count != 2 {
			t.Errorf("ReportRun = %+v", run)
		}
		if by, err := db.ReportRunSupersededBy(ctx, 1); err != nil || by != 2 {
			t.Errorf("ReportRunSupersededBy(1) = %d, %v; want 2", by, err)
		}
		if by, err := db.ReportRunSupersededBy(ctx, 2); err != nil || by != 0 {
			t.Errorf("ReportRunSupersededBy(2) = %d, %v; want 0", by, err)
		}
		if _, found, err := db.ReportRun(ctx, "2026-01-01", "2026-01-02"); found || err != nil {
			t.Errorf("ReportRun(no run) = %v, %v; want not found", found, err)
		}
		if _, _, err := db.ReportRun(ctx, "2026-12-01", "2026-12-01"); err == nil {
			t.Error("ReportRun(bad summary) = nil error")
		}
	})
}

func TestReportRecordsAndDays(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		seed(t, db, insertRecord+`
			('statement', 'A', 'S2', '2026-11-02 10:00:00', '2026-11-02', 'SUCCESS', 'C2', 'CR', '1.25', 'n3', 'S1', '', 'f', 'l'),
			('statement', 'A', 'S1', '2026-11-01 10:00:00', '2026-11-01', 'SUCCESS', 'C1', 'DR', '10.10', '', '', '', 'f', 'l'),
			('statement', 'A', 'S0', '2026-10-31 10:00:00', '2026-10-31', 'SUCCESS', 'C0', 'DR', '99', '', '', '', 'f', 'l'),
			('statement', 'A', 'S3', '2026-11-01 11:00:00', '2026-11-01', 'SUCCESS', 'C3', 'DR', '0.90', '', '', '', 'f', 'l'),
			('orders', 'A', 'O1', '2026-11-01 09:00:00', '2026-11-01', 'SUCCESS', 'C9', 'DR', '5', '', '', 'SET', 'f', 'l')`)
		var ids []string
		for r, err := range db.ReportRecords(ctx, recon.Statement, "2026-11-01", "2026-11-03") {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.SvcOrderID)
			if r.SvcOrderID == "S2" && (r.Account != "A" || r.Kind != recon.Statement || r.Get(recon.FClientOrderID) != "C2" ||
				r.Get(recon.FNarrationValue3) != "n3" || r.Get(recon.FReversalSvcOrderID) != "S1" ||
				r.Get(recon.FTxnChargedValue) != "1.25" || r.Day() != "2026-11-02" || r.FirstSyncedAt != "f") {
				t.Errorf("S2 read back as %+v", r)
			}
		}
		if want := "[S1 S3 S2]"; fmt.Sprint(ids) != want {
			t.Errorf("statement records %v, want %s", ids, want)
		}
		if n, err := db.CountReportRecords(ctx, recon.Orders, "2026-11-01", "2026-11-03"); err != nil || n != 1 {
			t.Errorf("CountReportRecords(orders) = %d, %v; want 1", n, err)
		}
		for range db.ReportRecords(ctx, recon.Statement, "2026-11-01", "2026-11-03") {
			break // an early stop closes the query
		}
		days, err := db.ReportDays(ctx, "2026-11-01", "2026-11-03")
		if err != nil {
			t.Fatal(err)
		}
		if len(days) != 3 || recon.Money(days[0].Debits) != "11.00" || days[0].NDebits != 2 ||
			recon.Money(days[1].Credits) != "1.25" || days[1].NCredits != 1 || !days[2].Debits.IsZero() {
			t.Errorf("ReportDays = %+v", days)
		}
	})
}

func TestReportBreaksOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		seed(t, db, `INSERT INTO recon_runs (id, period_from, period_to, as_of, started_at, state) VALUES (1, 'a', 'b', 'b', 's', 'ok')`,
			`INSERT INTO recon_breaks (run_id, pool_account, kind, call_id, ts, expected, actual, delta) VALUES
			(1, 'P', 'explainedGap', NULL, '2026-11-01 01:00:00', '1', '2', '-1'),
			(1, 'P', 'gap', 7, '2026-11-01 02:00:00', '1', '2', '-1'),
			(1, 'P', 'arithmetic', NULL, '2026-11-01 03:00:00', '1', '2', '-1')`)
		var kinds []string
		for b, err := range db.ReportBreaks(ctx, 1) {
			if err != nil {
				t.Fatal(err)
			}
			kinds = append(kinds, b.Kind)
			if b.Kind == recon.BreakGap && b.CallID != 7 || b.Kind != recon.BreakGap && b.CallID != 0 {
				t.Errorf("break %+v: wrong call id", b)
			}
		}
		if want := "[gap arithmetic explainedGap]"; fmt.Sprint(kinds) != want {
			t.Errorf("breaks %v, want %s", kinds, want)
		}
	})
}

func TestReportBreakTotalsForExport(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		seed(t, db, `INSERT INTO recon_runs (id, period_from, period_to, as_of, started_at, state) VALUES
			(1, 'a', 'b', 'b', 's', 'ok'), (2, 'a', 'b', 'b', 's', 'ok')`,
			`INSERT INTO recon_breaks (run_id, pool_account, kind, ts, expected, actual, delta) VALUES
			(1, 'P', 'explainedGap', '2026-11-01 01:00:00', '1', '2', '-0.10'),
			(1, 'P', 'explainedGap', '2026-11-01 02:00:00', '1', '2', '-0.20'),
			(1, 'P', 'explainedGap', '2026-11-01 03:00:00', '1', '2', '2.95'),
			(1, 'P', 'gap', '2026-11-01 04:00:00', '1', '2', '10'),
			(1, 'P', 'gap', '2026-11-01 05:00:00', '1', '2', '25.50'),
			(1, 'Q', 'arithmetic', '2026-11-01 06:00:00', '1', '2', '-0.01'),
			(2, 'P', 'gap', '2026-11-01 06:00:00', '1', '2', '999')`)
		got, err := db.ReportBreakTotals(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, b := range got {
			s = append(s, fmt.Sprintf("%s/%s/%v:%d=%s", b.PoolAccount, b.Kind, b.Negative, b.Count, b.Delta.String()))
		}
		// Exact sums (0.1 + 0.2 is 0.3, not 0.30000000000000004), per pool, kind and sign.
		want := "[P/explainedGap/false:1=2.95 P/explainedGap/true:2=-0.3 P/gap/false:2=35.5 Q/arithmetic/true:1=-0.01]"
		if fmt.Sprint(s) != want {
			t.Errorf("ReportBreakTotals = %v, want %s", s, want)
		}
		if _, err := db.ExecContext(ctx, `UPDATE recon_breaks SET delta = 'x' WHERE run_id = 2`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ReportBreakTotals(ctx, 2); err == nil {
			t.Error("ReportBreakTotals(a delta that is not a number) = nil error")
		}
	})
}

func TestReportMatchesForExport(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		seed(t, db, `INSERT INTO recon_runs (id, period_from, period_to, as_of, started_at, state) VALUES (1, 'a', 'b', 'b', 's', 'ok')`,
			`INSERT INTO recon_matches (run_id, outcome, svc_order_id, external_ref, ts, suggested_pair) VALUES
			(1, 'matched', 'S1', 'R1', '2026-11-01 01:00:00', ''),
			(1, 'callOnly', '', 'R2', '2026-11-01 05:00:00', 'S9: same amount'),
			(1, 'reversed', 'S3', 'R3', '2026-11-01 00:30:00', ''),
			(1, 'statementOnly', 'S9', '', '2026-11-01 05:00:30', 'R2: same amount'),
			(1, 'pending', '', 'R4', '2026-11-01 02:00:00', ''),
			(1, 'callOnly', '', 'R5', '2026-11-01 03:00:00', '')`)
		var got []string
		for m, err := range db.ReportMatches(ctx, 1) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m.Outcome+":"+m.ExternalRef+m.SvcOrderID)
		}
		// The exceptions by time, then the matched and reversed rows by time.
		want := "[pending:R4 callOnly:R5 callOnly:R2 statementOnly:S9 reversed:R3S3 matched:R1S1]"
		if fmt.Sprint(got) != want {
			t.Errorf("ReportMatches = %v, want %s", got, want)
		}
		got = nil
		for m, err := range db.ReportSuggestedPairs(ctx, 1) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m.ExternalRef+"->"+m.SuggestedPair)
		}
		if want := "[R2->S9: same amount]"; fmt.Sprint(got) != want {
			t.Errorf("ReportSuggestedPairs = %v, want %s (the callOnly side of each pair)", got, want)
		}
	})
}
