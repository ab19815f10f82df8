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

func TestInsertCallsSkipsKnownLines(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
		calls := []recon.Call{
			{Hash: testHash("h1"), Source: "a.jsonl", Line: 1, TS: "2026-11-21 10:00:01", Operation: "op", Outcome: recon.CallSuccess,
				Pool: recon.PoolEntry{Shape: "A", Opening: "100.00", Amount: "10.00", Closing: "90.00"}, Response: []byte(`{}`)},
			{Hash: testHash("h2"), Source: "a.jsonl", Line: 2, TS: "2026-11-21 10:00:00", Operation: "op", Outcome: recon.CallPending},
		}
		bad := []ImportError{{Source: "a.jsonl", Line: 3, Reason: "not JSON"}}
		for i, want := range []int{2, 0} {
			n, err := db.InsertCalls(ctx, at, calls, bad)
			if err != nil || n != want {
				t.Fatalf("InsertCalls #%d = %d, %v; want %d", i+1, n, err, want)
			}
		}
		if n, err := byteHashes(ctx, db); err != nil || n != 2 {
			t.Errorf("calls whose line hash is stored as 32 bytes = %d, %v; want both", n, err)
		}
		var nerr int
		if err := db.QueryRow(`SELECT count(*) FROM import_errors`).Scan(&nerr); err != nil || nerr != 1 {
			t.Errorf("import_errors = %d, %v; want 1", nerr, err)
		}
		w := ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}
		var got []string
		for c, err := range db.CheckCalls(ctx, w) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, c.Hash+c.TS+c.Pool.Amount)
		}
		// CheckCalls reads no hash: order by ts is what counts.
		if len(got) != 2 || got[0] != "2026-11-21 10:00:00" || got[1] != "2026-11-21 10:00:0110.00" {
			t.Errorf("CheckCalls = %q", got)
		}
		w.Skip = []string{"op"}
		for c, err := range db.CheckCalls(ctx, w) {
			t.Errorf("CheckCalls skipping op yielded %+v, %v", c, err)
		}
	})
}

func TestCheckRunSupersedes(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		run := ledger.Run{From: "2026-11-21", To: "2026-11-21", AsOf: "2026-11-21", Started: time.Now()}
		now := func() time.Time { return run.Started }
		breaks := func(w ledger.RunWriter) {
			for i := range 100 { // more than one batch
				w.Break(ledger.Break{Kind: recon.BreakGap, CallID: int64(i + 1), ExplainedBy: []string{"a", "b"}})
			}
		}
		first := storeRun(t, db, run, breaks)
		second := storeRun(t, db, run, breaks)
		var n1, n2 int
		var sup int64
		var by string
		db.QueryRow(`SELECT count(*) FROM recon_breaks WHERE run_id = ?`, first).Scan(&n1)
		db.QueryRow(`SELECT count(*), max(explained_by) FROM recon_breaks WHERE run_id = ?`, second).Scan(&n2, &by)
		db.QueryRow(`SELECT superseded_by FROM recon_runs WHERE id = ?`, first).Scan(&sup)
		if n1 != 0 || n2 != 100 || sup != second || by != "a,b" {
			t.Errorf("rows %d and %d, superseded by %d, explained_by %q; want 0, 100, %d, a,b", n1, n2, sup, by, second)
		}
		if err := db.FailCheckRun(ctx, run, ledger.RunFailed, now()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestInsertCallsRefusesMalformedHash: a line hash that is not 64
// lowercase hex digits is an error naming it and its line, and nothing of
// the batch is stored.
func TestInsertCallsRefusesMalformedHash(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		good := testHash("good")
		for _, bad := range []string{"h1", good[:63], good + "0", strings.ToUpper(good), good[:62] + "g0", ""} {
			calls := []recon.Call{
				{Hash: good, Source: "a.jsonl", Line: 1, TS: "2026-11-21 10:00:00", Outcome: recon.CallSuccess},
				{Hash: bad, Source: "a.jsonl", Line: 2, TS: "2026-11-21 10:00:01", Outcome: recon.CallSuccess},
			}
			n, err := db.InsertCalls(ctx, time.Now(), calls, nil)
			if err == nil || n != 0 || !strings.Contains(err.Error(), fmt.Sprintf("line 2 of a.jsonl: line hash %q", bad)) {
				t.Errorf("InsertCalls with hash %q = %d, %v; want an error naming it", bad, n, err)
			}
		}
		var stored int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM calls`).Scan(&stored); err != nil || stored != 0 {
			t.Errorf("calls stored = %d, %v; want none", stored, err)
		}
	})
}

// TestKeptCallInsertIsStable: the insert of one call svcrecon made (its
// line in a block of its own) reads the same whatever the call and its
// time, and is one of the statements the bulk journal keeps prepared
// (keptCallSQL), so that SQLite parses it once, not at every call of a
// bulk run; a file's batch still writes its shared values as literals.
func TestKeptCallInsertIsStable(t *testing.T) {
	db := openTest(t)
	one := func(ref string, at time.Time) string {
		calls := []recon.Call{{Hash: testHash(ref), Source: "svcrecon", TS: "2026-11-01 10:00:00", ExternalRef: ref,
			Outcome: recon.CallSuccess, Block: &recon.LineBlock{Data: []byte("x")}}}
		return db.dialect.keptInsertSQL(callsInsert(batchConsts(calls, FormatTime(at))), len(calls))
	}
	a, b := one("R1", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)), one("R2", time.Date(2026, 11, 2, 11, 30, 0, 0, time.UTC))
	if a != b {
		t.Fatalf("the one-call insert differs with the call and its time:\n%s\n%s", a, b)
	}
	if !slices.Contains(db.keptCallSQL(), a) {
		t.Errorf("the one-call insert is not among the statements the journal keeps:\n%s", a)
	}
	file := []recon.Call{{Hash: testHash("F"), Source: "f.jsonl", SourceID: 1, TS: "2026-11-01 10:00:00", Outcome: recon.CallFailed}}
	if q := db.dialect.keptInsertSQL(callsInsert(batchConsts(file, "2026-11-03T00:00:00.000Z")), 1); !strings.Contains(q, "'2026-11-03T00:00:00.000Z'") {
		t.Errorf("a file's batch no longer writes its import time as a literal:\n%s", q)
	}
}
