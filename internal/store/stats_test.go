package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestStale: autovacuum's rule, and never analyzed with rows.
func TestStale(t *testing.T) {
	for _, tc := range []struct {
		t    tableStats
		want bool
	}{
		{tableStats{live: 0, analyzed: false}, false},
		{tableStats{live: 10, analyzed: false}, true},
		{tableStats{changed: 3, analyzed: false}, true},
		{tableStats{changed: 150, live: 1000, analyzed: true}, false},
		{tableStats{changed: 151, live: 1000, analyzed: true}, true},
		{tableStats{changed: 100_000, live: 100_120, analyzed: true}, true},
	} {
		if got := tc.t.stale(); got != tc.want {
			t.Errorf("%+v.stale() = %v, want %v", tc.t, got, tc.want)
		}
	}
}

// TestCheckStatsForARoleThatDoesNotOwnTheTables: PostgreSQL lets only a
// table's owner ANALYZE it (and skips it for anyone else with a mere
// warning, which left a check at 73 s instead of 3 s). The application
// role has the owner's svcrecon_analyze refresh them; where the owner
// took that right away, stale statistics are a *StaleStats naming the
// tables, the database and the fix, and the check may go on.
func TestCheckStatsForARoleThatDoesNotOwnTheTables(t *testing.T) {
	ctx := context.Background()
	owner, app, admin := roles(t)
	openURL(t, owner).Close() // the owner migrates
	sa, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Close()
	// Autovacuum would analyze the tables too, in its own time.
	for _, q := range []string{`ALTER TABLE svcrecon.records SET (autovacuum_enabled = false)`, `ALTER TABLE svcrecon.calls SET (autovacuum_enabled = false)`} {
		if _, err := sa.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var version int
	if err := sa.QueryRow(`SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	// One connection: the one backend whose counts of changed rows
	// pg_stat_force_next_flush (PostgreSQL 15) reports at once (else when
	// it goes idle, at most once a second).
	db, err := OpenWith(ctx, app, Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	write := func(n int) {
		t.Helper()
		var recs []recon.Record
		for i := range n {
			recs = append(recs, testRecord(fmt.Sprintf("S%d-%d", n, i), "2026-11-21 10:00:00", "1.50"))
		}
		if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: recs}}); err != nil {
			t.Fatal(err)
		}
		if version >= 150000 {
			if _, err := db.ExecContext(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(200)
	analyzed := func() (n int) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_class
			WHERE oid IN (to_regclass('calls'), to_regclass('records')) AND reltuples >= 0`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := analyzed(); n != 0 {
		t.Fatalf("%d of calls and records analyzed before CheckStats, want a fresh database's 0", n)
	}
	if err := db.CheckStats(ctx); err != nil {
		t.Fatalf("CheckStats as the application role = %v", err)
	}
	if n := analyzed(); n != 2 {
		t.Fatalf("%d of calls and records analyzed by CheckStats as the application role, want 2", n)
	}

	if version < 150000 {
		t.Skip("the rest needs pg_stat_force_next_flush (PostgreSQL 15)")
	}
	if _, err := sa.Exec(`REVOKE EXECUTE ON FUNCTION svcrecon.svcrecon_analyze(text) FROM PUBLIC`); err != nil {
		t.Fatal(err)
	}
	write(1000)
	err = db.CheckStats(ctx)
	var stale *StaleStats
	if !errors.As(err, &stale) || !slicesEqual(stale.Tables, []string{"records"}) || stale.Changed != 1000 || stale.Never {
		t.Fatalf("CheckStats after a load, without the right to analyze = %v, want *StaleStats of records, 1000 rows changed", err)
	}
	msg := err.Error()
	for _, want := range []string{"statistics of records in postgres://svc_app_", "are stale (1000 rows changed since the last ANALYZE)",
		"GRANT EXECUTE ON FUNCTION svcrecon_analyze(text) to this role, or to run ANALYZE records after each load"} {
		if !strings.Contains(msg, want) {
			t.Errorf("CheckStats = %q, want it to say %q", msg, want)
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }
