package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL's bulk insert: the rows of a rowInsert are streamed with COPY
// (pgx's CopyFrom, binary) on the connection of the writer's transaction.
// Where nothing can conflict (a table without a key: a check's results)
// they are copied straight in. Otherwise they are copied straight in
// under a savepoint, which is all a first sync or import meets; when a row
// is stored already (a unique violation), that copy is rolled back and the
// rows are copied into a temporary table of the session and inserted from
// there with INSERT … SELECT … ON CONFLICT DO NOTHING, as one statement,
// in the order given. A few rows are inserted with one INSERT statement.

// pgCopyRows is how many rows a writer gathers for one COPY.
const pgCopyRows = 10000

// pgCopyMin is the fewest rows copied: fewer are inserted with one INSERT
// statement (one round trip, where a COPY under a savepoint takes four),
// as svcrecon's record of each call it makes is.
const pgCopyMin = 16

// maxCopySavepoints bounds the savepoints one rowInsert (one transaction)
// takes; the rows of its later inserts go through the temporary table.
// Past 64 subtransactions that wrote, a transaction's subtransaction cache
// overflows, and the snapshots of other sessions get slower while it runs.
const maxCopySavepoints = 32

func (postgresDialect) batchRows(int) int { return pgCopyRows }

func (postgresDialect) insertRows(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any) (int64, error) {
	rows := int64(len(args) / ins.width())
	switch {
	case rows == 0:
		return 0, nil
	case ins.key == "" && rows < pgCopyMin:
		_, err := tx.ExecContext(ctx, pgInsertSQL(ins, int(rows)), args...)
		return rows, err
	case ins.key == "":
		return pgCopyIn(ctx, tx, ins.table, ins, args)
	}
	var n int64
	all, err := pgInsert(ctx, tx, ins, args, func(keys *sql.Rows) error {
		defer keys.Close()
		for keys.Next() {
			n++
		}
		return keys.Err()
	})
	if all {
		n = rows
	}
	return n, err
}

func (postgresDialect) keptInsertSQL(*rowInsert, int) string { return "" }

func (postgresDialect) insertNewRows(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any,
	seen func(*sql.Rows) error) (bool, error) {
	return pgInsert(ctx, tx, ins, args, seen)
}

// pgInsert is insertNewRows: a few rows with one INSERT, more copied
// straight in (pgCopyNew) or, when one is stored already, staged.
func pgInsert(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any, seen func(*sql.Rows) error) (bool, error) {
	query := func(q string, args ...any) error {
		keys, err := tx.QueryContext(ctx, q+` RETURNING `+ins.key, args...)
		if err != nil {
			return err
		}
		return seen(keys)
	}
	switch rows := len(args) / ins.width(); {
	case rows == 0:
		return true, nil
	case rows < pgCopyMin:
		return false, query(pgInsertSQL(ins, rows), args...)
	}
	if ok, err := pgCopyNew(ctx, tx, ins, args); ok || err != nil {
		return ok, err
	}
	q, err := pgStage(ctx, tx, ins, args)
	if err == nil {
		err = query(q.insert)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, q.empty)
	}
	return false, err
}

// pgInsertSQL is the INSERT of rows rows of ins, for fewer than pgCopyMin.
func pgInsertSQL(ins *rowInsert, rows int) string {
	if ins.key == "" {
		return `INSERT INTO ` + ins.valuesSQL(rows)
	}
	return `INSERT INTO ` + ins.valuesSQL(rows) + ` ON CONFLICT (` + ins.key + `) DO NOTHING`
}

// pgCopyNew copies the rows straight into ins.table under a savepoint: ok
// when none of them was stored already. When one was (or came twice), the
// copy is rolled back and ok is false: the rows are to be staged.
func pgCopyNew(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any) (ok bool, err error) {
	if ins.staged >= maxCopySavepoints {
		return false, nil
	}
	ins.staged++
	if _, err := tx.ExecContext(ctx, `SAVEPOINT svcrecon_copy`); err != nil {
		return false, err
	}
	if _, err = pgCopyIn(ctx, tx, ins.table, ins, args); err == nil {
		_, err = tx.ExecContext(ctx, `RELEASE SAVEPOINT svcrecon_copy`)
		return err == nil, err
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" { // unique_violation
		return false, err
	}
	for _, q := range []string{`ROLLBACK TO SAVEPOINT svcrecon_copy`, `RELEASE SAVEPOINT svcrecon_copy`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, err
		}
	}
	return false, nil
}

// stagedInsert is the statements of rows staged in a temporary table:
// the INSERT from it into the table, and the one that empties it.
type stagedInsert struct{ insert, empty string }

// pgStage copies the rows into the session's temporary table for ins's
// columns (made the first time: the columns of the table, of the same
// types, without constraints).
func pgStage(ctx context.Context, tx *sql.Tx, ins *rowInsert, args []any) (stagedInsert, error) {
	cols := strings.Join(ins.columns(), ", ")
	h := fnv.New32a()
	h.Write([]byte(cols))
	tmp := fmt.Sprintf("svcrecon_in_%s_%08x", ins.table, h.Sum32())
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS `+tmp+` AS SELECT `+cols+` FROM `+ins.table+
		` WITH NO DATA`); err != nil {
		return stagedInsert{}, err
	}
	if _, err := pgCopyIn(ctx, tx, tmp, ins, args); err != nil {
		return stagedInsert{}, err
	}
	// A temporary table has no parallel scan, and one emptied is read in
	// the order its rows were copied.
	return stagedInsert{
		insert: `INSERT INTO ` + ins.table + ` (` + cols + `) SELECT ` + cols + ` FROM ` + tmp +
			` ON CONFLICT (` + ins.key + `) DO NOTHING`,
		empty: `TRUNCATE ` + tmp,
	}, nil
}

// pgCopyIn copies the rows of args, with ins's fixed values, into table.
func pgCopyIn(ctx context.Context, tx *sql.Tx, table string, ins *rowInsert, args []any) (int64, error) {
	src := &copyRows{args: args, width: ins.width(), fixed: ins.fixed}
	res, err := tx.ExecContext(ctx, copyQuery, &pgCopy{table: table, cols: ins.columns(), rows: src})
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// copyQuery is the text of a COPY run through database/sql: its one
// argument, a *pgCopy, says what to copy, and pgConn (the connection of
// the transaction) runs it with pgx's CopyFrom.
const copyQuery = "COPY (svcrecon)"

// pgCopy is a COPY of rows into the columns cols of table.
type pgCopy struct {
	table string
	cols  []string
	rows  pgx.CopyFromSource
}

// copyFrom runs cp on conn.
func (cp *pgCopy) copyFrom(ctx context.Context, conn *pgx.Conn) (driver.Result, error) {
	n, err := conn.CopyFrom(ctx, pgx.Identifier{cp.table}, cp.cols, cp.rows)
	if err != nil {
		return nil, err
	}
	return driver.RowsAffected(n), nil
}

// copyRows is the rows of args, width values each, followed by the fixed
// values, as pgx's CopyFrom reads them.
type copyRows struct {
	args  []any
	width int
	fixed []fixedValue
	row   []any
}

func (r *copyRows) Next() bool {
	if r.width == 0 || len(r.args) < r.width {
		return false
	}
	r.row = r.row[:0]
	for _, v := range r.args[:r.width] {
		r.row = append(r.row, pgValue(v))
	}
	for _, f := range r.fixed {
		r.row = append(r.row, f.val)
	}
	r.args = r.args[r.width:]
	return true
}

func (r *copyRows) Values() ([]any, error) { return r.row, nil }

func (r *copyRows) Err() error { return nil }
