package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// This file is what a reconciliation check reads: the period's calls and
// statement records as ordered streams (each through an index, one query
// per pool account merged by time), a few small sets computed up front,
// and point look-ups for the rare call or record whose counterpart lies
// far away in time (CheckFinder). checks_run.go stores what it finds.
// The types are the reconciliation's own (package ledger): the store maps
// them to tables.

var _ ledger.CheckStore = (*DB)(nil)

// notSkipped is an SQL condition on calls: the operation is not one of
// w.Skip.
func notSkipped(w ledger.Window) string {
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
func checkSeq[T any](ctx context.Context, q querier, scan func(*sql.Rows) (T, error), query string, args ...any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		rows, err := q.QueryContext(ctx, query, args...)
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

// querier is what checkSeq queries: the DB or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func scanCheckString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}

func scanCheckID(rows *sql.Rows) (int64, error) {
	var id int64
	err := rows.Scan(&id)
	return id, err
}

// distinctLeading lists the distinct values of the leading column col of an
// index of table, one index seek each (after the constant conditions of
// where, which must name the index's columns before col): a handful of
// accounts costs a handful of seeks, whatever the table's size.
func (db *DB) distinctLeading(ctx context.Context, table, col, where string, args ...any) ([]string, error) {
	if where != "" {
		where += " AND "
	}
	var out []string
	q := `SELECT min(` + col + `) FROM ` + table + ` WHERE ` + where + col + ` > ?`
	first := `SELECT 1 FROM ` + table + ` WHERE ` + where + col + ` = '' LIMIT 1`
	var one int
	switch err := db.QueryRowContext(ctx, first, args...).Scan(&one); {
	case err == nil:
		out = append(out, "")
	case !errors.Is(err, sql.ErrNoRows):
		return nil, err
	}
	last := ""
	for {
		var v sql.NullString
		if err := db.QueryRowContext(ctx, q, append(append([]any{}, args...), last)...).Scan(&v); err != nil {
			return nil, err
		}
		if !v.Valid {
			return out, nil
		}
		out = append(out, v.String)
		last = v.String
	}
}

// CheckStats refreshes the planner's statistics of the tables the check
// reads (PostgreSQL's; SQLite plans well without). A sync or an import
// just before leaves them stale (autovacuum analyzes a table only some
// time after a large load), and with them the planner took a nested loop
// for CheckOpenRefs: 18 s of a 100,000-call check instead of milliseconds.
//
// A role that may not refresh them (PostgreSQL: not the tables' owner)
// has the owner's svcrecon_analyze do it; where that is denied too and
// they are stale, the error is a *ledger.Warning of a *StaleStats: the
// check goes on.
func (db *DB) CheckStats(ctx context.Context) error {
	err := db.refreshStats(ctx, "calls", "records")
	if stale := (*StaleStats)(nil); errors.As(err, &stale) {
		return &ledger.Warning{Err: err}
	}
	return err
}

// CheckPoolAccounts lists the distinct pool accounts the window's calls
// with a pool entry name (of any operation), at most two: the check only
// needs to know whether there is exactly one. They are kept by day
// (call_accounts); a window that begins or ends within a day (the check's
// never does) has each account of its edge days looked for among its
// calls.
func (db *DB) CheckPoolAccounts(ctx context.Context, w ledger.Window) ([]string, error) {
	from, to := windowDays(w)
	accts, err := collect(checkSeq(ctx, db, scanCheckString, `SELECT DISTINCT account FROM call_accounts
		WHERE day >= ? AND day <= ? ORDER BY account`, from, to))
	if err != nil {
		return nil, err
	}
	whole := w.From == from+" 00:00:00" && w.To == to+" 23:59:59"
	var out []string
	for _, a := range accts {
		if !whole {
			var one int
			err := db.QueryRowContext(ctx, `SELECT 1 FROM calls WHERE ts >= ? AND ts <= ? AND pool_account = ?
				AND pool_shape <> '' LIMIT 1`, w.From, w.To, a).Scan(&one)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				continue
			case err != nil:
				return nil, err
			}
		}
		if out = append(out, a); len(out) == 2 {
			break
		}
	}
	return out, nil
}

// windowDays are the days (YYYY-MM-DD) of the window's first and last
// times.
func windowDays(w ledger.Window) (from, to string) {
	day := func(ts string) string { return ts[:min(len(ts), len(time.DateOnly))] }
	return day(w.From), day(w.To)
}

// CheckRecordAccounts lists the accounts the window's statement records
// name.
func (db *DB) CheckRecordAccounts(ctx context.Context, w ledger.Window) ([]string, error) {
	accts, err := db.distinctLeading(ctx, "records", "account", "kind = ?", string(recon.Statement))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range accts {
		var one int
		err := db.QueryRowContext(ctx, `SELECT 1 FROM records WHERE kind = ? AND account = ?
			AND txn_date_time >= ? AND txn_date_time <= ? LIMIT 1`, string(recon.Statement), a, w.From, w.To).Scan(&one)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, err
		default:
			out = append(out, a)
		}
	}
	return out, nil
}

// CheckEdges says what is stored beyond the window: a statement record
// dated after it (of any account), a call (but Skip's) before it.
func (db *DB) CheckEdges(ctx context.Context, w ledger.Window) (ledger.Edges, error) {
	var e ledger.Edges
	accts, err := db.distinctLeading(ctx, "records", "account", "kind = ?", string(recon.Statement))
	if err != nil {
		return e, err
	}
	for _, a := range accts {
		if e.RecordsAfter, err = db.exists(ctx, `SELECT 1 FROM records WHERE kind = ? AND account = ?
			AND txn_date_time > ? LIMIT 1`, string(recon.Statement), a, w.To); err != nil || e.RecordsAfter {
			break
		}
	}
	if err == nil {
		e.CallsBefore, err = db.exists(ctx, `SELECT 1 FROM calls WHERE ts < ? AND `+notSkipped(w)+` LIMIT 1`, w.From)
	}
	return e, err
}

// exists reports whether query (SELECT 1 … LIMIT 1) finds a row.
func (db *DB) exists(ctx context.Context, query string, args ...any) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// CheckResentPending lists the window's pending calls whose externalRef was
// debited by a later (or same-second) successful call: re-sent and executed.
// (The redundant outcome <> 'success' lets SQLite read the pending calls
// through the calls_open index.)
func (db *DB) CheckResentPending(ctx context.Context, w ledger.Window) ([]int64, error) {
	return collect(checkSeq(ctx, db, scanCheckID, `SELECT p.id FROM calls p
		WHERE p.outcome = 'pending' AND p.outcome <> 'success' AND p.ts >= ? AND p.ts <= ? AND p.external_ref <> ''
		AND EXISTS (SELECT 1 FROM calls s WHERE s.external_ref = p.external_ref AND s.id <> p.id
			AND s.outcome = 'success' AND s.pool_shape <> '' AND s.ts >= p.ts)`, w.From, w.To))
}

// CheckLookups yields, for each of the window's pending calls with an
// externalRef, the successful op calls of that externalRef at or after it,
// ordered by pending call id, then look-up time: the newest comes last.
func (db *DB) CheckLookups(ctx context.Context, w ledger.Window, op string) iter.Seq2[ledger.Lookup, error] {
	return checkSeq(ctx, db, func(rows *sql.Rows) (ledger.Lookup, error) {
		var l ledger.Lookup
		err := rows.Scan(&l.PendingID, &l.Response)
		return l, err
	}, `SELECT p.id, t.response FROM calls p
		JOIN calls t ON t.external_ref = p.external_ref AND t.operation = ? AND t.outcome = 'success' AND t.ts >= p.ts
		WHERE p.outcome = 'pending' AND p.outcome <> 'success' AND p.ts >= ? AND p.ts <= ? AND p.external_ref <> ''
		ORDER BY p.id, t.ts, t.id`, op, w.From, w.To)
}

// CheckOpenRefs lists the externalRefs of the window's calls that did not
// succeed (as stored: failed or pending) for which some statement record of
// the window carries that clientOrderId. Only those calls can be linked to
// a record by externalRef alone; the check looks up no other.
//
// The externalRefs are put in order before they are looked up among the
// records: the look-ups then walk the index records_client_order from
// one end to the other instead of reading a random page of it each, which
// at 10,000,000 records (290 MB of index, 246,000 open calls) took 3.5 s
// of reads from the file where in order they take 0.5 s.
func (db *DB) CheckOpenRefs(ctx context.Context, w ledger.Window) ([]string, error) {
	return collect(checkSeq(ctx, db, scanCheckString, `WITH o AS MATERIALIZED (
			SELECT DISTINCT external_ref AS ref FROM calls
			WHERE outcome <> 'success' AND ts >= ? AND ts <= ? AND external_ref <> '' ORDER BY 1)
		SELECT ref FROM o WHERE EXISTS (SELECT 1 FROM records r WHERE r.client_order_id = o.ref AND r.kind = ?
			AND r.txn_date_time >= ? AND r.txn_date_time <= ?)`,
		w.From, w.To, string(recon.Statement), w.From, w.To))
}

// CheckCalls yields the window's calls (but Skip's) in (ts, id) order, with
// the fields the check reads: ID, TS, Operation, ExternalRef, OrderID,
// Outcome and the pool entry but its mode. It reads them in time order
// through the index that keeps calls unique, (ts, line_hash), and puts
// the calls of each second in id order itself (cheaper than the engine's
// sort of each second).
func (db *DB) CheckCalls(ctx context.Context, w ledger.Window) iter.Seq2[recon.Call, error] {
	return idsInSecond(prefetch(ctx, db.checkCallRows(ctx, `SELECT id, `+callCheckText+` FROM calls
		WHERE ts >= ? AND ts <= ? AND `+notSkipped(w)+` ORDER BY ts`, w.From, w.To)))
}

// idsInSecond yields the calls of calls, which come in ts order, in (ts,
// id) order: the calls of one second are held and put in id order.
func idsInSecond(calls iter.Seq2[recon.Call, error]) iter.Seq2[recon.Call, error] {
	return func(yield func(recon.Call, error) bool) {
		var second []recon.Call
		flush := func() bool {
			slices.SortFunc(second, func(a, b recon.Call) int { return cmp.Compare(a.ID, b.ID) })
			for _, c := range second {
				if !yield(c, nil) {
					return false
				}
			}
			second = second[:0]
			return true
		}
		for c, err := range calls {
			if err != nil {
				yield(c, err)
				return
			}
			if len(second) > 0 && second[0].TS != c.TS && !flush() {
				return
			}
			second = append(second, c)
		}
		flush()
	}
}

// maxMerged bounds the per-account streams of records a check merges (each
// holds a connection); beyond it, one query sorts them all.
const maxMerged = 4

// recordStreams is how many per-account streams of records a check may
// merge: maxMerged, fewer when the pool has no room for them beside the
// other connections a check holds (checkConns).
func (db *DB) recordStreams() int {
	if pool := db.Stats().MaxOpenConnections; pool > 0 {
		return max(1, min(maxMerged, pool-checkConns))
	}
	return maxMerged
}

// unitSep separates the fields of a row read as one text (callCheckText,
// recordCheckText): a row costs the driver one column instead of ten. A
// value holding the separator itself is detected (the row splits into the
// wrong number of fields) and its row read again column by column.
const unitSep = "\x1f"

// concatCols is the SQL that joins the text columns cols with unitSep: one
// call of concat_ws (both engines have it), the row's text built in one
// piece rather than grown once per column by ||, which at 31 columns was
// half of SQLite's work in reading a record. The columns are never NULL
// (concat_ws would skip one, and the row would not split).
func concatCols(cols ...string) string {
	return "concat_ws('" + unitSep + "', " + strings.Join(cols, ", ") + ")"
}

var callCheckCols = []string{"ts", "operation", "external_ref", "orderid", "outcome", "pool_account", "pool_shape",
	"pool_opening", "pool_amount", "pool_closing"}

var callCheckText = concatCols(callCheckCols...)

// checkCallRows runs one calls query of CheckCalls (the caller
// prefetches it).
func (db *DB) checkCallRows(ctx context.Context, query string, args ...any) iter.Seq2[recon.Call, error] {
	var f [10]string
	return checkSeq(ctx, db, func(rows *sql.Rows) (recon.Call, error) {
		var id int64 // not &c.ID: the call would escape to the heap, 440 bytes a row
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return recon.Call{}, err
		}
		if !splitInto(text, f[:]) {
			return db.checkCallByID(ctx, id)
		}
		c := recon.Call{ID: id}
		c.TS, c.Operation, c.ExternalRef, c.OrderID, c.Outcome = f[0], f[1], f[2], f[3], recon.CallOutcome(f[4])
		c.Pool = recon.PoolEntry{Account: f[5], Shape: f[6], Opening: f[7], Amount: f[8], Closing: f[9]}
		return c, nil
	}, query, args...)
}

// checkCallByID reads one call column by column (a value held unitSep).
func (db *DB) checkCallByID(ctx context.Context, id int64) (recon.Call, error) {
	c := recon.Call{ID: id}
	p := &c.Pool
	var outcome string
	err := db.QueryRowContext(ctx, `SELECT `+strings.Join(callCheckCols, ", ")+` FROM calls WHERE id = ?`, id).
		Scan(&c.TS, &c.Operation, &c.ExternalRef, &c.OrderID, &outcome, &p.Account, &p.Shape, &p.Opening, &p.Amount, &p.Closing)
	c.Outcome = recon.CallOutcome(outcome)
	return c, err
}

// splitOrRead fills f from a row's joined text (concatCols), or, when the
// text does not split (a value held the separator), by reading row id
// again column by column with query (its one parameter, the id).
func (db *DB) splitOrRead(ctx context.Context, text string, f []string, query string, id int64) error {
	if splitInto(text, f) {
		return nil
	}
	ptrs := make([]any, len(f))
	for i := range f {
		ptrs[i] = &f[i]
	}
	return db.QueryRowContext(ctx, query, id).Scan(ptrs...)
}

// splitInto splits s at unitSep into exactly len(f) fields; false when the
// count differs (a field held the separator).
func splitInto(s string, f []string) bool {
	for i := range f {
		if i == len(f)-1 {
			if strings.Contains(s, unitSep) {
				return false
			}
			f[i] = s
			return true
		}
		j := strings.Index(s, unitSep)
		if j < 0 {
			return false
		}
		f[i], s = s[:j], s[j+1:]
	}
	return true
}

var recordCheckCols = []string{"account", "svc_order_id", "client_order_id", "txn_date_time", "txn_mode",
	"txn_charged_value", "reversal_svc_order_id", "product_code", "status"}

var recordCheckText = concatCols(recordCheckCols...)

// recordPtrs are the destinations of recordCheckCols in r.
func recordPtrs(r *ledger.Record) []any {
	return []any{&r.Account, &r.SvcOrderID, &r.ClientOrderID, &r.TxnDateTime, &r.TxnMode, &r.Amount,
		&r.ReversalSvcOrderID, &r.ProductCode, &r.Status}
}

