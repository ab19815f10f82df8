package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// CheckFinder answers a check's point look-ups through prepared
// statements: the counterpart of a call or record that is not near it in
// time, records and calls outside the window. A check makes few of them
// (one per finding, not per call). Close it when the check is done.
type CheckFinder struct {
	db    *DB
	w     ledger.Window
	stmts []*sql.Stmt

	bySvc, byClient, laterByOrder, laterByRef *sql.Stmt
	outsideByOrder, outsideByRef, debitBySvc  *sql.Stmt
	debitByClient, anyBySvc, refCalls         *sql.Stmt
}

// CheckFinder prepares the look-ups of a check of window w.
func (db *DB) CheckFinder(ctx context.Context, w ledger.Window) (ledger.Finder, error) {
	f := &CheckFinder{db: db, w: w}
	cols := `SELECT id, ` + strings.Join(recordCheckCols, ", ") + ` FROM records WHERE kind = '` + string(recon.Statement) + `' AND `
	period := ` AND txn_date_time >= '` + sqlText(w.From) + `' AND txn_date_time <= '` + sqlText(w.To) + `'`
	inWindow := ` AND ts >= '` + sqlText(w.From) + `' AND ts <= '` + sqlText(w.To) + `' AND ` + notSkipped(w)
	outside := ` AND (ts < '` + sqlText(w.From) + `' OR ts > '` + sqlText(w.To) + `') AND ` + notSkipped(w)
	debit := `max(CASE WHEN pool_shape <> '' AND outcome = 'success' THEN 1 ELSE 0 END)`
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&f.bySvc, cols + `svc_order_id = ?` + period + ` ORDER BY txn_date_time DESC, account DESC LIMIT 1`},
		{&f.byClient, cols + `client_order_id = ?` + period + ` ORDER BY txn_date_time, svc_order_id, account`},
		{&f.laterByOrder, `SELECT max(ts) FROM calls WHERE orderid = ? AND ts >= ?` + inWindow},
		{&f.laterByRef, `SELECT max(ts) FROM calls WHERE external_ref = ? AND ts >= ?` + inWindow},
		{&f.outsideByOrder, `SELECT ` + debit + ` FROM calls WHERE orderid = ?` + outside},
		{&f.outsideByRef, `SELECT ` + debit + ` FROM calls WHERE external_ref = ?` + outside},
		{&f.debitBySvc, cols + `svc_order_id = ? AND upper(txn_mode) <> 'CR' LIMIT 1`},
		{&f.debitByClient, cols + `client_order_id = ? AND upper(txn_mode) <> 'CR' ORDER BY txn_date_time LIMIT 1`},
		{&f.anyBySvc, cols + `svc_order_id = ? LIMIT 1`},
		{&f.refCalls, `SELECT id, ts, outcome, pool_shape, orderid FROM calls WHERE external_ref = ?` + inWindow + ` ORDER BY ts, id`},
	} {
		st, err := db.PrepareContext(ctx, p.q)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("prepare check look-ups: %w", err)
		}
		*p.dst = st
		f.stmts = append(f.stmts, st)
	}
	return f, nil
}

// sqlText quotes s for an SQL string literal (without the quotes).
func sqlText(s string) string { return strings.ReplaceAll(s, "'", "''") }

