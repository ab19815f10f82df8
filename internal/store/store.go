// Package store opens svcrecon's SQLite database (modernc.org/sqlite, pure
// Go), sets its pragmas and applies the embedded migrations.
//
// One file holds everything: synced records, the call log, reconciliation
// results, bulk runs and job history. Writes go through DB.Write, which
// serializes writers in this process and runs each in a transaction;
// busy_timeout covers other processes.
package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is an open svcrecon database.
type DB struct {
	*sql.DB
	Path string
	mu   sync.Mutex // one writer in this process

	journal *Batch // group commit of the bulk journal's row writes (bulk.go)
}

// Open opens (creating if needed) the database at path and migrates it.
// Pragmas: WAL, busy_timeout 10s, foreign_keys on, synchronous NORMAL.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("open database: empty path")
	}
	q := url.Values{}
	// busy_timeout first: switching a new file to WAL takes a lock, and
	// another process opening it at the same moment must wait, not fail.
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetConnMaxIdleTime(time.Minute)
	db := &DB{DB: sqldb, Path: path}
	db.journal = NewBatch(db, 0)
	if err := db.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := db.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("migrate database %s: %w", path, err)
	}
	return db, nil
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
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := path.Base(name)
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = db.Write(ctx, func(tx *sql.Tx) error {
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
