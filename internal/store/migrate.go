package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
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
			if err := db.lockMigrations(ctx, tx); err != nil {
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
		if err := db.lockMigrations(ctx, tx); err != nil {
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

// lockMigrations makes tx the only one migrating, however long another
// takes: the time-outs of its statements and lock waits are lifted.
func (db *DB) lockMigrations(ctx context.Context, tx *sql.Tx) error {
	if err := db.dialect.unbounded(ctx, tx); err != nil {
		return err
	}
	return db.dialect.lock(ctx, tx, migrateLock)
}

// Migrations lists the applied migrations, oldest first.
func (db *DB) Migrations(ctx context.Context) ([]string, error) {
	return db.strings(ctx, `SELECT name FROM schema_migrations ORDER BY name`)
}

// ErrNewer is returned by Open for a database that a newer svcrecon
// migrated: this one does not know its tables.
var ErrNewer = errors.New("the database was migrated by a newer svcrecon")

// foreignError is an ErrForeign that says what gave the database away.
type foreignError struct{ reason string }

func (e *foreignError) Error() string {
	return "the database is not svcrecon's: " + e.reason + "; give another --db"
}

func (e *foreignError) Is(target error) bool { return target == ErrForeign }

// migrationNameRE is how svcrecon names its migrations.
var migrationNameRE = regexp.MustCompile(`^[0-9]{4}_[a-z0-9_]+\.sql$`)

// checkMigrations refuses a schema_migrations table that another program
// made (other columns, or rows naming migrations svcrecon never had) with
// ErrForeign, and one naming migrations newer than this svcrecon's with
// ErrNewer, before anything reads or writes by it. It only reads.
func (db *DB) checkMigrations(ctx context.Context) error {
	var cols []string
	if err := db.dialect.retry(ctx, func() (err error) {
		cols, err = db.strings(ctx, db.dialect.migrationColumnsSQL())
		return err
	}); err != nil {
		return err
	}
	if len(cols) != 2 || !slices.Contains(cols, "name") || !slices.Contains(cols, "applied_at") {
		return &foreignError{fmt.Sprintf("its schema_migrations table has the columns %s, not name and applied_at",
			strings.Join(cols, ", "))}
	}
	var applied []string
	if err := db.dialect.retry(ctx, func() (err error) {
		applied, err = db.Migrations(ctx)
		return err
	}); err != nil {
		return err
	}
	known, err := migrationNames(db.dialect)
	if err != nil {
		return err
	}
	var foreign, newer []string
	for _, n := range applied {
		switch {
		case slices.Contains(known, n):
		case migrationNameRE.MatchString(n) && n > known[len(known)-1]:
			newer = append(newer, n)
		default:
			foreign = append(foreign, n)
		}
	}
	if len(foreign) > 0 {
		return &foreignError{fmt.Sprintf("its schema_migrations table names %d migration(s) svcrecon never had (%s)",
			len(foreign), listSome(foreign))}
	}
	if len(newer) > 0 {
		return fmt.Errorf("%w (%s, which this one, %s, does not know): upgrade svcrecon on this host",
			ErrNewer, listSome(newer), known[len(known)-1])
	}
	return nil
}

// strings runs q and returns the first column of its rows.
func (db *DB) strings(ctx context.Context, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// listSome is the first three of names, quoted and escaped, and how many
// more.
func listSome(names []string) string {
	var b strings.Builder
	for i, n := range names[:min(3, len(names))] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.QuoteToASCII(n))
	}
	if len(names) > 3 {
		fmt.Fprintf(&b, " and %d more", len(names)-3)
	}
	return b.String()
}
