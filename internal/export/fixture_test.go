package export

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// The fixture's period.
var (
	fixFrom = time.Date(2026, 11, 1, 0, 0, 0, 0, recon.IST)
	fixTo   = time.Date(2026, 11, 3, 0, 0, 0, 0, recon.IST)
)

const fixSummary = `{"from":"2026-11-01","to":"2026-11-03","asOf":"2026-11-03",
 "pools":[{"account":"0409000123456","opening":"1000000.00","closing":"998796.68","calls":7,"debited":"1234.57"}],
 "calls":9,"callsWithDebit":7,"callsFailed":1,"callsPending":1,"debited":"1234.57","credited":"25.25",
 "outcomes":{"matched":{"count":1,"amount":"100.00"},"amountMismatch":{"count":1,"amount":"51.00"},
  "callOnly":{"count":1,"amount":"10.00"},"statementOnly":{"count":1,"amount":"0.10"},
  "duplicateDebit":{"count":2,"amount":"40.00"},"pending":{"count":1,"amount":"5.00"},
  "reversed":{"count":1,"amount":"1234567.89"}},
 "breaks":{"arithmetic":{"count":1,"delta":"-1.00"},"gap":{"count":1,"delta":"-5.00"},"explainedGap":{"count":1,"delta":"-25.25"}},
 "reversals":{"count":2,"amount":"1234577.89","unlinked":1},
 "unsettled":{"0-1":{"count":1,"amount":"300.00"},"2-3":{"count":1,"amount":"200.00"},"4-7":{"count":0,"amount":"0"},
  "8-30":{"count":1,"amount":"1.00"},">30":{"count":0,"amount":"0"}},
 "pending":{"count":1,"amount":"5.00"},"suggestedPairs":1}`

