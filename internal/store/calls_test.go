package store

import (
	"context"
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
			{Hash: "h1", Source: "a.jsonl", Line: 1, TS: "2026-11-21 10:00:01", Operation: "op", Outcome: recon.CallSuccess,
				Pool: recon.PoolEntry{Shape: "A", Opening: "100.00", Amount: "10.00", Closing: "90.00"}, Response: []byte(`{}`)},
			{Hash: "h2", Source: "a.jsonl", Line: 2, TS: "2026-11-21 10:00:00", Operation: "op", Outcome: recon.CallPending},
		}
		bad := []ImportError{{Source: "a.jsonl", Line: 3, Reason: "not JSON"}}
		for i, want := range []int{2, 0} {
			n, err := db.InsertCalls(ctx, at, calls, bad)
			if err != nil || n != want {
				t.Fatalf("InsertCalls #%d = %d, %v; want %d", i+1, n, err, want)
			}
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