// Close releases the prepared statements.
func (f *CheckFinder) Close() error {
	var errs []error
	for _, st := range f.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

func (f *CheckFinder) one(ctx context.Context, st *sql.Stmt, arg string) (ledger.Record, bool, error) {
	var r ledger.Record
	err := st.QueryRowContext(ctx, arg).Scan(append([]any{&r.ID}, recordPtrs(&r)...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Record{}, false, nil
	}
	return r, err == nil, err
}

// PeriodRecord returns the window's statement record with this svcOrderId
// (any mode; of several, the last in time order).
func (f *CheckFinder) PeriodRecord(ctx context.Context, svcOrderID string) (ledger.Record, bool, error) {
	return f.one(ctx, f.bySvc, svcOrderID)
}

// PeriodRecordsByClient returns the window's statement records with this
// clientOrderId (any mode), in time order.
func (f *CheckFinder) PeriodRecordsByClient(ctx context.Context, clientOrderID string) ([]ledger.Record, error) {
	return collect(checkSeq(ctx, stmtQuerier{f.byClient}, func(rows *sql.Rows) (ledger.Record, error) {
		var r ledger.Record
		err := rows.Scan(append([]any{&r.ID}, recordPtrs(&r)...)...)
		return r, err
	}, "", clientOrderID))
}

// collect gathers a stream's values; its error ends it.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// stmtQuerier runs a prepared statement as checkSeq's querier (the query
// text is the statement's own).
type stmtQuerier struct{ st *sql.Stmt }

func (s stmtQuerier) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return s.st.QueryContext(ctx, args...)
}

// LaterCalls returns the time of the latest of the window's calls (but
// Skip's) at or after from (IST timestamp) with orderid svcOrderID, or
// externalRef clientOrderID when that is not empty; found is false when
// there is none.
func (f *CheckFinder) LaterCalls(ctx context.Context, svcOrderID, clientOrderID, from string) (last string, found bool, err error) {
	for _, q := range []struct {
		st  *sql.Stmt
		key string
	}{{f.laterByOrder, svcOrderID}, {f.laterByRef, clientOrderID}} {
		if q.key == "" {
			continue
		}
		var ts sql.NullString
		if err := q.st.QueryRowContext(ctx, q.key, from).Scan(&ts); err != nil {
			return "", false, err
		}
		if ts.Valid && ts.String > last {
			last, found = ts.String, true
		}
	}
	return last, found, nil
}

// OutsideCall looks for calls outside the window (but Skip's) with orderid
// svcOrderID, or externalRef clientOrderID when that is not empty: found
// says there is one, debit that one of them debited the pool.
func (f *CheckFinder) OutsideCall(ctx context.Context, svcOrderID, clientOrderID string) (found, debit bool, err error) {
	for _, q := range []struct {
		st  *sql.Stmt
		key string
	}{{f.outsideByOrder, svcOrderID}, {f.outsideByRef, clientOrderID}} {
		if q.key == "" {
			continue
		}
		var d sql.NullInt64
		if err := q.st.QueryRowContext(ctx, q.key).Scan(&d); err != nil {
			return false, false, err
		}
		found = found || d.Valid
		debit = debit || (d.Valid && d.Int64 == 1)
	}
	return found, debit, nil
}

// DebitBySvc returns the debit (not CR) statement record with this
// svcOrderId, of any date.
func (f *CheckFinder) DebitBySvc(ctx context.Context, svcOrderID string) (ledger.Record, bool, error) {
	return f.one(ctx, f.debitBySvc, svcOrderID)
}

// DebitByClient returns the earliest debit (not CR) statement record with
// this clientOrderId, of any date.
func (f *CheckFinder) DebitByClient(ctx context.Context, clientOrderID string) (ledger.Record, bool, error) {
	return f.one(ctx, f.debitByClient, clientOrderID)
}

// Record returns the statement record with this svcOrderId (any mode, any
// date).
func (f *CheckFinder) Record(ctx context.Context, svcOrderID string) (ledger.Record, bool, error) {
	return f.one(ctx, f.anyBySvc, svcOrderID)
}

// RefCalls returns the window's calls (but Skip's) with this externalRef,
// in (ts, id) order.
func (f *CheckFinder) RefCalls(ctx context.Context, ref string) ([]ledger.RefCall, error) {
	return collect(checkSeq(ctx, stmtQuerier{f.refCalls}, func(rows *sql.Rows) (ledger.RefCall, error) {
		var c ledger.RefCall
		err := rows.Scan(&c.ID, &c.TS, &c.Outcome, &c.Shape, &c.OrderID)
		return c, err
	}, "", ref))
}

// RepeatedRefs yields, once each, the externalRefs of more than one call
// of any date, read from the index calls_ref alone (0.2 s at 1,000,000
// calls).
func (f *CheckFinder) RepeatedRefs(ctx context.Context) iter.Seq2[string, error] {
	return checkSeq(ctx, f.db, scanCheckString, `SELECT external_ref FROM calls WHERE external_ref <> ''
		GROUP BY external_ref HAVING count(*) > 1`)
}

// RepeatedClients yields, once each, the clientOrderIds of more than one
// record of any kind and date, read from the index records_client_order
// alone.
func (f *CheckFinder) RepeatedClients(ctx context.Context) iter.Seq2[string, error] {
	return checkSeq(ctx, f.db, scanCheckString, `SELECT client_order_id FROM records WHERE client_order_id <> ''
		GROUP BY client_order_id HAVING count(*) > 1`)
}
