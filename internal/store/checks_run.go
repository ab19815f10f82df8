package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// FailCheckRun records a run that did not finish, in state
// (ledger.RunFailed or ledger.RunInterrupted), finished at finished, so
// that the history shows the attempt.
func (db *DB) FailCheckRun(ctx context.Context, run ledger.Run, state string, finished time.Time) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, finished_at, state)
			VALUES (?, ?, ?, ?, ?, ?)`, run.From, run.To, run.AsOf, FormatTime(run.Started), FormatTime(finished), state)
		return err
	})
}

// CheckRunWriter stores a run's results as they are found: rows are
// gathered in batches, handed to a goroutine of its own and inserted in
// one transaction, opened by BeginCheckRun and committed by Commit, so
// that writing overlaps the check's reading and a run that stops half-way
// (an error, a kill) leaves nothing behind. Its methods are for one
// goroutine; after an error they do nothing and Err reports it.
type CheckRunWriter struct {
	dialect dialect
	id      int64
	seq     int64 // recon_matched rows added
	ops     chan checkOp
	stopped chan struct{} // closed when the goroutine takes no more operations
	done    chan error    // the transaction's outcome
	closed  bool
	err     error

	batch   int                     // rows of a batch handed over
	pending [len(checkTables)][]any // row values not handed over yet, per table
	inserts []*rowInsert            // the tables' inserts, in the goroutine
}

// checkOp is one unit of the writer goroutine's work.
type checkOp struct {
	table   int   // one of the check tables, for rows
	args    []any // rows' values
	rewrite *rewriteOp
	end     *checkEnd
}

type checkEnd struct {
	summary  []byte
	finished func() time.Time
}

// rewriteOp is RewriteMatches in the writer's goroutine.
type rewriteOp struct {
	refs    []string
	rewrite func(ledger.Match) (ledger.Match, bool)
	reply   chan error
}

// The check tables (and recon_matched, where the plain matched rows go:
// they are most of a run's rows, and need fewer values).
const (
	tBreaks = iota
	tMatches
	tMatched
	tReversals
	tUnsettled
	tDifferences
	tFees // fees.go
)

// checkTables are the check tables and the columns of their rows' values
// (each row's run_id is the run's id).
var checkTables = [...]struct {
	table string
	cols  []string
}{
	{"recon_breaks", []string{"pool_account", "kind", "call_id", "prev_call_id", "ts", "external_ref", "expected",
		"actual", "delta", "explained_by", "note"}},
	{"recon_matches", []string{"outcome", "call_id", "svc_order_id", "external_ref", "operation", "ts",
		"call_amount", "statement_amount", "delta", "note", "suggested_pair", "group_id"}},
	{"recon_matched", []string{"seq", "call_id", "svc_order_id", "amount"}},
	{"recon_reversals", []string{"svc_order_id", "reversal_svc_order_id", "txn_date_time", "amount",
		"reversal_found", "reversal_txn_date_time", "reversal_amount", "note"}},
	{"recon_unsettled", []string{"svc_order_id", "client_order_id", "txn_date_time", "amount", "age_days",
		"age_bucket"}},
	{"recon_differences", []string{"call_id", "svc_order_id", "external_ref", "operation", "ts", "field", "call_value",
		"statement_value", "difference", "note"}},
	{"recon_fees", feesCols},
}

// checkBatchRows is how many rows one INSERT statement of the writer
// carries (SQLite), and how many a batch handed to its goroutine holds
// there (dialect.batchRows).
const checkBatchRows = 256

// BeginCheckRun starts storing run: it opens the transaction (holding the
// database's writer for the run's length) and records the run as running.
// The caller adds rows and must end with Commit or Abort.
func (db *DB) BeginCheckRun(ctx context.Context, run ledger.Run) (ledger.RunWriter, error) {
	if pool := db.Stats().MaxOpenConnections; pool > 0 && pool < CheckConns {
		return nil, fmt.Errorf("a check holds %d database connections at once; the pool allows %d", CheckConns, pool)
	}
	w := &CheckRunWriter{ops: make(chan checkOp, 8), stopped: make(chan struct{}), done: make(chan error, 1),
		dialect: db.dialect, batch: db.dialect.batchRows(checkBatchRows)}
	started := make(chan error, 1)
	go func() {
		w.done <- db.Write(ctx, func(tx *sql.Tx) error {
			defer close(w.stopped)
			err := tx.QueryRowContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, state)
				VALUES (?, ?, ?, ?, 'running') RETURNING id`, run.From, run.To, run.AsOf, FormatTime(run.Started)).Scan(&w.id)
			started <- err
			if err != nil {
				return err
			}
			return w.apply(ctx, tx, run)
		})
	}()
	if err := <-started; err != nil {
		<-w.done
		return nil, err
	}
	return w, nil
}

