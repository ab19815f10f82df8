package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// openPG is OpenWith for a PostgreSQL URL.
func openPG(ctx context.Context, dsn string, o Options) (*DB, error) {
	sqldb, where, err := openPostgres(ctx, dsn, o.MaxConns)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", where, err)
	}
	db := newDB(sqldb, RedactDSN(dsn), postgresDialect{})
	db.where = where
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

// openPostgres opens a PostgreSQL database through pgx's database/sql
// driver, with a pool of at most maxConns connections. Every query goes
// through rebind, so the subject files' SQL (SQLite's ? placeholders) runs
// unchanged.
func openPostgres(ctx context.Context, dsn string, maxConns int) (*sql.DB, string, error) {
	cfg, where, err := pgConfig(dsn)
	if err != nil {
		return nil, where, err
	}
	// The simple protocol is not needed: statements are prepared per use.
	db := sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg, stdlib.OptionAfterConnect(sessionTimeouts))})
	if maxConns <= 0 {
		maxConns = 8
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		if ctx.Err() == nil && cfg.ConnectTimeout > 0 && isTimeout(err) {
			return nil, where, fmt.Errorf("no answer within the connect timeout of %s (connect_timeout=SECONDS in the URL sets it)", cfg.ConnectTimeout)
		}
		return nil, where, pgReason(err)
	}
	var version int
	if err := db.QueryRowContext(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		db.Close()
		return nil, where, pgReason(err)
	}
	if version < 120000 {
		db.Close()
		return nil, where, fmt.Errorf("PostgreSQL %d.%d is too old: svcrecon needs 12 or newer", version/10000, version%10000/100)
	}
	return db, where, nil
}

// pgConfig parses the URL dsn into pgx's configuration, with svcrecon's
// connect time-out unless the URL or PGCONNECT_TIMEOUT sets one, and
// returns where it points: host:port/database (or socket/database).
func pgConfig(dsn string) (*pgx.ConnConfig, string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx quotes the whole URL in some parse errors: never show it.
		return nil, RedactDSN(dsn), errors.New("not a valid PostgreSQL URL (postgres://USER@HOST:PORT/DB?sslmode=…)")
	}
	where := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		where = cfg.Host
	}
	where += "/" + cfg.Database
	if !hasParam(dsn, "connect_timeout") && os.Getenv("PGCONNECT_TIMEOUT") == "" {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	return cfg, where, nil
}

// isTimeout reports whether err is a deadline that passed or a network
// time-out.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// The PostgreSQL time-outs of svcrecon's connections, unless the URL, the
// environment or the server's configuration (postgresql.conf, ALTER
// DATABASE, ALTER ROLE) sets them. Each is one URL parameter away:
// connect_timeout=30 (seconds; 0 waits for ever), statement_timeout=2h,
// lock_timeout=5min (or options=-c statement_timeout=2h).
const (
	// DefaultConnectTimeout bounds connecting, TLS and logging in: a
	// server that accepts and never answers fails in 10 s.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultStatementTimeout bounds one statement, the rows it streams
	// to the client included: the longest of a nightly batch (a
	// 1,000,000-call month's check and export streams) take minutes.
	// Migrations are not bound (lockMigrations).
	DefaultStatementTimeout = "30min"
	// DefaultLockTimeout bounds a wait for a lock another session holds
	// (a row, a table, an advisory lock): svcrecon's own transactions
	// hold them for well under a second.
	DefaultLockTimeout = "1min"
)

// sessionTimeouts gives a new connection the default statement and lock
// time-outs where nothing else set them (their source is "default").
func sessionTimeouts(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, `SELECT set_config(name, CASE name WHEN 'statement_timeout' THEN $1::text ELSE $2::text END, false)
		FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout') AND source = 'default'`,
		DefaultStatementTimeout, DefaultLockTimeout)
	return err
}

// hasParam reports whether the URL dsn sets the parameter name.
func hasParam(dsn, name string) bool {
	u, err := url.Parse(dsn)
	return err == nil && u.Query().Has(name)
}

// pgReason shortens a connection error to its reason, without the URL or
// password pgx may quote.
func pgReason(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		if u := ce.Unwrap(); u != nil {
			var pe *pgconn.PgError
			if errors.As(u, &pe) {
				return fmt.Errorf("%s (SQLSTATE %s)", pe.Message, pe.Code)
			}
			msg := u.Error()
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			return errors.New(msg)
		}
	}
	return err
}

// pgConnector hands out connections whose queries are rebound.
type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{conn.(*stdlib.Conn)}, nil
}

// pgConn is pgx's connection with SQLite's placeholders (? and ?NNN)
// rewritten to PostgreSQL's ($1 …) in every statement.
type pgConn struct{ *stdlib.Conn }

func (c *pgConn) Prepare(q string) (driver.Stmt, error) { return c.Conn.Prepare(rebind(q)) }

func (c *pgConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(q))
}

// ExecContext runs q; copyQuery runs its COPY (postgres_copy.go).
func (c *pgConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if q == copyQuery && len(args) == 1 {
		if cp, ok := args[0].Value.(*pgCopy); ok {
			return cp.copyFrom(ctx, c.Conn.Conn())
		}
	}
	return c.Conn.ExecContext(ctx, rebind(q), args)
}

func (c *pgConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(q), args)
}

// CheckNamedValue stores booleans as 1 and 0 (pgValue), and lets a COPY
// (copyQuery's *pgCopy) through.
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	if _, ok := nv.Value.(*pgCopy); ok {
		return nil
	}
	nv.Value = pgValue(nv.Value)
	return c.Conn.CheckNamedValue(nv)
}

// pgValue is v as stored: a boolean as 1 or 0, as SQLite stores it (the
// schema keeps flags in integer columns on both backends).
func pgValue(v any) any {
	if b, ok := v.(bool); ok {
		if b {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

// rebind rewrites ? (the next parameter) and ?NNN (parameter NNN) outside
// quotes to $N.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j > i+1 {
				b.WriteString("$" + q[i+1:j])
				i = j - 1
			} else {
				n++
				b.WriteString("$" + strconv.Itoa(n))
			}
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// postgresDialect is PostgreSQL's dialect: row locks, advisory locks,
// COPY (postgres_copy.go), ctids and ANALYZE.
type postgresDialect struct{}

func (postgresDialect) migrations() fs.FS { return subFS("migrations/postgres") }

func (postgresDialect) tablesSQL() string {
	return `SELECT count(*), count(CASE WHEN table_name = 'schema_migrations' THEN 1 END)
			FROM information_schema.tables WHERE table_schema = current_schema()`
}

func (postgresDialect) migrationColumnsSQL() string {
	return `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'schema_migrations' ORDER BY ordinal_position`
}

// failed reports whether err is the server's or the connection's failure
// rather than the statement's: the connection lost or refused (class 08,
// a ConnectError), the server shutting down (57P01-57P03), out of room or
// connections (53), a system or internal error (58, XX), or a time-out it
// imposed (statement 57014, lock 55P03).
func (postgresDialect) failed(err error) bool {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	switch {
	case errors.As(err, &ce), connectionLost(err):
		return true
	case errors.As(err, &pe):
		switch c := pe.Code; {
		case len(c) == 5 && (c[:2] == "08" || c[:2] == "53" || c[:2] == "58" || c[:2] == "XX"),
			c == "57P01", c == "57P02", c == "57P03", c == "57014", c == "55P03":
			return true
		}
	}
	return false
}

// unbounded lifts the statement and lock time-outs for the rest of tx.
func (postgresDialect) unbounded(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true)`)
	return err
}

func (postgresDialect) relaxCommit(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT set_config('synchronous_commit', 'off', true)`)
	return err
}

// lock takes the transaction-scoped advisory lock key: other processes
// taking it wait until tx ends.
func (postgresDialect) lock(ctx context.Context, tx *sql.Tx, key int64) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, key)
	return err
}

func (postgresDialect) forUpdate() string  { return " FOR UPDATE" }
func (postgresDialect) skipLocked() string { return " FOR UPDATE SKIP LOCKED" }
func (postgresDialect) sharesRuns() bool   { return true }

func (postgresDialect) retry(_ context.Context, fn func() error) error { return fn() }