// fixtureDB builds a database with records, calls, a superseded run, the
// current run (id 2) with result rows, and a failed newer run.
func fixtureDB(tb testing.TB) *store.DB {
	tb.Helper()
	synced := "2026-11-04T01:02:03.000Z"
	return testDB(tb,
		// statement records: S0 is before the period.
		rec("statement", "S0", "2026-10-31 23:59:59", "DR", "9.99", "", "", "", ""),
		rec("statement", "S1", "2026-11-01 10:00:00", "DR", "100.00", "R1", "card 4111111111111111 paid", "", "1000000.00"),
		rec("statement", "S2", "2026-11-01 11:00:00", "DR", "50.50", "R2", "rrn 987654321090", "", "XXXXXX.XX"),
		rec("statement", "S3", "2026-11-02 09:30:00", "CR", "25.25", "", "reversal of S4", "", ""),
		rec("statement", "S4", "2026-11-02 12:00:00", "DR", "1234567.89", "R4", "", "S3", ""),
		rec("statement", "S5", "2026-11-03 23:59:59", "DR", "0.10", "R5", `aadhaar 234567890124, "quoted" ₹ café`, "", ""),
		// collect orders: O0 is before the period.
		rec("orders", "O0", "2026-10-20 08:00:00", "DR", "1.00", "C0", "", "", ""),
		rec("orders", "O1", "2026-11-01 08:00:00", "DR", "200.00", "C1", "", "", ""),
		rec("orders", "O2", "2026-11-02 08:00:00", "DR", "300.00", "C2", "", "", ""),
		rec("orders", "O3", "2026-11-02 09:00:00", "DR", "400.00", "C3", "", "", ""),
		`UPDATE records SET settlement_svc_order_id = 'SET3' WHERE svc_order_id = 'O3'`,
		`INSERT INTO calls (id, line_hash, source, ts, operation, external_ref, orderid, statuscode, outcome,
			pool_shape, pool_opening, pool_amount, pool_closing, request, imported_at) VALUES
			(1, 'h1', 'calls.jsonl', '2026-11-01 10:00:00', 'verifyPanPlusV2', 'R1', 'S1', 'TXN', 'success', 'A', '1000000.00', '100.00', '999900.00', '{"secret":"hunter2"}', '`+synced+`'),
			(2, 'h2', 'calls.jsonl', '2026-11-01 11:00:00', 'verifyPanPlusV2', 'R2', 'S2', 'TXN', 'success', 'A', '999900.00', '51.00', '999850.00', '{}', '`+synced+`'),
			(3, 'h3', 'calls.jsonl', '2026-11-02 13:00:00', 'mobileLookup', 'R9', '', 'TUP', 'pending', '', '', '', '', '{}', '`+synced+`'),
			(4, 'h4', 'calls.jsonl', '2026-11-03 09:00:00', 'verifyPanPlusV2', 'R8', 'X8', 'TXN', 'success', 'A', '999850.00', '10.00', '999840.00', '{}', '`+synced+`')`,
		`INSERT INTO recon_runs (id, period_from, period_to, as_of, started_at, finished_at, state, superseded_by, summary) VALUES
			(1, '2026-11-01', '2026-11-03', '2026-11-03', '2026-11-04T00:00:00.000Z', '2026-11-04T00:01:00.000Z', 'ok', 2, '{}'),
			(2, '2026-11-01', '2026-11-03', '2026-11-03', '2026-11-04T01:00:00.000Z', '2026-11-04T01:00:30.000Z', 'ok', NULL, '`+fixSummary+`'),
			(3, '2026-11-01', '2026-11-03', '2026-11-03', '2026-11-04T02:00:00.000Z', NULL, 'failed', NULL, '{}'),
			(4, '2026-11-02', '2026-11-03', '2026-11-03', '2026-11-04T02:00:00.000Z', '2026-11-04T02:00:01.000Z', 'ok', NULL, '{}')`,
		`INSERT INTO recon_breaks (run_id, pool_account, kind, call_id, prev_call_id, ts, external_ref, expected, actual, delta, explained_by, note) VALUES
			(1, '0409000123456', 'gap', 2, 1, '2026-11-01 11:00:00', 'R2', '1', '2', '-1', '', 'superseded: never exported'),
			(2, '0409000123456', 'arithmetic', 2, NULL, '2026-11-01 11:00:00', 'R2', '999849.00', '999850.00', '-1.00', '', char(13) || 'carriage return'),
			(2, '0409000123456', 'gap', 2, 1, '2026-11-01 11:00:00', 'R2', '999900.00', '999905.00', '-5.00', '', '-5.00 short'),
			(2, '0409000123456', 'explainedGap', 3, 2, '2026-11-02 13:00:00', 'R9', '999850.00', '999875.25', '-25.25', 'S3', char(9) || 'tab')`,
		`INSERT INTO recon_matches (run_id, outcome, call_id, svc_order_id, external_ref, operation, ts, call_amount, statement_amount, delta, note, suggested_pair, group_id) VALUES
			(2, 'matched', 1, 'S1', 'R1', 'verifyPanPlusV2', '2026-11-01 10:00:00', '100.00', '100.00', '0', 'group G-R1: the whole', '', 'G-R1'),
			(2, 'amountMismatch', 2, 'S2', 'R2', 'verifyPanPlusV2', '2026-11-01 11:00:00', '51.00', '50.50', '0.50', '-2.50', '', ''),
			(2, 'statementOnly', NULL, 'S5', '@SUM(1+1)', '', '2026-11-03 23:59:59', '', '0.10', '', '', '', ''),
			(2, 'duplicateDebit', NULL, 'D1', 'R7', '', '2026-11-02 10:00:00', '', '20.00', '', '=HYPERLINK("http://evil.example","click")', '', ''),
			(2, 'duplicateDebit', NULL, 'D2', 'R7', '', '2026-11-02 10:00:05', '', '20.00', '', '+cmd|'' /C calc''!A0', '', ''),
			(2, 'pending', 3, '', 'R9', 'mobileLookup', '2026-11-02 13:00:00', '5.00', '', '', 'TUP', '', ''),
			(2, 'reversed', NULL, 'S4', 'R4', '', '2026-11-02 12:00:00', '', '1234567.89', '', '', '', ''),
			(2, 'callOnly', 4, '', 'R8', 'verifyPanPlusV2', '2026-11-03 09:00:00', '10.00', '', '10.00', '', 'statement record S5 — rule: same amount, 45s apart, product agrees', '')`,
		`INSERT INTO recon_differences (run_id, call_id, svc_order_id, external_ref, operation, ts, field, call_value, statement_value,
			difference, note) VALUES
			(2, 2, 'S2', 'R2', 'verifyPanPlusV2', '2026-11-01 11:00:00', 'amount', '51.00', '50.50', '0.50', 'call amount ≠ txnChargedValue'),
			(2, 2, 'S2', 'R2', 'verifyPanPlusV2', '2026-11-01 11:00:00', 'status', 'TXN', '-FAILED', '', 'the statement''s status is -FAILED')`,
		`INSERT INTO recon_reversals (run_id, svc_order_id, reversal_svc_order_id, txn_date_time, amount, reversal_found, reversal_txn_date_time, reversal_amount, note) VALUES
			(2, 'S4', 'S3', '2026-11-02 12:00:00', '1234567.89', 1, '2026-11-02 09:30:00', '25.25', ''),
			(2, 'S6', 'S99', '2026-11-02 14:00:00', '10.00', 0, '', '', 'reversal record not synced')`,
		`INSERT INTO recon_unsettled (run_id, svc_order_id, client_order_id, txn_date_time, amount, age_days, age_bucket) VALUES
			(2, 'O1', 'C1', '2026-11-01 08:00:00', '200.00', 2, '2-3'),
			(2, 'O2', 'C2', '2026-11-02 08:00:00', '300.00', 1, '0-1'),
			(2, 'O0', 'C0', '2026-10-20 08:00:00', '1.00', 14, '8-30')`,
	)
}

