package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
)

// execRaw runs stmts on the database dsn names, past the store.
func execRaw(tb testing.TB, dsn string, stmts ...string) {
	tb.Helper()
	driver := "sqlite"
	if IsPostgres(dsn) {
		driver = "pgx"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// tableCount is how many tables the database dsn names holds.
func tableCount(tb testing.TB, dsn string) int {
	tb.Helper()
	driver, q := "sqlite", sqliteDialect{}.tablesSQL()
	if IsPostgres(dsn) {
		driver, q = "pgx", postgresDialect{}.tablesSQL()
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var n, ours int
	if err := db.QueryRow(q).Scan(&n, &ours); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestSchemaMigrationsOfAnotherProgramIsRefused: a schema_migrations
// table of other columns (golang-migrate's, Rails'), or naming migrations
// svcrecon never had, is refused as ErrForeign; one naming migrations
// newer than this svcrecon's as ErrNewer. Each in one line naming the
// database and what is wrong, not an SQL error, and nothing is created.
func TestSchemaMigrationsOfAnotherProgramIsRefused(t *testing.T) {
	names, err := migrationNames(sqliteDialect{})
	if err != nil {
		t.Fatal(err)
	}
	last := names[len(names)-1]
	for _, tc := range []struct {
		name   string
		svc    bool // svcrecon migrated the database first
		stmts  []string
		is     error
		reason string
	}{
		{"golang-migrate", false, []string{`CREATE TABLE schema_migrations (version BIGINT NOT NULL PRIMARY KEY, dirty BOOLEAN NOT NULL)`,
			`INSERT INTO schema_migrations VALUES (20240101120000, false)`},
			ErrForeign, "the database is not svcrecon's: its schema_migrations table has the columns version, dirty, not name and applied_at; give another --db"},
		{"rails, empty", false, []string{`CREATE TABLE schema_migrations (version VARCHAR(255) NOT NULL PRIMARY KEY)`},
			ErrForeign, "its schema_migrations table has the columns version, not name and applied_at"},
		{"same columns, other names", false, []string{`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`,
			`INSERT INTO schema_migrations VALUES ('20231001_create_users.up.sql', '2023-10-01'), ('0001_init.sql', '2023-10-01'), ('V2__orders.sql', 'x'), ('3', 'x'), ('4', 'x')`},
			ErrForeign, `its schema_migrations table names 4 migration(s) svcrecon never had ("20231001_create_users.up.sql", "3", "4" and 1 more); give another --db`},
		{"a newer svcrecon", true, []string{`INSERT INTO schema_migrations VALUES ('0900_tomorrow.sql', '2027-01-01T00:00:00Z')`},
			ErrNewer, `the database was migrated by a newer svcrecon ("0900_tomorrow.sql", which this one, ` + last + `, does not know): upgrade svcrecon on this host`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachBackendURL(t, func(t *testing.T, dsn string) {
				if tc.svc {
					openURL(t, dsn).Close()
				}
				execRaw(t, dsn, tc.stmts...)
				before := tableCount(t, dsn)
				_, err := Open(context.Background(), dsn)
				if !errors.Is(err, tc.is) || err == nil || !strings.Contains(err.Error(), tc.reason) {
					t.Fatalf("Open = %v, want %v saying %q", err, tc.is, tc.reason)
				}
				where := dsn
				if IsPostgres(dsn) {
					where = "127.0.0.1:" // host:port/database, not the URL
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "open database "+where) || strings.Contains(msg, "\n") {
					t.Errorf("Open = %q, want one line naming the database first", msg)
				}
				if after := tableCount(t, dsn); after != before {
					t.Errorf("the refused Open made %d tables of %d", after, before)
				}
			})
		})
	}
}