// pgWriters is how many WriteRecords a sync runs at once on PostgreSQL:
// while one transaction's COPY is inserting on the server, the next
// batch's records are encoded and sent on another connection. A sync
// walks several windows at once (four by default); each window's pages
// go to one writer.
const pgWriters = 2

func (postgresDialect) writers() int { return pgWriters }

// aborted: deadlock_detected (40P01) and serialization_failure (40001).
func (postgresDialect) aborted(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// now is the server's clock at the moment the statement reads it
// (clock_timestamp, not the transaction's start), to the millisecond.
func (postgresDialect) now() string {
	return `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}

func (postgresDialect) insertIgnore(table, cols, values string) string {
	// No conflict target: a row that conflicts on any unique key is
	// skipped, as SQLite's INSERT OR IGNORE does. A target of one key
	// turned a race on another (bulk_rows' (run_id, external_ref) beside
	// its key (run_id, line)) into a duplicate-key error.
	return `INSERT INTO ` + table + ` (` + cols + `) VALUES ` + values + ` ON CONFLICT DO NOTHING`
}

func (postgresDialect) rowKey(alias string) string   { return alias + ".ctid::text" }
func (postgresDialect) rowKeyIs(alias string) string { return alias + ".ctid = ?::tid" }
func (postgresDialect) bytewise(col string) string   { return col + ` COLLATE "C"` }

// analyze runs ANALYZE on tables: a load just before leaves the
// statistics stale (autovacuum analyzes a table only some time after), and
// the planner then picks nested loops. It reads a sample (30,000 rows a
// table), well under a second for a million rows, and blocks neither reads
// nor writes. PostgreSQL skips, with a mere warning, a table the role does
// not own (nor the database; nor, from 17, holds MAINTAIN on): those go to
// the owner's svcrecon_analyze (migration 0105), and when this role may
// not execute it either they are returned.
func (postgresDialect) analyze(ctx context.Context, db *sql.DB, tables []string) ([]tableStats, error) {
	mine, denied, err := analyzeRights(ctx, db, tables)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	if len(mine) > 0 {
		if _, err := db.ExecContext(ctx, `ANALYZE `+strings.Join(mine, ", ")); err != nil {
			return nil, fmt.Errorf("analyze: %w", err)
		}
	}
	if len(denied) == 0 {
		return nil, nil
	}
	names := make([]string, len(denied))
	for i, t := range denied {
		names[i] = t.name
	}
	_, err = db.ExecContext(ctx, `SELECT svcrecon_analyze(?)`, strings.Join(names, ","))
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &pe) && (pe.Code == "42501" || pe.Code == "42883"): // insufficient_privilege, undefined_function
		return denied, nil
	}
	return nil, fmt.Errorf("analyze: %w", err)
}

// analyzeRights sorts tables into those this role may ANALYZE itself and
// the others, with what pg_stat_user_tables says of them.
func analyzeRights(ctx context.Context, db *sql.DB, tables []string) (mine []string, denied []tableStats, err error) {
	regs := make([]string, len(tables))
	for i, t := range tables {
		regs[i] = "to_regclass('" + strings.ReplaceAll(t, "'", "''") + "')"
	}
	rows, err := db.QueryContext(ctx, `SELECT c.relname,
			pg_has_role(c.relowner, 'USAGE') OR pg_has_role(d.datdba, 'USAGE') OR
				CASE WHEN current_setting('server_version_num')::int >= 170000 THEN has_table_privilege(c.oid, 'MAINTAIN') ELSE false END,
			COALESCE(s.n_mod_since_analyze, 0), COALESCE(s.n_live_tup, 0),
			COALESCE(s.last_analyze, s.last_autoanalyze) IS NOT NULL
		FROM pg_class c JOIN pg_database d ON d.datname = current_database()
		LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
		WHERE c.oid IN (`+strings.Join(regs, ", ")+`) ORDER BY c.relname`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t tableStats
		var may bool
		if err := rows.Scan(&t.name, &may, &t.changed, &t.live, &t.analyzed); err != nil {
			return nil, nil, err
		}
		if may {
			mine = append(mine, t.name)
		} else {
			denied = append(denied, t)
		}
	}
	return mine, denied, rows.Err()
}
