// Package store is the only package that speaks SQL. It opens svcrecon's
// database, a SQLite file (modernc.org/sqlite, pure Go; sqlite.go) or a
// PostgreSQL database (pgx; postgres.go), and applies the embedded
// migrations of its dialect (migrations/sqlite, migrations/postgres).
//
// One database holds everything: synced records, the call log,
// reconciliation results, bulk runs and job history, one file per subject.
// The subject files write their SQL once, in SQLite's spelling; what
// differs between the two engines (DDL, placeholders, upserts, locking,
// bulk insert, catalog queries, statistics) is stated once, by the
// dialect (dialect.go) each DB carries, and no package outside the store
// knows which engine it runs on. Writes go through DB.Write, which
// serializes writers in this process and runs each in a transaction —
// but a sync's records on PostgreSQL, whose writers run at once
// (writeAlongside); busy_timeout (SQLite) and row locks (PostgreSQL)
// cover other processes.
package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// DB is an open svcrecon database.
type DB struct {
	*sql.DB
	Path    string
	where   string     // what errors name: host:port/database, or Path for SQLite
	mu      sync.Mutex // one writer in this process (Write; not writeAlongside on PostgreSQL)
	dialect dialect    // what differs between SQLite and PostgreSQL

	journal *Batch // group commit of the bulk journal's row writes (bulk.go)

	knownAccts sync.Map // callAcct → struct{}: rows of call_accounts committed (knowAccounts)
}

// Options tune Open.
type Options struct {
	// MaxConns bounds the connection pool (default 8; a check needs
	// CheckConns). With SQLite, writes are serialized anyway; with
	// PostgreSQL it is what each process may hold of the server's
	// max_connections.
	MaxConns int
}

// CheckConns is the fewest connections a check works with: it holds its
// run's transaction, a stream of calls and one of records, and looks a row
// up beside them; with a smaller pool it would wait for ever, so
// BeginCheckRun refuses one. (It merges one stream of records per account
// only where the pool has room for them, recordStreams.) Other work, a
// bulk run's, needs no more than one.
const CheckConns = 4

// checkConns is what a check holds beside its streams of records: the
// run's transaction, the stream of calls, a look-up.
const checkConns = CheckConns - 1

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
// PostgreSQL: through pgx; its own migrations (migrations/postgres), of
// the same names and recorded the same way, applied under an advisory lock so that
// several processes starting at once migrate once. Errors name host:port
// and the reason, never the password.
//
// Either way, a database that holds tables but is not svcrecon's (no
// schema_migrations table, or one of other columns or naming migrations
// svcrecon never had) is refused before anything is written to it
// (ErrForeign), and so is one a newer svcrecon migrated (ErrNewer).
func OpenWith(ctx context.Context, dsn string, o Options) (*DB, error) {
	if IsPostgres(dsn) {
		return openPG(ctx, dsn, o)
	}
	return openSQLite(ctx, dsn, o)
}

// newDB returns the DB of an open database of dialect d.
func newDB(sqldb *sql.DB, path string, d dialect) *DB {
	db := &DB{DB: sqldb, Path: path, where: path, dialect: d}
	db.journal = NewBatch(db, 0)
	return db
}

// ErrForeign is returned by Open for a database that holds tables but is
// not svcrecon's.
var ErrForeign = errors.New("the database holds tables but is not svcrecon's (no schema_migrations table); give another --db")

// refuseForeign returns ErrForeign when the database has tables but none
// of them is schema_migrations, or a schema_migrations that is not
// svcrecon's, and ErrNewer when a newer svcrecon migrated it
// (checkMigrations). It only reads.
func (db *DB) refuseForeign(ctx context.Context) error {
	var tables, ours int
	q := db.dialect.tablesSQL()
	err := db.dialect.retry(ctx, func() error { return db.QueryRowContext(ctx, q).Scan(&tables, &ours) })
	if err != nil {
		return err
	}
	if tables > 0 && ours == 0 {
		return ErrForeign
	}
	if ours == 0 {
		return nil
	}
	return db.checkMigrations(ctx)
}

// Write runs fn in a transaction, serialized with every other Write of this
// DB. fn's error rolls the transaction back. A failure of the database
// itself (the connection lost, the server gone or full) is a *DBError.
func (db *DB) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.failure(ctx, db.write(ctx, fn))
}

// RecordWriters is how many WriteRecords of different windows gain from
// running at once: 1 on SQLite (one writer), more on PostgreSQL.
func (db *DB) RecordWriters() int { return db.dialect.writers() }

// writeAlongside is Write for the transactions that RecordWriters allows
// to run at once: on a database with one writer, Write; otherwise not
// serialized with this process's other writes, and run again, whole,
// when the server aborted it for a conflict with another (a deadlock of
// two writers' rows; fn must start from nothing each time).
func (db *DB) writeAlongside(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if db.dialect.writers() == 1 {
		return db.Write(ctx, fn)
	}
	return db.retryAborted(func() error { return db.failure(ctx, db.write(ctx, fn)) })
}

// abortedAttempts bounds how often retryAborted runs a transaction.
const abortedAttempts = 5

// retryAborted runs tx, a whole transaction, again while the database
// aborted it for a conflict with another's (dialect.aborted), at most
// abortedAttempts times in all.
func (db *DB) retryAborted(tx func() error) error {
	for attempt := 1; ; attempt++ {
		err := tx()
		if err == nil || attempt == abortedAttempts || !db.dialect.aborted(err) {
			return err
		}
	}
}

func (db *DB) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
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

// TimeLayout is how timestamps of svcrecon's own (not the service's) are
// stored: RFC 3339 with milliseconds, UTC.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime formats t for storage.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }
