// Package store opens svcrecon's SQLite database (modernc.org/sqlite, pure
// Go), sets its pragmas and applies the embedded migrations.
//
// One file holds everything: synced records, the call log, reconciliation
// results, bulk runs and job history. Writes go through DB.Write, which
// serializes writers in this process and runs each in a transaction;
// busy_timeout covers other processes.
package store

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"sort"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is an open svcrecon database.
type DB struct {
	*sql.DB
	Path string
	mu   sync.Mutex // one writer in this process
	pg   bool       // PostgreSQL (else SQLite)

	journal *Batch // group commit of the bulk journal's row writes (bulk.go)
}

// Options tune Open.
type Options struct {
	// MaxConns bounds the connection pool (default 8). With SQLite, writes
	// are serialized anyway; with PostgreSQL it is what each process may
	// hold of the server's max_connections.
	MaxConns int
}

// Open opens the database named by dsn and migrates it: a SQLite file
// (created if needed), or a PostgreSQL database given as a postgres:// or
// postgresql:// URL. See OpenWith.
func Open(ctx context.Context, dsn string) (*DB, error) { return OpenWith(ctx, dsn, Options{}) }

// OpenWith opens the database named by dsn and migrates it.
//
// SQLite: pragmas busy_timeout 10s, foreign_keys on, synchronous NORMAL on
// every connection; the file is switched to WAL once (WAL is persistent).
// A new file gets pages of 16 KiB (PageSize); a file made before keeps the
// size it has.
// A new file is created readable by its owner only (0600): it holds names,
// PANs and addresses from responses. Many processes may open one file at
// once, new or not: the WAL switch and the migrations wait for each other
// (busy_timeout, and a bounded retry where SQLite answers busy without
// waiting).
//
// PostgreSQL: through pgx; the same migrations, translated to its dialect
// and recorded the same way, applied under an advisory lock so that
// several processes starting at once migrate once. Errors name host:port
// and the reason, never the password.
//
// Either way, a database that holds tables but is not svcrecon's (no
// schema_migrations table) is refused before anything is written to it
// (ErrForeign).
func OpenWith(ctx context.Context, dsn string, o Options) (*DB, error) {
	if IsPostgres(dsn) {
		return openPG(ctx, dsn, o)
	}
	path := dsn
	if path == "" {
		return nil, fmt.Errorf("open database: empty path")
	}
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)",
		fmt.Sprintf("page_size(%d)", PageSize)} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	sqldb.SetMaxOpenConns(cmp.Or(o.MaxConns, 8))
	sqldb.SetConnMaxIdleTime(time.Minute)
	db := &DB{DB: sqldb, Path: path}
	db.journal = NewBatch(db, 0)
	fail := func(what string, err error) (*DB, error) {
		sqldb.Close()
		return nil, fmt.Errorf("%s database %s: %w", what, path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		return fail("open", err)
	}
	if err := db.refuseForeign(ctx); err != nil {
		return fail("open", err)
	}
	if err := retryBusy(ctx, func() error {
		var mode string
		return db.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode)
	}); err != nil {
		return fail("open", fmt.Errorf("switch to WAL: %w", err))
	}
	if err := db.migrate(ctx); err != nil {
		return fail("migrate", err)
	}
	return db, nil
}

// openPG is OpenWith for a PostgreSQL URL.
func openPG(ctx context.Context, dsn string, o Options) (*DB, error) {
	sqldb, where, err := openPostgres(ctx, dsn, o.MaxConns)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", where, err)
	}
	db := &DB{DB: sqldb, Path: RedactDSN(dsn), pg: true}
	db.journal = NewBatch(db, 0)
	if err := db.refuseForeign(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("open database %s: %w", where, err)
	}
	if err := db.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("migrate database %s: %w", where, pgReason(err))
	}
	return db, nil
}

// Postgres reports whether the database is PostgreSQL (else SQLite).
func (db *DB) Postgres() bool { return db.pg }

// PageSize is the page size of a new SQLite database: 16 KiB, not
// SQLite's 4 KiB. The month's tables are wide and written in long runs; on
// a 1,000,000-call month larger pages made the import 17% and the check 14%
// faster, and the file 2% smaller (docs/benchmarks.md). The size is fixed
// when a file is created; setting it on an older file does nothing.
const PageSize = 16384

// ErrForeign is returned by Open for a database that holds tables but is
// not svcrecon's.
var ErrForeign = errors.New("the database holds tables but is not svcrecon's (no schema_migrations table); give another --db")

// refuseForeign returns ErrForeign when the database has tables but none
// of them is schema_migrations. It only reads.
func (db *DB) refuseForeign(ctx context.Context) error {
	var tables, ours int
	q := `SELECT count(*), count(CASE WHEN name = 'schema_migrations' THEN 1 END)
			FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	if db.pg {
		q = `SELECT count(*), count(CASE WHEN table_name = 'schema_migrations' THEN 1 END)
			FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	err := retryBusy(ctx, func() error { return db.QueryRowContext(ctx, q).Scan(&tables, &ours) })
	if err != nil {
		return err
	}
	if tables > 0 && ours == 0 {
		return ErrForeign
	}
	return nil
}

// createPrivate creates path with mode 0600 when it does not exist yet, so
// that SQLite (which gives the -wal and -shm files the database's mode)
// never makes it readable by others. An existing file is left as it is.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (any
// extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// retryBusy runs fn until it succeeds, fails otherwise than busy, or about
// a minute has passed. SQLite answers busy without calling the busy handler
// where waiting could deadlock (a reader upgrading to a writer, the WAL
// switch of a new file); starting over is then the cure.
func retryBusy(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(time.Minute)
	wait := 5 * time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(wait + time.Duration(rand.Int64N(int64(wait))))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// Write runs fn in a transaction, serialized with every other Write of this
// DB. fn's error rolls the transaction back.
func (db *DB) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (db *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	// A database migrated already needs no DDL, so that a role with only
	// SELECT, INSERT, UPDATE and DELETE (PostgreSQL) can open it.
	if applied, err := db.Migrations(ctx); err == nil && len(applied) >= len(names) {
		have := map[string]bool{}
		for _, n := range applied {
			have[n] = true
		}
		all := true
		for _, n := range names {
			all = all && have[path.Base(n)]
		}
		if all {
			return nil
		}
	}
	if err := retryBusy(ctx, func() error {
		return db.Write(ctx, func(tx *sql.Tx) error {
			if db.pg {
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7079111)`); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`)
			return err
		})
	}); err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := path.Base(name)
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		if db.pg {
			body = []byte(pgMigration(string(body)))
		}
		err = retryBusy(ctx, func() error {
			return db.Write(ctx, func(tx *sql.Tx) error {
				if db.pg {
					// One migrator at a time across processes; others wait, then see it applied.
					if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7079111)`); err != nil {
						return err
					}
				}
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, base).Scan(&n); err != nil {
					return err
				}
				if n > 0 {
					return nil
				}
				if _, err := tx.ExecContext(ctx, string(body)); err != nil {
					return fmt.Errorf("%s: %w", base, err)
				}
				_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)`,
					base, time.Now().UTC().Format(time.RFC3339))
				return err
			})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Migrations lists the applied migrations, oldest first.
func (db *DB) Migrations(ctx context.Context) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM schema_migrations ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// TimeLayout is how timestamps of svcrecon's own (not the service's) are
// stored: RFC 3339 with milliseconds, UTC.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime formats t for storage.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }
