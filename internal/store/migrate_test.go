package store

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// TestUpgradeKeepsCallsAndRecords: a database made before issue 15's
// migrations (0100, 0101 rebuild calls and records) keeps every call with
// its id (results refer to calls by id) and every record; a call stored
// afterwards gets a new id above them, and a line imported before is still
// a duplicate. The pool accounts its calls name are known to the check
// by day (0140's call_accounts), those of calls stored afterwards too.
func TestUpgradeKeepsCallsAndRecords(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			var dsn string
			var raw *sql.DB
			if backend == "sqlite" {
				dsn = filepath.Join(t.TempDir(), "old.db")
				var err error
				if raw, err = sql.Open("sqlite", dsn); err != nil {
					t.Fatal(err)
				}
			} else {
				dsn = pgtest.NewDatabase(t)
				var err error
				if raw, _, err = openPostgres(ctx, dsn, 2); err != nil {
					t.Fatal(err)
				}
			}
			d := dialect(sqliteDialect{})
			if backend == "postgres" {
				d = postgresDialect{}
			}
			names, _ := migrationNames(d)
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := raw.ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%.60s: %v", q, err)
				}
			}
			exec(`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`)
			for _, n := range names {
				if n >= "0100" {
					break
				}
				body, _ := fs.ReadFile(d.migrations(), n)
				exec(string(body))
				exec(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, 'then')`, n)
			}
			exec(`INSERT INTO calls (id, line_hash, source, ts, operation, external_ref, orderid, outcome, pool_shape,
				pool_opening, pool_amount, pool_closing, request, response, imported_at) VALUES
				(7, 'h7', 'old.jsonl', '2026-11-21 10:00:00', 'verifyPanPlusV2', 'R7', 'S7', 'success', 'A', '100.00', '1.00', '99.00', '{}', '{"statuscode":"TXN"}', 'then'),
				(40, 'h40', 'old.jsonl', '2026-11-21 10:00:01', 'verifyPanPlusV2', 'R40', 'S40', 'success', 'A', '99.00', '1.00', '98.00', NULL, NULL, 'then')`)
			exec(`UPDATE calls SET pool_account = 'P1' WHERE id = 7`)
			exec(`INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, txn_mode, txn_charged_value,
				first_synced_at, last_synced_at) VALUES ('statement', 'A1', 'S7', '2026-11-21 10:00:00', '2026-11-21', 'DR', '1.00', 'then', 'then')`)
			raw.Close()

			db, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var ids []int64
			rows, _ := db.QueryContext(ctx, `SELECT id FROM calls ORDER BY id`)
			for rows.Next() {
				var id int64
				rows.Scan(&id)
				ids = append(ids, id)
			}
			rows.Close()
			if len(ids) != 2 || ids[0] != 7 || ids[1] != 40 {
				t.Fatalf("calls after the upgrade = %v, want ids 7 and 40", ids)
			}
			calls := []recon.Call{
				{Hash: "h7", Source: "old.jsonl", TS: "2026-11-21 10:00:00", Outcome: recon.CallSuccess},  // imported before
				{Hash: "h41", Source: "new.jsonl", TS: "2026-11-21 10:00:02", Outcome: recon.CallPending}, // new
				{Hash: "h42", Source: "new.jsonl", TS: "2026-11-22 09:00:00", Outcome: recon.CallSuccess,
					Pool: recon.PoolEntry{Account: "P2", Shape: "A", Opening: "98.00", Amount: "1.00", Closing: "97.00"}},
			}
			if n, err := db.InsertCalls(ctx, time.Now(), calls, nil); err != nil || n != 2 {
				t.Fatalf("InsertCalls after the upgrade = %d, %v; want 2 new", n, err)
			}
			for _, w := range []struct {
				from, to string
				want     []string
			}{{"2026-11-21", "2026-11-21", []string{"P1"}}, {"2026-11-22", "2026-11-22", []string{"P2"}},
				{"2026-11-20", "2026-11-22", []string{"P1", "P2"}}, {"2026-11-23", "2026-11-30", nil}} {
				got, err := db.CheckPoolAccounts(ctx, ledger.Window{From: w.from + " 00:00:00", To: w.to + " 23:59:59"})
				if err != nil || !slices.Equal(got, w.want) {
					t.Errorf("pool accounts of %s..%s = %q, %v; want %q", w.from, w.to, got, err, w.want)
				}
			}
			var newID int64
			if err := db.QueryRowContext(ctx, `SELECT id FROM calls WHERE line_hash = 'h41'`).Scan(&newID); err != nil || newID <= 40 {
				t.Errorf("new call id = %d, %v; want above 40", newID, err)
			}
			shown, err := db.StoredCalls(ctx, "7")
			if err != nil || len(shown) != 1 || string(shown[0].Response) != `{"statuscode":"TXN"}` {
				t.Errorf("StoredCalls(7) = %+v, %v; want the call with its stored response", shown, err)
			}
			var svc string
			var recID int64
			if err := db.QueryRowContext(ctx, `SELECT id, svc_order_id FROM records`).Scan(&recID, &svc); err != nil || svc != "S7" || recID == 0 {
				t.Errorf("record after the upgrade = %d %q, %v", recID, svc, err)
			}
		})
	}
}
