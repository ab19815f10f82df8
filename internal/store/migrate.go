package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"time"
)

// migrationFiles are the migrations of both dialects: migrations/sqlite
// and migrations/postgres, one file of each name in each.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// subFS returns the directory dir of migrationFiles.
func subFS(dir string) fs.FS {
	sub, err := fs.Sub(migrationFiles, dir)
	if err != nil {
		panic(err) // dir is a constant of this package, embedded above
	}
	return sub
}

// migrationNames lists the migration files of dialect d, in the order
// they are applied.
func migrationNames(d dialect) ([]string, error) {
	names, err := fs.Glob(d.migrations(), "*.sql")
	sort.Strings(names)
	return names, err
}

// migrate applies the migrations of the database's dialect not applied
// yet, each in a transaction of its own that records it by name in
// schema_migrations.
func (db *DB) migrate(ctx context.Context) error {
	names, err := migrationNames(db.dialect)
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
			all = all && have[n]
		}
		if all {
			return nil
		}
	}
	if err := db.dialect.retry(ctx, func() error {
		return db.Write(ctx, func(tx *sql.Tx) error {
			if err := db.dialect.lock(ctx, tx, migrateLock); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`)
			return err
		})
	}); err != nil {
		return err
	}
	for _, name := range names {
		body, err := fs.ReadFile(db.dialect.migrations(), name)
		if err != nil {
			return err
		}
		if err := db.dialect.retry(ctx, func() error { return db.applyMigration(ctx, name, string(body)) }); err != nil {
			return err
		}
	}
	return nil
}

// applyMigration runs the migration name (its SQL body) unless it is
// recorded as applied, and records it. One migrator at a time across
// processes: the others wait for the lock, then find it applied.
func (db *DB) applyMigration(ctx context.Context, name, body string) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		if err := db.dialect.lock(ctx, tx, migrateLock); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, body); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)`,
			name, time.Now().UTC().Format(time.RFC3339))
		return err
	})
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