// testDB opens a fresh database in tb.TempDir() and runs stmts in one
// transaction.
func testDB(tb testing.TB, stmts ...string) *store.DB {
	tb.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(tb.TempDir(), "svcrecon.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	err = db.Write(ctx, func(tx *sql.Tx) error {
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

func rec(kind, id, at, mode, amount, clientOrder, narration, reversal, closing string) string {
	q := func(s string) string {
		out := "'"
		for _, r := range s {
			if r == '\'' {
				out += "''"
			} else {
				out += string(r)
			}
		}
		return out + "'"
	}
	return fmt.Sprintf(`INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, status,
		client_order_id, product_code, txn_mode, txn_charged_value, order_value, narration_value0,
		reversal_svc_order_id, closing_balance, first_synced_at, last_synced_at)
		VALUES (%s, '0409000123456', %s, %s, %s, 'SUCCESS', %s, 'PAN', %s, %s, %s, %s, %s, %s,
		'2026-11-04T01:02:03.000Z', '2026-11-04T01:02:03.000Z')`,
		q(kind), q(id), q(at), q(at[:10]), q(clientOrder), q(mode), q(amount), q(amount), q(narration), q(reversal), q(closing))
}

// withEvidence records the evidence of the fixture's current run (2), its
// period complete: each day walked, the call logs declared complete.
func withEvidence(tb testing.TB, db *store.DB) {
	tb.Helper()
	ctx := context.Background()
	for _, d := range []string{"2026-11-01", "2026-11-02", "2026-11-03"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO sync_windows (kind, account, day, state, updated_at)
			VALUES ('statement', '0409000123456', ?, 'done', 'x')`, d); err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.DeclareCoverage(ctx, "2026-11-03", fixNow, "test"); err != nil {
		tb.Fatal(err)
	}
	if _, err := evidence.Record(ctx, db, evidence.Check{RunID: 2, Findings: "Not reconciled: whatever",
		Now: func() time.Time { return fixNow }, Version: "svcrecon test"}); err != nil {
		tb.Fatal(err)
	}
}

// fixNow is when the fixture's evidence was recorded.
var fixNow = time.Date(2026, 11, 4, 6, 31, 0, 0, recon.IST)