// CheckStatement yields the window's statement records in (txnDateTime,
// svcOrderId, account) order, with the fields the check reads. It reads
// one index range per account and merges them.
func (db *DB) CheckStatement(ctx context.Context, w ledger.Window) iter.Seq2[ledger.Record, error] {
	return func(yield func(ledger.Record, error) bool) {
		accts, err := db.distinctLeading(ctx, "records", "account", "kind = ?", string(recon.Statement))
		if err != nil {
			yield(ledger.Record{}, err)
			return
		}
		cols := `SELECT id, ` + recordCheckText + ` FROM records WHERE kind = ? AND `
		const cond = `txn_date_time >= ? AND txn_date_time <= ? ORDER BY txn_date_time, svc_order_id, account`
		var streams []iter.Seq2[ledger.Record, error]
		if len(accts) > db.recordStreams() {
			streams = append(streams, db.checkRecordRows(ctx, cols+cond, string(recon.Statement), w.From, w.To))
		} else {
			for _, a := range accts {
				streams = append(streams, db.checkRecordRows(ctx, cols+`account = ? AND `+cond, string(recon.Statement), a, w.From, w.To))
			}
		}
		for r, err := range mergeBy(streams, func(a, b *ledger.Record) bool {
			if a.TxnDateTime != b.TxnDateTime {
				return a.TxnDateTime < b.TxnDateTime
			}
			if a.SvcOrderID != b.SvcOrderID {
				return a.SvcOrderID < b.SvcOrderID
			}
			return a.Account < b.Account
		}) {
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// checkRecordRows runs one records query of CheckStatement.
func (db *DB) checkRecordRows(ctx context.Context, query string, args ...any) iter.Seq2[ledger.Record, error] {
	var f [9]string
	return prefetch(ctx, checkSeq(ctx, db, func(rows *sql.Rows) (ledger.Record, error) {
		var id int64 // not &r.ID: the record would escape to the heap
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return ledger.Record{}, err
		}
		if !splitInto(text, f[:]) {
			rec, _, err := db.checkRecordWhere(ctx, `id = ?`, id)
			return rec, err
		}
		r := ledger.Record{ID: id}
		r.Account, r.SvcOrderID, r.ClientOrderID, r.TxnDateTime = f[0], f[1], f[2], f[3]
		r.TxnMode, r.Amount, r.ReversalSvcOrderID, r.ProductCode, r.Status = f[4], f[5], f[6], f[7], f[8]
		return r, nil
	}, query, args...))
}

// checkRecordWhere returns the first statement record matching cond, and
// false when there is none.
func (db *DB) checkRecordWhere(ctx context.Context, cond string, args ...any) (ledger.Record, bool, error) {
	var r ledger.Record
	err := db.QueryRowContext(ctx, `SELECT id, `+strings.Join(recordCheckCols, ", ")+` FROM records WHERE `+cond,
		args...).Scan(append([]any{&r.ID}, recordPtrs(&r)...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Record{}, false, nil
	}
	return r, err == nil, err
}

// CheckUnsettled yields the collect orders of days up to to (YYYY-MM-DD)
// with no settlement, in (txnDateTime, svcOrderId) order: svcOrderId,
// clientOrderId, txnDateTime, txnDate and txnChargedValue.
func (db *DB) CheckUnsettled(ctx context.Context, to string) iter.Seq2[recon.Record, error] {
	return checkSeq(ctx, db, func(rows *sql.Rows) (recon.Record, error) {
		r := recon.Record{Kind: recon.Orders}
		v := &r.Values
		err := rows.Scan(&r.Account, &r.SvcOrderID, &v[recon.FClientOrderID], &v[recon.FTxnDateTime], &v[recon.FTxnDate],
			&v[recon.FTxnChargedValue])
		return r, err
	}, `SELECT account, svc_order_id, client_order_id, txn_date_time, txn_date, txn_charged_value FROM records
		WHERE kind = ? AND txn_date <= ? AND settlement_svc_order_id = ''
		ORDER BY txn_date_time, svc_order_id`, string(recon.Orders), to)
}

// mergeBy merges streams each ordered by less into one ordered stream. An
// error of any stream ends it.
func mergeBy[T any](streams []iter.Seq2[T, error], less func(a, b *T) bool) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if len(streams) == 1 {
			for v, err := range streams[0] {
				if !yield(v, err) || err != nil {
					return
				}
			}
			return
		}
		type head struct {
			next func() (T, error, bool)
			stop func()
			v    T
			ok   bool
		}
		heads := make([]*head, len(streams))
		defer func() {
			for _, h := range heads {
				if h != nil {
					h.stop()
				}
			}
		}()
		var zero T
		for i, s := range streams {
			next, stop := iter.Pull2(s)
			h := &head{next: next, stop: stop}
			heads[i] = h
			var err error
			if h.v, err, h.ok = next(); err != nil {
				yield(zero, err)
				return
			}
		}
		for {
			var min *head
			for _, h := range heads {
				if h.ok && (min == nil || less(&h.v, &min.v)) {
					min = h
				}
			}
			if min == nil {
				return
			}
			if !yield(min.v, nil) {
				return
			}
			var err error
			if min.v, err, min.ok = min.next(); err != nil {
				yield(zero, err)
				return
			}
		}
	}
}

// prefetchBatch is how many rows a prefetching stream reads ahead per
// hand-over.
const prefetchBatch = 512

// prefetch runs seq in a goroutine of its own, handing its values over in
// batches, so that reading the database overlaps with what the consumer
// does with them (the check reads two streams and writes a third at once).
// It stops, and waits for the goroutine, when the consumer stops. The
// batches go back to the goroutine once read (the consumer is given
// copies of the values), so a stream allocates a handful of batches
// whatever its length: at 1M calls, fresh batches were 460 MB of the
// check's allocations.
func prefetch[T any](ctx context.Context, seq iter.Seq2[T, error]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		out := make(chan batch[T], 4)
		free := make(chan []T, 6) // out's batches, the one being read and the one being filled
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(out)
			fill(ctx, seq, out, free)
		}()
		defer func() {
			cancel()
			for range out {
			}
			<-done
		}()
		for b := range out {
			for _, v := range b.vals {
				if !yield(v, nil) {
					return
				}
			}
			if b.err != nil {
				var zero T
				yield(zero, b.err)
				return
			}
			select {
			case free <- b.vals[:0]:
			default:
			}
		}
	}
}

// batch is a hand-over of prefetch: values read, and the stream's error
// after them.
type batch[T any] struct {
	vals []T
	err  error
}

// fill is prefetch's goroutine: it reads seq into batches (taken from
// free when one came back) and sends them to out, the last with seq's
// error, until seq ends or ctx is done.
func fill[T any](ctx context.Context, seq iter.Seq2[T, error], out chan<- batch[T], free <-chan []T) {
	next := func() []T {
		select {
		case b := <-free:
			return b
		default:
			return make([]T, 0, prefetchBatch)
		}
	}
	send := func(vals []T, err error) bool {
		select {
		case out <- batch[T]{vals, err}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	b := next()
	for v, err := range seq {
		if err != nil {
			send(b, err)
			return
		}
		if b = append(b, v); len(b) == prefetchBatch {
			if !send(b, nil) {
				return
			}
			b = next()
		}
	}
	if len(b) > 0 {
		send(b, nil)
	}
}
