package store

import (
	"context"
	"database/sql"
	"fmt"
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
			dsn, exec := oldDatabase(t, backend, "0100")
			exec(`INSERT INTO calls (id, line_hash, source, ts, operation, external_ref, orderid, outcome, pool_shape,
				pool_opening, pool_amount, pool_closing, request, response, imported_at) VALUES
				(7, ?, 'old.jsonl', '2026-11-21 10:00:00', 'verifyPanPlusV2', 'R7', 'S7', 'success', 'A', '100.00', '1.00', '99.00', '{}', '{"statuscode":"TXN"}', 'then'),
				(40, ?, 'old.jsonl', '2026-11-21 10:00:01', 'verifyPanPlusV2', 'R40', 'S40', 'success', 'A', '99.00', '1.00', '98.00', NULL, NULL, 'then')`, testHash("h7"), testHash("h40"))
			exec(`UPDATE calls SET pool_account = 'P1' WHERE id = 7`)
			exec(`INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, txn_mode, txn_charged_value,
				first_synced_at, last_synced_at) VALUES ('statement', 'A1', 'S7', '2026-11-21 10:00:00', '2026-11-21', 'DR', '1.00', 'then', 'then')`)

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
				{Hash: testHash("h7"), Source: "old.jsonl", TS: "2026-11-21 10:00:00", Outcome: recon.CallSuccess},  // imported before
				{Hash: testHash("h41"), Source: "new.jsonl", TS: "2026-11-21 10:00:02", Outcome: recon.CallPending}, // new
				{Hash: testHash("h42"), Source: "new.jsonl", TS: "2026-11-22 09:00:00", Outcome: recon.CallSuccess,
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
			if err := db.QueryRowContext(ctx, `SELECT id FROM calls WHERE line_hash = ?`, hashBytes(t, testHash("h41"))).Scan(&newID); err != nil || newID <= 40 {
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

// oldDatabase makes a database of backend ("sqlite", "postgres") migrated
// by the migrations before the one named before, as a svcrecon of then
// left it, and returns its address and a function that runs a statement
// on it (closed when the test ends).
func oldDatabase(t *testing.T, backend, before string) (dsn string, exec func(q string, args ...any)) {
	t.Helper()
	ctx := context.Background()
	var raw *sql.DB
	var err error
	d := dialect(sqliteDialect{})
	if backend == "sqlite" {
		dsn = filepath.Join(t.TempDir(), "old.db")
		raw, err = sql.Open("sqlite", dsn)
	} else {
		d, dsn = postgresDialect{}, pgtest.NewDatabase(t)
		raw, _, err = openPostgres(ctx, dsn, 2)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	exec = func(q string, args ...any) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	names, _ := migrationNames(d)
	exec(`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`)
	for _, n := range names {
		if n >= before {
			break
		}
		body, _ := fs.ReadFile(d.migrations(), n)
		exec(string(body))
		exec(`INSERT INTO schema_migrations (name, applied_at) VALUES (?, 'then')`, n)
	}
	return dsn, exec
}

// hashBytes is the stored form of the line hash h.
func hashBytes(t *testing.T, h string) []byte {
	t.Helper()
	b, err := appendHash(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUpgradeStoresLineHashesAsBytes: the line hashes of a database made
// before 0150 (64 hex digits) are stored as their 32 bytes after it; the
// same lines imported again add nothing, a call looked up by its hash is
// found (a block of stdin lines, one of them new, is kept), and the hashes
// of the kept calls (standard input's) come back as the same hex, in the
// order of their hex: the evidence's digest of them is unchanged.
func TestUpgradeStoresLineHashesAsBytes(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			dsn, exec := oldDatabase(t, backend, "0150")
			exec(`INSERT INTO call_blocks (data) VALUES (?)`, []byte("old lines"))
			var calls []recon.Call
			var kept []string
			for i := range 24 { // of one second: by hash, not in line order
				c := recon.Call{Hash: testHash(fmt.Sprint("line ", i)), Source: "calls.jsonl", Line: i + 1,
					TS: "2026-11-21 10:00:00", ExternalRef: fmt.Sprint("R", i), Outcome: recon.CallSuccess}
				if i%2 == 0 {
					c.Source = "-"
					kept = append(kept, c.Hash)
				}
				exec(`INSERT INTO calls (line_hash, source, source_line, ts, external_ref, outcome, imported_at, line_block)
					VALUES (?, ?, ?, ?, ?, 'success', 'then', (SELECT min(id) FROM call_blocks WHERE ? = '-'))`,
					c.Hash, c.Source, c.Line, c.TS, c.ExternalRef, c.Source)
				calls = append(calls, c)
			}

			db, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if n, err := byteHashes(ctx, db); err != nil || n != len(calls) {
				t.Fatalf("calls whose line hash is 32 bytes = %d, %v; want all %d", n, err, len(calls))
			}

			// Standard input's lines again, in a new block with one new line.
			block := &recon.LineBlock{Data: []byte("lines again")}
			again := slices.Clone(calls)
			again = append(again, recon.Call{Hash: testHash("new line"), Source: "-", TS: "2026-11-21 10:00:00",
				ExternalRef: "RN", Outcome: recon.CallSuccess})
			kept = append(kept, again[len(again)-1].Hash)
			for i := range again {
				if again[i].Source == "-" {
					again[i].Block = block
				}
			}
			if n, err := db.InsertCalls(ctx, time.Now(), again, nil); err != nil || n != 1 {
				t.Fatalf("InsertCalls of the lines again and one new = %d, %v; want 1", n, err)
			}
			shown, err := db.StoredCalls(ctx, "RN")
			if err != nil || len(shown) != 1 || string(shown[0].Block) != "lines again" || shown[0].Hash != kept[len(kept)-1] {
				t.Errorf("StoredCalls(RN) = %+v, %v; want the new call, its hash and its block", shown, err)
			}
			if shown, err := db.StoredCalls(ctx, "R3"); err != nil || len(shown) != 1 || shown[0].Hash != calls[3].Hash {
				t.Errorf("StoredCalls(R3) = %+v, %v; want the old call with hash %s", shown, err, calls[3].Hash)
			}

			got, err := db.EvidenceKeptCalls(ctx, "2026-11-21", "2026-11-21")
			slices.Sort(kept)
			if err != nil || len(got) != 1 || got[0].Source != "-" || !slices.Equal(got[0].Hashes, kept) {
				t.Errorf("EvidenceKeptCalls = %+v, %v; want the %d hashes of standard input's calls, sorted", got, err, len(kept))
			}
		})
	}
}

// byteHashes counts the calls whose line hash is stored as 32 bytes (a
// BLOB on SQLite, whatever the column's declared type).
func byteHashes(ctx context.Context, db *DB) (n int, err error) {
	q := `SELECT count(*) FROM calls WHERE typeof(line_hash) = 'blob' AND length(line_hash) = 32`
	if _, pg := db.dialect.(postgresDialect); pg {
		q = `SELECT count(*) FROM calls WHERE octet_length(line_hash) = 32`
	}
	err = db.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}
