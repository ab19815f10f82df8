package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
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
	names, err := migrationNames(postgresDialect{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(names) {
		t.Fatalf("Migrations() = %v, want %d applied once each", got, len(names))
	}
	if !db.SharesRuns() {
		t.Error("SharesRuns() = false for a postgres:// URL")
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

// roles makes, on a fresh database, a schema svcrecon owned by an owner
// role (which migrates) and an application role with only SELECT,
// INSERT, UPDATE and DELETE on its tables (and USAGE on the schema and its
// sequences), as the README tells a DBA to. It returns the database's URL
// as each role (search_path=svcrecon) and as the test server's superuser.
func roles(t *testing.T) (owner, app, admin string) {
	dsn := pgtest.NewDatabase(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	suffix := strings.TrimPrefix(dsn[strings.LastIndex(dsn, "/")+1:], "svcrecon_test_")
	suffix = suffix[:strings.IndexAny(suffix+"?", "?")]
	ownerRole, appRole := "svc_owner_"+suffix, "svc_app_"+suffix
	for _, q := range []string{
		`CREATE ROLE ` + ownerRole + ` LOGIN`, `CREATE ROLE ` + appRole + ` LOGIN`,
		`REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
		`CREATE SCHEMA svcrecon AUTHORIZATION ` + ownerRole,
		`GRANT USAGE ON SCHEMA svcrecon TO ` + appRole,
		`ALTER DEFAULT PRIVILEGES FOR ROLE ` + ownerRole + ` IN SCHEMA svcrecon GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ` + appRole,
		`ALTER DEFAULT PRIVILEGES FOR ROLE ` + ownerRole + ` IN SCHEMA svcrecon GRANT USAGE, SELECT ON SEQUENCES TO ` + appRole,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		// The roles own objects in the database and default privileges:
		// those go first, one role at a time.
		if db, err := sql.Open("pgx", dsn); err == nil {
			for _, role := range []string{appRole, ownerRole} {
				if _, err := db.Exec(`DROP OWNED BY ` + role); err != nil {
					t.Log(err)
				}
			}
			db.Close()
		}
		if db, err := sql.Open("pgx", pgtest.URL(t)); err == nil {
			for _, role := range []string{appRole, ownerRole} {
				if _, err := db.Exec(`DROP ROLE ` + role); err != nil {
					t.Log(err)
				}
			}
			db.Close()
		}
	})
	as := func(role string) string {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		if role != "" {
			u.User = url.User(role)
		}
		q := u.Query()
		q.Set("search_path", "svcrecon")
		u.RawQuery = q.Encode()
		return u.String()
	}
	return as(ownerRole), as(appRole), as("")
}

// TestPostgresGrants: the owner role (CREATE on the schema) migrates; an
// application role with only SELECT, INSERT, UPDATE and DELETE on the
// tables (and USAGE on the schema and its sequences) then opens the
// database and works in it; a pending migration asks for the owner.
func TestPostgresGrants(t *testing.T) {
	ctx := context.Background()
	owner, app, _ := roles(t)
	if _, err := Open(ctx, app); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("Open(app role, not migrated) = %v, want permission denied (the owner migrates)", err)
	}
	db, err := Open(ctx, owner)
	if err != nil {
		t.Fatalf("Open(owner) = %v", err)
	}
	db.Close()
	db, err = Open(ctx, app)
	if err != nil {
		t.Fatalf("Open(app role, migrated) = %v", err)
	}
	defer db.Close()
	if err := db.CreateBulkRun(ctx, BulkRun{ID: "GRANT", Op: "op", InputPath: "/x", InputSHA256: "s", Settings: "{}",
		TotalRows: 1, State: BulkRunning, CreatedAt: t0}, nil); err != nil {
		t.Errorf("CreateBulkRun as the app role = %v", err)
	}
	if _, err := db.SkipJobRun(ctx, recon.JobStart{Job: "j", Trigger: "manual", Now: t0}, "test"); err != nil {
		t.Errorf("a job run (identity column) as the app role = %v", err)
	}
}

// TestCheckStatsAnalyzesOnPostgres: before a check reads, PostgreSQL's
// statistics of calls and records are refreshed (a load just before leaves
// them stale, and the planner then chose a nested loop that took 18 s of a
// 100,000-call check); SQLite needs nothing.
func TestCheckStatsAnalyzesOnPostgres(t *testing.T) {
	ctx := context.Background()
	if err := openTest(t).CheckStats(ctx); err != nil {
		t.Errorf("CheckStats on SQLite: %v", err)
	}
	db := openPGTest(t)
	// reltuples is -1 until a table is first analyzed (PostgreSQL 14 and
	// later), and ANALYZE sets it in its own transaction: no waiting.
	analyzed := func() (n int) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_class
			WHERE relname IN ('calls', 'records') AND relkind = 'r' AND reltuples >= 0`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := analyzed(); n != 0 {
		t.Fatalf("%d of calls and records analyzed before CheckStats, want a fresh database's 0", n)
	}
	if err := db.CheckStats(ctx); err != nil {
		t.Fatal(err)
	}
	if n := analyzed(); n != 2 {
		t.Errorf("%d of calls and records analyzed after CheckStats, want 2", n)
	}
}