// ID is the run's id.
func (w *CheckRunWriter) ID() int64 { return w.id }

// Err is the first error of the writer, nil while all is well.
func (w *CheckRunWriter) Err() error { return w.err }

// Break adds a break; its amounts are stored as recon.Money text.
func (w *CheckRunWriter) Break(b ledger.Break) {
	w.add(tBreaks, b.PoolAccount, b.Kind, checkNullID(b.CallID), checkNullID(b.PrevCallID), b.TS,
		b.ExternalRef, recon.Money(b.Expected), recon.Money(b.Actual), recon.Money(b.Delta),
		strings.Join(b.ExplainedBy, ","), b.Note)
}

// Match adds a matching result.
func (w *CheckRunWriter) Match(m ledger.Match) {
	if plainMatch(&m) {
		w.seq++
		w.add(tMatched, w.seq, m.CallID, m.SvcOrderID, m.CallAmount)
		return
	}
	w.add(tMatches, matchValues(&m)...)
}

// matchValues are a row's values in recon_matches (but its run).
func matchValues(m *ledger.Match) []any {
	return []any{m.Outcome, checkNullID(m.CallID), m.SvcOrderID, m.ExternalRef, m.Operation, m.TS, m.CallAmount,
		m.StatementAmount, m.Delta, m.Note, m.SuggestedPair, m.Group}
}

// plainMatch reports whether a matching row goes to recon_matched: a
// match of a call and a record of equal amounts, with nothing to add,
// whose time and externalRef are the call's own (as is its operation: the
// check takes it from there).
func plainMatch(m *ledger.Match) bool {
	return m.Outcome == recon.Matched && m.CallID != 0 && m.CallsOwn && m.CallAmount == m.StatementAmount &&
		m.Delta == "" && m.Note == "" && m.SuggestedPair == "" && m.Group == ""
}

// Reversal adds a reversed record.
func (w *CheckRunWriter) Reversal(r ledger.Reversal) {
	found := 0
	if r.Found {
		found = 1
	}
	w.add(tReversals, r.SvcOrderID, r.ReversalSvcOrderID, r.TxnDateTime, r.Amount, found,
		r.ReversalTxnDateTime, r.ReversalAmount, r.Note)
}

// Unsettled adds an unsettled order.
func (w *CheckRunWriter) Unsettled(u ledger.Unsettled) {
	w.add(tUnsettled, u.SvcOrderID, u.ClientOrderID, u.TxnDateTime, u.Amount, u.AgeDays, u.AgeBucket)
}

// Difference adds a field-level difference.
func (w *CheckRunWriter) Difference(d ledger.Difference) {
	w.add(tDifferences, checkNullID(d.CallID), d.SvcOrderID, d.ExternalRef, d.Operation, d.TS, d.Field, d.CallValue,
		d.StatementValue, d.Difference, d.Note)
}

// add adds a row of table t, handing a full batch to the goroutine.
func (w *CheckRunWriter) add(t int, vals ...any) {
	w.pending[t] = append(w.pending[t], vals...)
	w.flush(t, false)
}

// flush hands the pending rows of table t to the goroutine when a batch is
// full, or when all.
func (w *CheckRunWriter) flush(t int, all bool) {
	n := len(w.pending[t]) / len(checkTables[t].cols)
	if n == 0 || (!all && n < w.batch) {
		return
	}
	w.send(checkOp{table: t, args: w.pending[t]})
	w.pending[t] = make([]any, 0, w.batch*len(checkTables[t].cols))
}

// send hands op to the goroutine; false when it has stopped (Err says why).
func (w *CheckRunWriter) send(op checkOp) bool {
	if w.err != nil {
		return false
	}
	select {
	case w.ops <- op:
		return true
	case <-w.stopped:
		w.wait()
		return false
	}
}

// wait ends the hand-over and waits for the transaction's outcome.
func (w *CheckRunWriter) wait() {
	if w.closed {
		return
	}
	close(w.ops)
	w.closed = true
	err := <-w.done
	if err == nil && w.err == nil {
		return
	}
	if err == nil {
		err = errors.New("check results: the writer stopped")
	}
	w.err = err
}

// RewriteMatches offers each matching row stored so far of refs (the
// rows of the calls whose externalRef is one of refs, and the rows without
// a call whose externalRef is) to rewrite, and stores the row it returns
// in place of the old one when it returns true. The rule is the caller's:
// the store only reads and replaces rows.
func (w *CheckRunWriter) RewriteMatches(refs []string, rewrite func(ledger.Match) (ledger.Match, bool)) error {
	w.flushAll()
	op := &rewriteOp{refs: refs, rewrite: rewrite, reply: make(chan error, 1)}
	if !w.send(checkOp{rewrite: op}) {
		return w.err
	}
	select {
	case err := <-op.reply:
		return err
	case <-w.stopped:
		w.wait()
		return w.err
	}
}

func (w *CheckRunWriter) flushAll() {
	for t := range checkTables {
		w.flush(t, true)
	}
}

// Commit stores the rows left and the run's summary, deletes the rows of
// earlier runs of the same period and marks those superseded by it (their
// summaries stay), and commits; finished stamps the run's end.
func (w *CheckRunWriter) Commit(summary []byte, finished func() time.Time) error {
	w.flushAll()
	if w.send(checkOp{end: &checkEnd{summary: summary, finished: finished}}) {
		w.wait()
	}
	return w.err
}

// Abort rolls the run back: nothing of it is stored.
func (w *CheckRunWriter) Abort() {
	if w.send(checkOp{end: &checkEnd{}}) {
		w.wait()
	}
	w.wait()
}

// errAborted rolls the transaction back.
var errAborted = errors.New("check run aborted")

// apply runs the writer's operations in tx until the end.
func (w *CheckRunWriter) apply(ctx context.Context, tx *sql.Tx, run ledger.Run) (err error) {
	w.inserts = make([]*rowInsert, len(checkTables))
	for i, t := range checkTables {
		w.inserts[i] = &rowInsert{table: t.table, cols: t.cols, fixed: []fixedValue{{"run_id", w.id}}, per: checkBatchRows}
	}
	defer func() {
		for _, ins := range w.inserts {
			err = errors.Join(err, ins.close())
		}
	}()
	for op := range w.ops {
		switch {
		case op.end != nil && op.end.finished == nil:
			return errAborted
		case op.end != nil:
			return w.finish(ctx, tx, run, op.end)
		case op.rewrite != nil:
			err := w.rewriteMatches(ctx, tx, op.rewrite)
			op.rewrite.reply <- err
			if err != nil {
				return err
			}
		default:
			if _, err := w.dialect.insertRows(ctx, tx, w.inserts[op.table], op.args); err != nil {
				return fmt.Errorf("store check results: %w", err)
			}
		}
	}
	return errAborted // closed without an end
}

func (w *CheckRunWriter) finish(ctx context.Context, tx *sql.Tx, run ledger.Run, end *checkEnd) error {
	for _, t := range []string{"recon_breaks", "recon_matches", "recon_matched", "recon_reversals", "recon_unsettled",
		"recon_differences", "recon_fees"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE run_id IN (SELECT id FROM recon_runs
			WHERE period_from = ? AND period_to = ? AND id <> ?)`, run.From, run.To, w.id); err != nil {
			return err
		}
	}
	// The run that finishes last is the period's: another run of it that
	// finished while this one ran marked this one superseded, and its
	// rows are deleted above.
	if _, err := tx.ExecContext(ctx, `UPDATE recon_runs SET superseded_by = ?1
		WHERE period_from = ?2 AND period_to = ?3 AND id <> ?1 AND superseded_by IS NULL`,
		w.id, run.From, run.To); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE recon_runs SET state = 'ok', finished_at = ?, summary = ?, superseded_by = NULL WHERE id = ?`,
		FormatTime(end.finished()), string(end.summary), w.id)
	return err
}

// rewriteMatches is RewriteMatches in the writer's transaction: the rows
// of recon_matches first, ref by ref, rewritten in place, then those of
// recon_matched (moved to recon_matches when they are no plain match any
// more).
func (w *CheckRunWriter) rewriteMatches(ctx context.Context, tx *sql.Tx, op *rewriteOp) error {
	for _, ref := range op.refs {
		rows, err := w.storedMatches(ctx, tx, ref)
		if err != nil {
			return err
		}
		for _, m := range rows {
			if fixed, ok := op.rewrite(m); ok {
				if err := w.replaceMatch(ctx, tx, m, fixed); err != nil {
					return err
				}
			}
		}
	}
	for refs := range slices.Chunk(op.refs, 500) {
		if err := w.rewriteMatched(ctx, tx, op, refs); err != nil {
			return err
		}
	}
	return nil
}

// storedMatches reads the run's recon_matches rows of ref: those of the
// calls with externalRef ref, and those without a call of that externalRef.
func (w *CheckRunWriter) storedMatches(ctx context.Context, tx *sql.Tx, ref string) ([]ledger.Match, error) {
	rows, err := tx.QueryContext(ctx, `SELECT outcome, COALESCE(call_id, 0), svc_order_id, external_ref, operation, ts,
		call_amount, statement_amount, delta, note, suggested_pair, group_id FROM recon_matches
		WHERE run_id = ? AND (call_id IN (SELECT id FROM calls WHERE external_ref = ?)
			OR call_id IS NULL AND external_ref = ?)`, w.id, ref, ref)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var found []ledger.Match
	for rows.Next() {
		var m ledger.Match
		if err := rows.Scan(&m.Outcome, &m.CallID, &m.SvcOrderID, &m.ExternalRef, &m.Operation, &m.TS,
			&m.CallAmount, &m.StatementAmount, &m.Delta, &m.Note, &m.SuggestedPair, &m.Group); err != nil {
			return nil, err
		}
		found = append(found, m)
	}
	return found, rows.Err()
}

