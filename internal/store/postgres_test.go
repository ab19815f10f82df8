package store

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// openPGTest opens a fresh, migrated PostgreSQL database.
func openPGTest(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(context.Background(), pgtest.NewDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// eachBackend runs fn against a fresh database of each backend: SQLite,
// and PostgreSQL when the tests have one (see pgURL).
func eachBackend(t *testing.T, fn func(t *testing.T, db *DB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openTest(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, openPGTest(t)) })
}

// eachBackendURL runs fn with the address of a fresh database of each
// backend (a SQLite file, a PostgreSQL URL), for tests that open it more
// than once, as several processes would.
func eachBackendURL(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, filepath.Join(t.TempDir(), "t.db")) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.NewDatabase(t)) })
}

// openURL opens dsn, closed when the test ends.
func openURL(tb testing.TB, dsn string) *DB {
	tb.Helper()
	db, err := Open(context.Background(), dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestPostgresOpenMigratesOnceAndConcurrently(t *testing.T) {
	u := pgtest.NewDatabase(t)
	ctx := context.Background()
	errs := make(chan error, 6)
	for range 6 {
		go func() {
			db, err := Open(ctx, u)
			if err == nil {
				err = db.Close()
			}
			errs <- err
		}()
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent Open = %v", err)
		}
	}
	db, err := Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(names) {
		t.Fatalf("Migrations() = %v, want %d applied once each", got, len(names))
	}
	if !db.Postgres() {
		t.Error("Postgres() = false for a postgres:// URL")
	}
}

func TestPostgresForeignDatabaseIsRefused(t *testing.T) {
	u := pgtest.NewDatabase(t)
	other, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(`CREATE TABLE invoices (id BIGINT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	other.Close()
	if _, err := Open(context.Background(), u); !errors.Is(err, ErrForeign) {
		t.Fatalf("Open(foreign) = %v, want ErrForeign", err)
	}
}

func TestPostgresErrorsNameTheServerNotThePassword(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ dsn, want string }{
		{"postgres://svc:s3cretpw@127.0.0.1:1/db?sslmode=disable&password=s3cretpw", "127.0.0.1:1/db"},
		{"postgresql://svc:s3cretpw@[::1]:1/x?sslmode=disable", "[::1]:1/x"},
	} {
		_, err := Open(ctx, c.dsn)
		if err == nil {
			t.Fatalf("Open(%s) worked", RedactDSN(c.dsn))
		}
		if strings.Contains(err.Error(), "s3cretpw") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open = %q, want it to name %s and not the password", err, c.want)
		}
		if strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("Open = %q, want one line", err)
		}
	}
}

func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`UPDATE t SET x = ?1 WHERE id <> ?1 AND y = ?2`, `UPDATE t SET x = $1 WHERE id <> $1 AND y = $2`},
		{`SELECT '?' , "a?b", ? FROM t`, `SELECT '?' , "a?b", $1 FROM t`},
		{`SELECT 1`, `SELECT 1`},
	} {
		if got := rebind(c.in); got != c.want {
			t.Errorf("rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
