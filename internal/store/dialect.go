package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
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
	// relaxCommit lets tx's commit return before its WAL record is on the
	// disk, for rows that may be lost in a crash of the database's host
	// (never corrupted, never reordered: a later commit that waits
	// flushes it too): PostgreSQL's synchronous_commit off for tx alone.
	// SQLite's commits (WAL, synchronous NORMAL) wait for no disk already.
	relaxCommit(ctx context.Context, tx *sql.Tx) error
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
	// writers is how many write transactions of this process gain from
	// running at once (WriteRecords of different windows): 1 where the
	// database has one writer (SQLite), more where the server works on
	// several at once (PostgreSQL).
	writers() int
	// aborted reports whether err is a transaction the database aborted
	// for a conflict with another's (a deadlock, a serialization failure),
	// which may be run again, whole.
	aborted(err error) bool
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
	// that any unique key of table holds already: for a few rows (bulk
	// inserts go through insertRows).
	insertIgnore(table, cols, values string) string
	// insertRows inserts the rows of args (whole rows of ins.cols' values,
	// in order), skipping a row whose key (ins.key) is stored already, and
	// returns how many it inserted. A table without a key takes every row.
	insertRows(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any) (int64, error)
	// keptInsertSQL is the text insertRows runs for rows rows of ins when
	// they are fewer than a statement's (ins.per), which a Batch may keep
	// prepared (ins.kept); "" when the driver keeps its statements itself
	// (pgx caches each text it prepares on a connection).
	keptInsertSQL(ins *rowInsert, rows int) string
	// insertNewRows is insertRows telling which rows it inserted: it calls
	// seen with the rows of the keys (ins.key's columns) of the rows it
	// inserted, unless it inserted them all: then all is true and seen is
	// not called.
	insertNewRows(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any, seen func(*sql.Rows) error) (all bool, err error)
	// batchRows is how many rows a writer gathers for one insertRows, given
	// the rows of one of its statements: SQLite inserts a statement's rows
	// at a time, PostgreSQL copies many more.
	batchRows(statementRows int) int

	// Reading.

	// rowKey is the expression of a row of the table aliased alias as a
	// text key of its place in the table, for a second look at the row by
	// rowKeyIs (a condition on one parameter, the key).
	rowKey(alias string) string
	rowKeyIs(alias string) string
	// bytewise is the ORDER BY term of the text column col that orders
	// its values by their bytes (SQLite's BINARY collation; PostgreSQL's
	// "C").
	bytewise(col string) string
	// analyze refreshes the planner's statistics of tables, and returns
	// those this role may not refresh (stats.go).
	analyze(ctx context.Context, db *sql.DB, tables []string) (denied []tableStats, err error)
}

// rowInsert is a multi-row insert into a table, for one transaction:
// the columns each row gives a value of, those of one value for every row
// (the run, the time of the import), and the key a row stored already is
// known by. Each dialect writes the rows its own way (insertRows): SQLite
// with multi-row INSERT statements of per rows, PostgreSQL with COPY.
type rowInsert struct {
	table string
	cols  []string     // the columns of each row's values, in order
	fixed []fixedValue // the columns of one value for all the rows
	key   string       // the unique key's columns, comma-separated; "" none
	per   int          // rows one INSERT statement carries (SQLite)

	stmt   *sql.Stmt // SQLite: the prepared statement of per rows
	kept   *Batch    // SQLite: where the statement of fewer rows may be kept prepared (nil: none)
	staged int       // PostgreSQL: the savepoints taken (postgres_copy.go)
}

// fixedValue is a column of the same value in every row.
type fixedValue struct {
	col string
	val any // string, int64 or nil
}

// width is how many values a row gives in args.
func (ins *rowInsert) width() int { return len(ins.cols) }

// columns lists every column a row fills: cols, then the fixed ones.
func (ins *rowInsert) columns() []string {
	all := append([]string(nil), ins.cols...)
	for _, f := range ins.fixed {
		all = append(all, f.col)
	}
	return all
}

// valuesSQL is "table (columns) VALUES (…), …" of rows rows: the values
// of cols bound (?), the fixed ones written as literals.
func (ins *rowInsert) valuesSQL(rows int) string {
	var one strings.Builder
	one.WriteString("(" + strings.Repeat("?,", ins.width()))
	for _, f := range ins.fixed {
		one.WriteString(sqlLiteral(f.val) + ",")
	}
	row := strings.TrimSuffix(one.String(), ",") + ")"
	return ins.table + ` (` + strings.Join(ins.columns(), ", ") + `) VALUES ` + strings.Repeat(row+",", rows-1) + row
}

// sqlLiteral writes v (a string, an int64 or nil) as an SQL literal.
func sqlLiteral(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return "'" + sqlText(v) + "'"
	}
	panic(fmt.Sprintf("store: no literal of %T", v))
}

// close releases the prepared statement, if any.
func (ins *rowInsert) close() error {
	if ins.stmt == nil {
		return nil
	}
	err := ins.stmt.Close()
	ins.stmt = nil
	return err
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
