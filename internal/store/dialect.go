package store

import (
	"context"
	"database/sql"
	"io/fs"
)

// dialect is everything in which SQLite and PostgreSQL differ for the
// store, stated once: the subject files write one statement in SQLite's
// spelling (? placeholders, which PostgreSQL's connections rebind to $N)
// and ask their DB's dialect for the rest. sqliteDialect (sqlite.go) and
// postgresDialect (postgres.go) are the two.
type dialect interface {
	// Schema.

	// migrations returns the dialect's migration files (NAME.sql at the
	// top). Both dialects have the same names, applied in name order and
	// recorded by name in schema_migrations, and end with the same tables
	// and columns.
	migrations() fs.FS
	// tablesSQL counts the database's tables and, of them, those named
	// schema_migrations (the catalog query of refuseForeign).
	tablesSQL() string
	// migrationColumnsSQL lists the column names of the table
	// schema_migrations (the catalog query of checkMigrations).
	migrationColumnsSQL() string

	// Locking.

	// lock takes the exclusive lock key until tx ends, so that processes
	// doing the same thing at once (migrating, creating a bulk run) do it
	// one after the other. SQLite's write transactions are exclusive
	// already (_txlock=immediate): nothing to take there.
	lock(ctx context.Context, tx *sql.Tx, key int64) error
	// unbounded lifts the time-outs of statements and lock waits for the
	// rest of tx (PostgreSQL's defaults bound them), for the migrations:
	// one may take long, and the others wait for it.
	unbounded(ctx context.Context, tx *sql.Tx) error
	// forUpdate is the clause that ends a SELECT of rows tx goes on to
	// update, locking them until tx ends ("" where write transactions
	// exclude each other already).
	forUpdate() string
	// skipLocked is forUpdate for a claim: rows another transaction holds
	// are passed over, not waited for.
	skipLocked() string
	// sharesRuns reports whether several processes, on this host or
	// others, can work on one bulk run at once, each claiming rows
	// (skipLocked).
	sharesRuns() bool
	// retry runs fn, again while the database answers busy where it does
	// not wait by itself.
	retry(ctx context.Context, fn func() error) error
	// failed reports whether err is a failure of the database itself
	// (the connection, the server, the disk) rather than of the statement
	// (failure.go).
	failed(err error) bool
	// now is the SQL expression of the database's clock, as TimeLayout
	// text in UTC: the one clock of leases and heartbeats, whichever host
	// writes or reads them.
	now() string

	// Writing.

	// insertIgnore is the INSERT of the rows values (one or more
	// parenthesized tuples) into table's columns cols that skips a row
	// whose key (the columns of a unique index) is stored already.
	insertIgnore(table, cols, values, key string) string
	// insertCount runs st, an insertIgnore, and returns how many rows it
	// inserted. A COPY-based insert (PostgreSQL) would go here.
	insertCount(ctx context.Context, tx *sql.Tx, st insertStmt, args []any) (int64, error)
	// insertNew is insertIgnore for insertNewKeys: a row inserted is told
	// by its key.
	insertNew(table, cols, values, key string) string
	// insertNewKeys runs st, an insertNew of n rows of table (args), and
	// calls seen with the rows of the keys of the rows it inserted, unless
	// it inserted all n: then all is true and seen is not called. A
	// COPY-based insert (PostgreSQL) would go here.
	insertNewKeys(ctx context.Context, tx *sql.Tx, st insertStmt, n int, args []any, table, key string,
		seen func(*sql.Rows) error) (all bool, err error)

	// Reading.

	// rowKey is the expression of a row of the table aliased alias as a
	// text key of its place in the table, for a second look at the row by
	// rowKeyIs (a condition on one parameter, the key).
	rowKey(alias string) string
	rowKeyIs(alias string) string
	// analyze refreshes the planner's statistics of tables, and returns
	// those this role may not refresh (stats.go).
	analyze(ctx context.Context, db *sql.DB, tables []string) (denied []tableStats, err error)
}

// insertStmt is a multi-row INSERT: prepared (stmt), or its text q run in
// the transaction.
type insertStmt struct {
	stmt *sql.Stmt
	q    string
}

func (s insertStmt) exec(ctx context.Context, tx *sql.Tx, args []any) (sql.Result, error) {
	if s.stmt != nil {
		return s.stmt.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, s.q, args...)
}

// execCount runs s and returns how many rows it changed.
func (s insertStmt) execCount(ctx context.Context, tx *sql.Tx, args []any) (int64, error) {
	res, err := s.exec(ctx, tx, args)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s insertStmt) query(ctx context.Context, tx *sql.Tx, args []any) (*sql.Rows, error) {
	if s.stmt != nil {
		return s.stmt.QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, s.q, args...)
}

// Keys of the exclusive locks taken with dialect.lock.
const (
	migrateLock    = 7079111 // applying migrations
	bulkCreateLock = 7079112 // creating a bulk run
)

// SharesRuns reports whether several processes, on this host or others,
// can work on one bulk run at once, each claiming its rows (PostgreSQL);
// otherwise a run has one holder at a time (SQLite).
func (db *DB) SharesRuns() bool { return db.dialect.sharesRuns() }
