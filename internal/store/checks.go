package store

import (
	"context"
	"database/sql"
	"errors"
	"iter"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// CheckWindow is the period a reconciliation check reads: calls and
// statement records whose time (recon.TimestampLayout, IST) lies in
// [From, To]. Calls of the operations named in Skip (read-only ones: no
// transactions of the pool) are left out of the calls the check counts and
// matches.
type CheckWindow struct {
	From, To string
	Skip     []string
}

// notSkipped is an SQL condition on calls: the operation is not in Skip.
func (w CheckWindow) notSkipped() string {
	if len(w.Skip) == 0 {
		return "1 = 1"
	}
	q := make([]string, len(w.Skip))
	for i, op := range w.Skip {
		q[i] = "'" + strings.ReplaceAll(op, "'", "''") + "'"
	}
	return "operation NOT IN (" + strings.Join(q, ", ") + ")"
}

// checkSeq runs a query and yields each row scanned by scan; a failure is
// yielded once, as the last pair.
func checkSeq[T any](ctx context.Context, db *DB, scan func(*sql.Rows) (T, error), query string, args ...any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			yield(zero, err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				yield(zero, err)
				return
			}
			if !yield(v, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(zero, err)
		}
	}
}

// CheckPoolAccounts lists the distinct pool accounts the window's calls
// name (of any operation).
func (db *DB) CheckPoolAccounts(ctx context.Context, w CheckWindow) ([]string, error) {
	var out []string
	for a, err := range checkSeq(ctx, db, scanCheckString, `SELECT DISTINCT pool_account FROM calls
		WHERE ts >= ? AND ts <= ? AND pool_shape <> '' AND pool_account <> ''`, w.From, w.To) {
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func scanCheckString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}

// CheckCalls yields the window's calls (but Skip's) in (ts, id) order, with
// the fields the check reads: ID, TS, Operation, ExternalRef, OrderID,
// Outcome and the pool entry but its mode.
func (db *DB) CheckCalls(ctx context.Context, w CheckWindow) iter.Seq2[recon.Call, error] {
	return checkSeq(ctx, db, func(rows *sql.Rows) (recon.Call, error) {
		var c recon.Call
		p := &c.Pool
		err := rows.Scan(&c.ID, &c.TS, &c.Operation, &c.ExternalRef, &c.OrderID, &c.Outcome,
			&p.Account, &p.Shape, &p.Opening, &p.Amount, &p.Closing)
		return c, err
	}, `SELECT id, ts, operation, external_ref, orderid, outcome,
		pool_account, pool_shape, pool_opening, pool_amount, pool_closing
		FROM calls WHERE ts >= ? AND ts <= ? AND `+w.notSkipped()+` ORDER BY ts, id`, w.From, w.To)
}

// CheckResentPending lists the window's pending calls whose externalRef was
// debited by a later (or same-second) successful call: re-sent and executed.
func (db *DB) CheckResentPending(ctx context.Context, w CheckWindow) ([]int64, error) {
	var out []int64
	for id, err := range checkSeq(ctx, db, scanCheckID, `SELECT p.id FROM calls p
		WHERE p.outcome = 'pending' AND p.ts >= ? AND p.ts <= ? AND p.external_ref <> ''
		AND EXISTS (SELECT 1 FROM calls s WHERE s.external_ref = p.external_ref AND s.id <> p.id
			AND s.outcome = 'success' AND s.pool_shape <> '' AND s.ts >= p.ts)`, w.From, w.To) {
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

func scanCheckID(rows *sql.Rows) (int64, error) {
	var id int64
	err := rows.Scan(&id)
	return id, err
}

// CheckLookup is a successful look-up call (operation op of CheckLookups)
// made at or after a pending call of the same externalRef.
type CheckLookup struct {
	PendingID int64  // the pending call
	Response  []byte // the look-up's redacted response envelope
}

// CheckLookups yields, for each of the window's pending calls with an
// externalRef, the successful op calls of that externalRef at or after it,
// ordered by pending call id, then look-up time: the newest comes last.
func (db *DB) CheckLookups(ctx context.Context, w CheckWindow, op string) iter.Seq2[CheckLookup, error] {
	return checkSeq(ctx, db, func(rows *sql.Rows) (CheckLookup, error) {
		var l CheckLookup
		err := rows.Scan(&l.PendingID, &l.Response)
		return l, err
	}, `SELECT p.id, t.response FROM calls p
		JOIN calls t ON t.external_ref = p.external_ref AND t.operation = ? AND t.outcome = 'success' AND t.ts >= p.ts
		WHERE p.outcome = 'pending' AND p.ts >= ? AND p.ts <= ? AND p.external_ref <> ''
		ORDER BY p.id, t.ts, t.id`, op, w.From, w.To)
}

// checkRecordCols are the record columns the check reads, in scanCheckRecord's
// order.
const checkRecordCols = `kind, account, svc_order_id, client_order_id, txn_date_time, txn_date, txn_mode,
	txn_charged_value, reversal_svc_order_id, settlement_svc_order_id, product_code`

// scanCheckRecord reads checkRecordCols into a Record; its other fields stay empty.
func scanCheckRecord(sc interface{ Scan(...any) error }) (recon.Record, error) {
	var r recon.Record
	var kind string
	v := &r.Values
	err := sc.Scan(&kind, &r.Account, &r.SvcOrderID, &v[recon.FClientOrderID], &v[recon.FTxnDateTime],
		&v[recon.FTxnDate], &v[recon.FTxnMode], &v[recon.FTxnChargedValue], &v[recon.FReversalSvcOrderID],
		&v[recon.FSettlementSvcOrderID], &v[recon.FProductCode])
	r.Kind = recon.Kind(kind)
	return r, err
}

func scanCheckRecordRows(rows *sql.Rows) (recon.Record, error) { return scanCheckRecord(rows) }

// CheckStatement yields the window's statement records in (txnDateTime,
// svcOrderId) order, with the fields the check reads (kind, account,
// svcOrderId, clientOrderId, txnDateTime, txnDate, txnMode,
// txnChargedValue, reversalSvcOrderId, productCode).
func (db *DB) CheckStatement(ctx context.Context, w CheckWindow) iter.Seq2[recon.Record, error] {
	return checkSeq(ctx, db, scanCheckRecordRows, `SELECT `+checkRecordCols+` FROM records
		WHERE kind = ? AND txn_date_time >= ? AND txn_date_time <= ?
		ORDER BY txn_date_time, svc_order_id`, string(recon.Statement), w.From, w.To)
}

// CheckUnsettled yields the collect orders of days up to to (YYYY-MM-DD)
// with no settlement, in (txnDateTime, svcOrderId) order.
func (db *DB) CheckUnsettled(ctx context.Context, to string) iter.Seq2[recon.Record, error] {
	return checkSeq(ctx, db, scanCheckRecordRows, `SELECT `+checkRecordCols+` FROM records
		WHERE kind = ? AND txn_date <= ? AND settlement_svc_order_id = ''
		ORDER BY txn_date_time, svc_order_id`, string(recon.Orders), to)
}

// queryCheckRecord returns the first record of query, and false when there is none.
func (db *DB) queryCheckRecord(ctx context.Context, query string, args ...any) (recon.Record, bool, error) {
	r, err := scanCheckRecord(db.QueryRowContext(ctx, `SELECT `+checkRecordCols+` FROM records WHERE `+query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return recon.Record{}, false, nil
	}
	if err != nil {
		return recon.Record{}, false, err
	}
	return r, true, nil
}

// CheckDebitBySvc returns the debit (not CR) statement record with this
// svcOrderId, of any date.
func (db *DB) CheckDebitBySvc(ctx context.Context, svcOrderID string) (recon.Record, bool, error) {
	return db.queryCheckRecord(ctx, `svc_order_id = ? AND kind = ? AND upper(txn_mode) <> 'CR' LIMIT 1`,
		svcOrderID, string(recon.Statement))
}

// CheckDebitByClient returns the earliest debit (not CR) statement record
// with this clientOrderId, of any date.
func (db *DB) CheckDebitByClient(ctx context.Context, clientOrderID string) (recon.Record, bool, error) {
	return db.queryCheckRecord(ctx, `client_order_id = ? AND kind = ? AND upper(txn_mode) <> 'CR'
		ORDER BY txn_date_time LIMIT 1`, clientOrderID, string(recon.Statement))
}

// CheckRecord returns the statement record with this svcOrderId (any mode,
// any date).
func (db *DB) CheckRecord(ctx context.Context, svcOrderID string) (recon.Record, bool, error) {
	return db.queryCheckRecord(ctx, `svc_order_id = ? AND kind = ? LIMIT 1`, svcOrderID, string(recon.Statement))
}

// CheckOutsideCall looks for calls outside the window (but Skip's) with
// orderid svcOrderID, or externalRef clientOrderID when that is not empty:
// found says there is one, debit that one of them debited the pool.
func (db *DB) CheckOutsideCall(ctx context.Context, w CheckWindow, svcOrderID, clientOrderID string) (found, debit bool, err error) {
	var d sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT max(CASE WHEN pool_shape <> '' AND outcome = 'success' THEN 1 ELSE 0 END) FROM calls
		WHERE (orderid = ?1 OR (?2 <> '' AND external_ref = ?2)) AND (ts < ?3 OR ts > ?4) AND `+w.notSkipped(),
		svcOrderID, clientOrderID, w.From, w.To).Scan(&d)
	if err != nil {
		return false, false, err
	}
	return d.Valid, d.Valid && d.Int64 == 1, nil
}

// CheckRun identifies a reconciliation run: its period and as-of date
// (YYYY-MM-DD) and its start.
type CheckRun struct {
	From, To, AsOf string
	Started        time.Time
}

// CheckBreak is one row of recon_breaks. Amounts are exact decimal text;
// a zero call id is stored as NULL.
type CheckBreak struct {
	PoolAccount, Kind       string
	CallID, PrevCallID      int64
	TS, ExternalRef         string
	Expected, Actual, Delta string
	ExplainedBy             []string
	Note                    string
}

// CheckMatch is one row of recon_matches; a zero call id is stored as NULL.
type CheckMatch struct {
	Outcome         string
	CallID          int64
	SvcOrderID      string
	ExternalRef     string
	Operation       string
	TS              string
	CallAmount      string
	StatementAmount string
	Delta           string
	Note            string
	SuggestedPair   string // the suggested counterpart and why ("" = none); never a match
}

// CheckReversal is one row of recon_reversals.
type CheckReversal struct {
	SvcOrderID, ReversalSvcOrderID, TxnDateTime, Amount string
	Found                                               bool
	ReversalTxnDateTime, ReversalAmount, Note           string
}

// CheckUnsettled is one row of recon_unsettled.
type CheckUnsettled struct {
	SvcOrderID, ClientOrderID, TxnDateTime, Amount string
	AgeDays                                        int
	AgeBucket                                      string
}

// CheckResults are what a run found, yielded in the order they are stored,
// and its JSON summary. Finished is called when the rows are written.
type CheckResults struct {
	Breaks    iter.Seq[CheckBreak]
	Matches   iter.Seq[CheckMatch]
	Reversals iter.Seq[CheckReversal]
	Unsettled iter.Seq[CheckUnsettled]
	Summary   []byte
	Finished  func() time.Time
}

// SaveCheckRun stores a run and its rows in one transaction, deletes the
// rows of earlier runs of the same period and marks those superseded by it
// (their summaries stay). It returns the new run's id.
func (db *DB) SaveCheckRun(ctx context.Context, run CheckRun, res CheckResults) (int64, error) {
	var id int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, state)
			VALUES (?, ?, ?, ?, 'running') RETURNING id`, run.From, run.To, run.AsOf, FormatTime(run.Started)).Scan(&id); err != nil {
			return err
		}
		if err := insertCheckRows(ctx, tx, id, res); err != nil {
			return err
		}
		for _, t := range []string{"recon_breaks", "recon_matches", "recon_reversals", "recon_unsettled"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE run_id IN (SELECT id FROM recon_runs
				WHERE period_from = ? AND period_to = ? AND id <> ?)`, run.From, run.To, id); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE recon_runs SET superseded_by = ?1
			WHERE period_from = ?2 AND period_to = ?3 AND id <> ?1 AND superseded_by IS NULL`,
			id, run.From, run.To); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE recon_runs SET state = 'ok', finished_at = ?, summary = ? WHERE id = ?`,
			FormatTime(res.Finished()), string(res.Summary), id)
		return err
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// FailCheckRun records a run that failed, finished at finished, so that
// the history shows the attempt.
func (db *DB) FailCheckRun(ctx context.Context, run CheckRun, finished time.Time) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, finished_at, state)
			VALUES (?, ?, ?, ?, ?, 'failed')`, run.From, run.To, run.AsOf, FormatTime(run.Started), FormatTime(finished))
		return err
	})
}