// replaceMatch stores m in place of the recon_matches row old: the row of
// its call, or (no call) of its record.
func (w *CheckRunWriter) replaceMatch(ctx context.Context, tx *sql.Tx, old, m ledger.Match) error {
	q, key := `UPDATE recon_matches SET outcome = ?, call_id = ?, svc_order_id = ?, external_ref = ?, operation = ?, ts = ?,
		call_amount = ?, statement_amount = ?, delta = ?, note = ?, suggested_pair = ?, group_id = ?
		WHERE run_id = ? AND call_id = ? AND outcome = ?`, any(old.CallID)
	if old.CallID == 0 {
		q, key = strings.Replace(q, "call_id = ? AND outcome", "call_id IS NULL AND svc_order_id = ? AND outcome", 1), old.SvcOrderID
	}
	_, err := tx.ExecContext(ctx, q, m.Outcome, checkNullID(m.CallID), m.SvcOrderID, m.ExternalRef, m.Operation, m.TS,
		m.CallAmount, m.StatementAmount, m.Delta, m.Note, m.SuggestedPair, m.Group, w.id, key, old.Outcome)
	return err
}

// rewriteMatched offers the run's recon_matched rows of the calls of the
// externalRefs refs to op.rewrite; a row it rewrites is moved to
// recon_matches (or, still a plain match, stored again in recon_matched).
// The calls of refs are looked up first, then the run's rows of those
// calls are read in one pass over the run's rows for up to 500 calls: one
// query joining the two let PostgreSQL, whose statistics know nothing of
// the rows this transaction added, look up the call of every matched row
// (5 s for a 1,000,000-call month instead of 0.4).
func (w *CheckRunWriter) rewriteMatched(ctx context.Context, tx *sql.Tx, op *rewriteOp, refs []string) error {
	calls, err := w.callsOfRefs(ctx, tx, refs)
	if err != nil || len(calls) == 0 {
		return err
	}
	type row struct {
		seq int64
		m   ledger.Match
	}
	var found []row
	for ids := range slices.Chunk(slices.Sorted(maps.Keys(calls)), 500) {
		args := []any{w.id}
		for _, id := range ids {
			args = append(args, id)
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, call_id, svc_order_id, amount FROM recon_matched
			WHERE run_id = ? AND call_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var r row
			m := &r.m
			if err := rows.Scan(&r.seq, &m.CallID, &m.SvcOrderID, &m.CallAmount); err != nil {
				rows.Close()
				return err
			}
			c := calls[m.CallID]
			m.Outcome, m.CallsOwn, m.StatementAmount = recon.Matched, true, m.CallAmount
			m.ExternalRef, m.Operation, m.TS = c.ExternalRef, c.Operation, c.TS
			found = append(found, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	slices.SortFunc(found, func(a, b row) int { return cmp.Compare(a.seq, b.seq) })
	for _, r := range found {
		fixed, ok := op.rewrite(r.m)
		if !ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM recon_matched WHERE run_id = ? AND seq = ?`, w.id, r.seq); err != nil {
			return err
		}
		if err := w.insertMatch(ctx, tx, fixed); err != nil {
			return err
		}
	}
	return nil
}

// callsOfRefs returns the calls whose externalRef is one of refs, by id:
// their externalRef, operation and time.
func (w *CheckRunWriter) callsOfRefs(ctx context.Context, tx *sql.Tx, refs []string) (map[int64]ledger.Match, error) {
	args := make([]any, len(refs))
	for i, r := range refs {
		args[i] = r
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, external_ref, operation, ts FROM calls
		WHERE external_ref IN (?`+strings.Repeat(", ?", len(refs)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	calls := map[int64]ledger.Match{}
	for rows.Next() {
		var c ledger.Match
		if err := rows.Scan(&c.CallID, &c.ExternalRef, &c.Operation, &c.TS); err != nil {
			return nil, err
		}
		calls[c.CallID] = c
	}
	return calls, rows.Err()
}

// insertMatch inserts one row as Match would add it.
func (w *CheckRunWriter) insertMatch(ctx context.Context, tx *sql.Tx, m ledger.Match) error {
	t, vals := tMatches, matchValues(&m)
	if plainMatch(&m) {
		w.seq++
		t, vals = tMatched, []any{w.seq, m.CallID, m.SvcOrderID, m.CallAmount}
	}
	_, err := w.dialect.insertRows(ctx, tx, w.inserts[t], vals)
	return err
}

// checkNullID stores a zero id as NULL.
func checkNullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
