package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// openSQLite is OpenWith for a SQLite file.
func openSQLite(ctx context.Context, path string, o Options) (*DB, error) {
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
	db := newDB(sqldb, path, sqliteDialect{})
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

// PageSize is the page size of a new SQLite database: 16 KiB, not
// SQLite's 4 KiB. The month's tables are wide and written in long runs; on
// a 1,000,000-call month larger pages made the import 17% and the check 14%
// faster, and the file 2% smaller (docs/benchmarks.md). The size is fixed
// when a file is created; setting it on an older file does nothing.
const PageSize = 16384

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

// sqliteDialect is SQLite's dialect: one writer at a time, rowids.
type sqliteDialect struct{}

func (sqliteDialect) migrations() fs.FS { return subFS("migrations/sqlite") }

func (sqliteDialect) tablesSQL() string {
	return `SELECT count(*), count(CASE WHEN name = 'schema_migrations' THEN 1 END)
			FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
}

func (sqliteDialect) migrationColumnsSQL() string {
	return `SELECT name FROM pragma_table_info('schema_migrations') ORDER BY cid`
}

func (sqliteDialect) lock(context.Context, *sql.Tx, int64) error { return nil }

func (sqliteDialect) unbounded(context.Context, *sql.Tx) error { return nil }

func (sqliteDialect) relaxCommit(context.Context, *sql.Tx) error { return nil }

// failed reports whether err is the file's failure rather than the
// statement's: an I/O error, a full disk, a corrupt or foreign file, one
// that cannot be opened or written.
func (sqliteDialect) failed(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return connectionLost(err)
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB,
		sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY:
		return true
	}
	return false
}

func (sqliteDialect) forUpdate() string  { return "" }
func (sqliteDialect) skipLocked() string { return "" }
func (sqliteDialect) sharesRuns() bool   { return false }

func (sqliteDialect) retry(ctx context.Context, fn func() error) error { return retryBusy(ctx, fn) }

// aborted: SQLite has one writer at a time, so no transaction of it is
// aborted for another's (busy is waited for, retryBusy).
func (sqliteDialect) aborted(error) bool { return false }

// writers: SQLite has one writer; a second transaction would wait for it.
func (sqliteDialect) writers() int { return 1 }

// now is SQLite's clock (the one host's), to the millisecond.
func (sqliteDialect) now() string { return `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` }

// insertIgnore uses OR IGNORE, which, unlike ON CONFLICT, needs no
// statement journal (the values of NOT NULL columns are never NULL).
func (sqliteDialect) insertIgnore(table, cols, values string) string {
	return `INSERT OR IGNORE INTO ` + table + ` (` + cols + `) VALUES ` + values
}

// batchRows is a statement's rows: each insertRows runs one statement.
func (sqliteDialect) batchRows(statementRows int) int { return statementRows }

// insertRows runs the rows through multi-row INSERT statements.
func (sqliteDialect) insertRows(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any) (int64, error) {
	var n int64
	err := sqliteStatements(ctx, tx, ins, args, func(res sql.Result) error {
		k, err := res.RowsAffected()
		n += k
		return err
	})
	return n, err
}

// insertNewRows counts the rows inserted, which is all of them in what a
// first sync meets. When some were not new, the new ones are read back by
// their rowids (the table's id): the rows inserted take consecutive rowids
// ending at the last one inserted (no row is deleted meanwhile, and the
// table has no AUTOINCREMENT).
func (sqliteDialect) insertNewRows(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any,
	seen func(*sql.Rows) error) (bool, error) {
	var inserted, last int64
	err := sqliteStatements(ctx, tx, ins, args, func(res sql.Result) error {
		k, err := res.RowsAffected()
		if err != nil || k == 0 {
			return err
		}
		inserted += k
		last, err = res.LastInsertId()
		return err
	})
	switch {
	case err != nil:
		return false, err
	case inserted == int64(len(args)/ins.width()):
		return true, nil
	case inserted == 0:
		return false, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+ins.key+` FROM `+ins.table+` WHERE id > ?`, last-inserted)
	if err != nil {
		return false, err
	}
	return false, seen(rows)
}

// sqliteStatements inserts the rows of args ins.per at a time, with a
// statement prepared once (kept in ins), the rows left with one more; done
// is given each statement's result. A row whose key is stored already is
// skipped (OR IGNORE, which, unlike ON CONFLICT, needs no statement
// journal; the values of NOT NULL columns are never NULL). The fixed
// values are written in the statement as literals.
func sqliteStatements(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any, done func(sql.Result) error) error {
	w := ins.width()
	for len(args) >= w {
		n := min(len(args)/w, ins.per)
		var res sql.Result
		var err error
		switch {
		case n < ins.per && ins.kept != nil:
			res, err = ins.kept.exec(ctx, tx, sqliteInsertSQL(ins, n), args[:n*w]...)
		case n < ins.per:
			res, err = tx.ExecContext(ctx, sqliteInsertSQL(ins, n), args[:n*w]...)
		case ins.stmt == nil:
			if ins.stmt, err = tx.PrepareContext(ctx, sqliteInsertSQL(ins, n)); err != nil {
				return err
			}
			fallthrough
		default:
			res, err = ins.stmt.ExecContext(ctx, args[:n*w]...)
		}
		if err == nil {
			err = done(res)
		}
		if err != nil {
			return err
		}
		args = args[n*w:]
	}
	return nil
}

func (sqliteDialect) keptInsertSQL(ins *rowInsert, rows int) string {
	return sqliteInsertSQL(ins, rows)
}

// sqliteInsertSQL is the INSERT of rows rows of ins.
func sqliteInsertSQL(ins *rowInsert, rows int) string {
	if ins.key == "" {
		return `INSERT INTO ` + ins.valuesSQL(rows)
	}
	return `INSERT OR IGNORE INTO ` + ins.valuesSQL(rows)
}

func (sqliteDialect) rowKey(alias string) string   { return "CAST(" + alias + ".rowid AS TEXT)" }
func (sqliteDialect) rowKeyIs(alias string) string { return alias + ".rowid = ?" }
func (sqliteDialect) bytewise(col string) string   { return col }

// analyze does nothing: SQLite plans the store's queries well without
// statistics.
func (sqliteDialect) analyze(context.Context, *sql.DB, []string) ([]tableStats, error) {
	return nil, nil
}