// checkNullID stores a zero id as NULL.
func checkNullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func insertCheckRows(ctx context.Context, tx *sql.Tx, run int64, res CheckResults) (err error) {
	br := newCheckBatch(tx, `INSERT INTO recon_breaks (run_id, pool_account, kind, call_id, prev_call_id,
		ts, external_ref, expected, actual, delta, explained_by, note) VALUES `, 12)
	mt := newCheckBatch(tx, `INSERT INTO recon_matches (run_id, outcome, call_id, svc_order_id,
		external_ref, operation, ts, call_amount, statement_amount, delta, note, suggested_pair) VALUES `, 12)
	rv := newCheckBatch(tx, `INSERT INTO recon_reversals (run_id, svc_order_id, reversal_svc_order_id,
		txn_date_time, amount, reversal_found, reversal_txn_date_time, reversal_amount, note) VALUES `, 9)
	un := newCheckBatch(tx, `INSERT INTO recon_unsettled (run_id, svc_order_id, client_order_id,
		txn_date_time, amount, age_days, age_bucket) VALUES `, 7)
	batches := []*checkBatch{br, mt, rv, un}
	defer func() {
		for _, b := range batches {
			err = errors.Join(err, b.release())
		}
	}()
	err = eachCheckRow(res.Breaks, func(b CheckBreak) error {
		return br.add(ctx, run, b.PoolAccount, b.Kind, checkNullID(b.CallID), checkNullID(b.PrevCallID), b.TS,
			b.ExternalRef, b.Expected, b.Actual, b.Delta, strings.Join(b.ExplainedBy, ","), b.Note)
	})
	if err == nil {
		err = eachCheckRow(res.Matches, func(m CheckMatch) error {
			return mt.add(ctx, run, m.Outcome, checkNullID(m.CallID), m.SvcOrderID, m.ExternalRef, m.Operation,
				m.TS, m.CallAmount, m.StatementAmount, m.Delta, m.Note, m.SuggestedPair)
		})
	}
	if err == nil {
		err = eachCheckRow(res.Reversals, func(r CheckReversal) error {
			found := 0
			if r.Found {
				found = 1
			}
			return rv.add(ctx, run, r.SvcOrderID, r.ReversalSvcOrderID, r.TxnDateTime, r.Amount, found,
				r.ReversalTxnDateTime, r.ReversalAmount, r.Note)
		})
	}
	if err == nil {
		err = eachCheckRow(res.Unsettled, func(u CheckUnsettled) error {
			return un.add(ctx, run, u.SvcOrderID, u.ClientOrderID, u.TxnDateTime, u.Amount, u.AgeDays, u.AgeBucket)
		})
	}
	for _, b := range batches {
		if err != nil {
			break
		}
		err = b.flush(ctx)
	}
	return err
}

