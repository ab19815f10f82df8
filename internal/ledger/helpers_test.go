package ledger_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func openDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "ledger.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// tcall is a calls row for tests that bypass the import.
type tcall struct {
	ts, op, ref, orderID, outcome string
	acct, shape                   string
	opening, amount, closing      string
}

var callSeq atomic.Int64

func addCalls(tb testing.TB, db *store.DB, calls ...tcall) []int64 {
	tb.Helper()
	var ids []int64
	err := db.Write(context.Background(), func(tx *sql.Tx) error {
		for _, c := range calls {
			if c.outcome == "" {
				c.outcome = recon.CallSuccess
			}
			if c.op == "" {
				c.op = svcapi.OpVerifyPanPlusV2
			}
			if c.shape == "" && c.amount != "" {
				c.shape = "A"
			}
			res, err := tx.Exec(`INSERT INTO calls (line_hash, source, ts, operation, external_ref, orderid, outcome,
				pool_account, pool_shape, pool_opening, pool_amount, pool_closing, imported_at)
				VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, fmt.Sprintf("h%d", callSeq.Add(1)), "test", c.ts, c.op, c.ref,
				c.orderID, c.outcome, c.acct, c.shape, c.opening, c.amount, c.closing, "now")
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			ids = append(ids, id)
		}
		// The pool accounts by day, as the store's InsertCalls keeps them
		// (the check reads them there).
		_, err := tx.Exec(`INSERT OR IGNORE INTO call_accounts (account, day)
			SELECT DISTINCT pool_account, substr(ts, 1, 10) FROM calls WHERE pool_account <> '' AND pool_shape <> ''`)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ids
}

// trec is a records row.
type trec struct {
	kind, svc, client, ts, mode, amount, reversal, settlement, product string
}

func addRecords(tb testing.TB, db *store.DB, recs ...trec) {
	tb.Helper()
	err := db.Write(context.Background(), func(tx *sql.Tx) error {
		for _, r := range recs {
			if r.kind == "" {
				r.kind = "statement"
			}
			if r.mode == "" {
				r.mode = "DR"
			}
			_, err := tx.Exec(`INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, client_order_id,
				txn_mode, txn_charged_value, reversal_svc_order_id, settlement_svc_order_id, product_code, first_synced_at, last_synced_at)
				VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, r.kind, "0409000123456", r.svc, r.ts, r.ts[:10], r.client, r.mode,
				r.amount, r.reversal, r.settlement, r.product, "now", "now")
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func date(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.ParseInLocation(time.DateOnly, s, recon.IST)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func check(tb testing.TB, db *store.DB, from, to, asOf string) *ledger.Report {
	tb.Helper()
	o := ledger.CheckOptions{From: date(tb, from), To: date(tb, to),
		Now: func() time.Time { return time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC) }}
	if asOf != "" {
		o.AsOf = date(tb, asOf)
	}
	rep, err := ledger.Check(context.Background(), db, o)
	if err != nil {
		tb.Fatalf("Check: %v", err)
	}
	return rep
}

// storedMatches returns outcome counts of the run's matching rows
// (recon_matches, and recon_matched for its plain matches).
func storedMatches(tb testing.TB, db *store.DB, run int64) map[string]int {
	tb.Helper()
	rows, err := db.Query(`SELECT outcome, count(*) FROM (`+matchRowsSQL+`) GROUP BY outcome`, run, run)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var o string
		var n int
		if err := rows.Scan(&o, &n); err != nil {
			tb.Fatal(err)
		}
		out[o] = n
	}
	return out
}

// line builds a call-log line of op with a success envelope holding data.
func line(op, ref, ts, orderID string, data map[string]any) string {
	o, _ := svcapi.Lookup(op)
	env := map[string]any{"statuscode": "TXN", "actcode": nil, "status": "Transaction Successful",
		"timestamp": ts, "svc_uuid": "uuid-" + ref, "orderid": orderID, "environment": "SANDBOX"}
	if data != nil {
		env["data"] = data
	}
	rec := map[string]any{"at": "2026-11-21T10:15:02.123+05:30", "operation": op, "method": "POST", "path": o.Path,
		"externalRef": ref, "request": map[string]any{"externalRef": ref}, "httpStatus": 200, "latencyMs": 12,
		"response": env, "error": ""}
	b, _ := json.Marshal(rec)
	return string(b)
}

func poolA(opening, amount, closing any) map[string]any {
	return map[string]any{"account": "0409000123456", "openingBal": opening, "mode": "DR", "amount": amount, "closingBal": closing}
}

func poolB(opening, amount, closing any) map[string]any {
	return map[string]any{"referenceId": "R1", "openingBalance": opening, "mode": "DR", "paymentAmount": amount, "closingBalance": closing}
}

// matchRowsSQL is a run's matching rows (run id twice), whichever table
// holds them: outcome, call_id (NULL: none), svc_order_id, external_ref,
// operation, ts, call_amount, statement_amount, delta, note,
// suggested_pair.
const matchRowsSQL = `SELECT outcome, call_id, svc_order_id, external_ref, operation, ts, call_amount, statement_amount,
		delta, note, suggested_pair FROM recon_matches WHERE run_id = ?
	UNION ALL
	SELECT 'matched', d.call_id, d.svc_order_id, c.external_ref, c.operation, c.ts, d.amount, d.amount,
		'', '', '' FROM recon_matched d JOIN calls c ON c.id = d.call_id WHERE d.run_id = ?`

// matchLines lists a run's matching rows by time and svcOrderId, each as
// "outcome callID svcOrderId: <col>", col one column of matchRowsSQL.
func matchLines(tb testing.TB, db *store.DB, run int64, col string) []string {
	tb.Helper()
	rows, err := db.Query(`SELECT outcome, COALESCE(call_id, 0), svc_order_id, `+col+` FROM (`+matchRowsSQL+`)
		ORDER BY ts, svc_order_id`, run, run)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var outcome, svc, v string
		var call int64
		if err := rows.Scan(&outcome, &call, &svc, &v); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %s: %s", outcome, call, svc, v))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