// eachCheckRow calls fn for each row of seq (none when seq is nil) and stops at
// its first error.
func eachCheckRow[T any](seq iter.Seq[T], fn func(T) error) error {
	if seq == nil {
		return nil
	}
	for v := range seq {
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

// checkBatchRows is how many rows one INSERT statement of a checkBatch carries.
const checkBatchRows = 64

// checkBatch inserts rows checkBatchRows at a time with one multi-row
// INSERT (prepared once), which spares most of the per-statement cost.
type checkBatch struct {
	tx     *sql.Tx
	prefix string // INSERT INTO t (cols) VALUES
	cols   int
	full   *sql.Stmt
	args   []any
}

func newCheckBatch(tx *sql.Tx, prefix string, cols int) *checkBatch {
	return &checkBatch{tx: tx, prefix: prefix, cols: cols}
}

func (b *checkBatch) query(rows int) string {
	one := "(" + strings.Repeat("?,", b.cols-1) + "?)"
	return b.prefix + strings.Repeat(one+",", rows-1) + one
}

func (b *checkBatch) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < checkBatchRows*b.cols {
		return nil
	}
	if b.full == nil {
		st, err := b.tx.PrepareContext(ctx, b.query(checkBatchRows))
		if err != nil {
			return err
		}
		b.full = st
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args = b.args[:0]
	return err
}

// flush inserts the rows left.
func (b *checkBatch) flush(ctx context.Context) error {
	n := len(b.args) / b.cols
	if n == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, b.query(n), b.args...)
	b.args = b.args[:0]
	return err
}

// release closes the prepared statement.
func (b *checkBatch) release() error {
	if b.full == nil {
		return nil
	}
	err := b.full.Close()
	b.full = nil
	return err
}
