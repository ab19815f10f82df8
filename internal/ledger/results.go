package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// summarize builds the run's summary and the report's lists.
func (c *checker) summarize() *Report {
	s := Summary{From: c.from, To: c.to, AsOf: c.asOf,
		Calls: c.nCalls, CallsFailed: c.nFailed, CallsPending: c.nPending,
		Outcomes: map[string]CountSum{}, Breaks: map[string]BreakSum{}, Unsettled: map[string]CountSum{},
		Pools: []PoolSummary{}}
	debited := decimal.Zero
	for i := range c.calls {
		k := &c.calls[i]
		if k.pending || k.skip {
			continue
		}
		s.CallsWithDebit++
		debited = debited.Add(mustAmount(k.amount))
	}
	s.Debited, s.Credited = Money(debited), Money(c.credited)
	accts := make([]uint16, 0, len(c.chains))
	for a := range c.chains {
		accts = append(accts, a)
	}
	sort.Slice(accts, func(i, j int) bool { return c.accounts[accts[i]] < c.accounts[accts[j]] })
	for _, a := range accts {
		st := c.chains[a]
		s.Pools = append(s.Pools, PoolSummary{Account: c.accounts[a], Opening: Money(st.opening),
			Closing: Money(st.closing), Calls: st.calls, Debited: Money(st.debited)})
	}
	rep := &Report{Breaks: c.breaks}
	outSum := map[string]decimal.Decimal{}
	outN := map[string]int{}
	for _, m := range c.matches {
		outN[m.outcome]++
		outSum[m.outcome] = outSum[m.outcome].Add(mustAmount(c.rowAmount(m)))
		if m.outcome != Matched && m.outcome != Reversed {
			rep.Exceptions = append(rep.Exceptions, c.matchOut(m))
		}
	}
	for _, o := range Outcomes {
		s.Outcomes[o] = countSum(outN[o], outSum[o])
	}
	s.Pending = s.Outcomes[Pending]
	brN := map[string]int{}
	brSum := map[string]decimal.Decimal{}
	for _, b := range c.breaks {
		brN[b.Kind]++
		brSum[b.Kind] = brSum[b.Kind].Add(b.Delta)
	}
	for _, k := range BreakKinds {
		s.Breaks[k] = BreakSum{Count: brN[k], Delta: Money(brSum[k])}
	}
	revSum := decimal.Zero
	for _, rv := range c.reversals {
		s.Reversals.Count++
		revSum = revSum.Add(mustAmount(c.recs[rv.rec].amount))
		if !rv.found {
			s.Reversals.Unlinked++
		}
	}
	s.Reversals.Amount = Money(revSum)
	unN := map[string]int{}
	unSum := map[string]decimal.Decimal{}
	for _, u := range c.unsettled {
		b := Bucket(u.age)
		unN[b]++
		unSum[b] = unSum[b].Add(mustAmount(u.amount))
	}
	for _, b := range Buckets {
		s.Unsettled[b] = countSum(unN[b], unSum[b])
	}
	rep.Summary = s
	return rep
}

func countSum(n int, d decimal.Decimal) CountSum { return CountSum{Count: n, Amount: Money(d)} }

// mustAmount parses an amount already validated ("" is zero).
func mustAmount(s string) decimal.Decimal {
	d, err := svcapi.ParseAmount(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}

// rowAmount is the amount a match row counts for: the call's debit, else
// the statement record's.
func (c *checker) rowAmount(m matchRow) string {
	if m.call >= 0 && c.calls[m.call].amount != "" {
		return c.calls[m.call].amount
	}
	if m.rec >= 0 {
		return c.recs[m.rec].amount
	}
	return ""
}

func (c *checker) matchOut(m matchRow) Match {
	out := Match{Outcome: m.outcome, TS: fmtTS(m.ts), Delta: m.delta, Note: m.note}
	if m.call >= 0 {
		k := &c.calls[m.call]
		out.CallID, out.ExternalRef, out.Operation, out.CallAmount = k.id, k.ref, k.op, k.amount
	}
	if m.rec >= 0 {
		r := &c.recs[m.rec]
		out.SvcOrderID, out.StatementAmount = r.svc, Money(mustAmount(r.amount))
		if out.ExternalRef == "" {
			out.ExternalRef = r.client
		}
	}
	return out
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// store writes the run and its rows in one transaction and supersedes the
// earlier runs of the period.
func (c *checker) store(ctx context.Context) (*Report, error) {
	rep := c.summarize()
	summary, err := json.Marshal(rep.Summary)
	if err != nil {
		return nil, err
	}
	err = c.db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, state)
			VALUES (?, ?, ?, ?, 'running')`, c.from, c.to, c.asOf, store.FormatTime(c.started))
		if err != nil {
			return err
		}
		if rep.RunID, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := c.insertRows(ctx, tx, rep.RunID); err != nil {
			return err
		}
		for _, t := range []string{"recon_breaks", "recon_matches", "recon_reversals", "recon_unsettled"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE run_id IN (SELECT id FROM recon_runs
				WHERE period_from = ? AND period_to = ? AND id <> ?)`, c.from, c.to, rep.RunID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE recon_runs SET superseded_by = ?1
			WHERE period_from = ?2 AND period_to = ?3 AND id <> ?1 AND superseded_by IS NULL`,
			rep.RunID, c.from, c.to); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE recon_runs SET state = 'ok', finished_at = ?, summary = ? WHERE id = ?`,
			c.finished(), string(summary), rep.RunID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func (c *checker) insertRows(ctx context.Context, tx *sql.Tx, run int64) error {
	br := newBatchInsert(tx, `INSERT INTO recon_breaks (run_id, pool_account, kind, call_id, prev_call_id,
		ts, external_ref, expected, actual, delta, explained_by, note) VALUES `, 12)
	for _, b := range c.breaks {
		if err := br.add(ctx, run, b.PoolAccount, b.Kind, nullID(b.CallID), nullID(b.PrevCallID), b.TS,
			b.ExternalRef, Money(b.Expected), Money(b.Actual), Money(b.Delta), strings.Join(b.ExplainedBy, ","),
			b.Note); err != nil {
			return err
		}
	}
	mt := newBatchInsert(tx, `INSERT INTO recon_matches (run_id, outcome, call_id, svc_order_id,
		external_ref, operation, ts, call_amount, statement_amount, delta, note) VALUES `, 11)
	for _, m := range c.matches {
		o := c.matchOut(m)
		if err := mt.add(ctx, run, o.Outcome, nullID(o.CallID), o.SvcOrderID, o.ExternalRef, o.Operation,
			o.TS, o.CallAmount, o.StatementAmount, o.Delta, o.Note); err != nil {
			return err
		}
	}
	rv := newBatchInsert(tx, `INSERT INTO recon_reversals (run_id, svc_order_id, reversal_svc_order_id,
		txn_date_time, amount, reversal_found, reversal_txn_date_time, reversal_amount, note) VALUES `, 9)
	for _, r := range c.reversals {
		rec := &c.recs[r.rec]
		found, note, amt := 0, "reversal record not synced", ""
		if r.found {
			found, note, amt = 1, "", Money(mustAmount(r.revAmt))
		}
		if err := rv.add(ctx, run, rec.svc, rec.reversal, fmtTS(rec.ts), Money(mustAmount(rec.amount)),
			found, r.revTS, amt, note); err != nil {
			return err
		}
	}
	un := newBatchInsert(tx, `INSERT INTO recon_unsettled (run_id, svc_order_id, client_order_id,
		txn_date_time, amount, age_days, age_bucket) VALUES `, 7)
	for _, u := range c.unsettled {
		if err := un.add(ctx, run, u.svc, u.client, u.ts, Money(mustAmount(u.amount)), u.age, Bucket(u.age)); err != nil {
			return err
		}
	}
	for _, b := range []*batchInsert{br, mt, rv, un} {
		if err := b.close(ctx); err != nil {
			return err
		}
	}
	return nil
}

// batchRows is how many rows one INSERT statement of a batchInsert carries.
const batchRows = 64

// batchInsert inserts rows batchRows at a time with one multi-row INSERT
// (prepared once), which spares most of the per-statement cost.
type batchInsert struct {
	tx     *sql.Tx
	prefix string // INSERT INTO t (cols) VALUES
	cols   int
	full   *sql.Stmt
	args   []any
}

func newBatchInsert(tx *sql.Tx, prefix string, cols int) *batchInsert {
	return &batchInsert{tx: tx, prefix: prefix, cols: cols}
}

func (b *batchInsert) query(rows int) string {
	one := "(" + strings.Repeat("?,", b.cols-1) + "?)"
	return b.prefix + strings.Repeat(one+",", rows-1) + one
}

func (b *batchInsert) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < batchRows*b.cols {
		return nil
	}
	if b.full == nil {
		st, err := b.tx.PrepareContext(ctx, b.query(batchRows))
		if err != nil {
			return err
		}
		b.full = st
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args = b.args[:0]
	return err
}

// close inserts the rows left and releases the statement.
func (b *batchInsert) close(ctx context.Context) error {
	var err error
	if n := len(b.args) / b.cols; n > 0 {
		_, err = b.tx.ExecContext(ctx, b.query(n), b.args...)
		b.args = b.args[:0]
	}
	if b.full != nil {
		if cerr := b.full.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// recordFailure leaves a failed run behind (best effort), so that the
// history shows the attempt.
func (c *checker) recordFailure(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	err := c.db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, finished_at, state)
			VALUES (?, ?, ?, ?, ?, 'failed')`, c.from, c.to, c.asOf, store.FormatTime(c.started),
			c.finished())
		return err
	})
	if err != nil {
		c.log.Error("failed run not recorded", "error", err.Error())
	}
}

// finished is the run's end: its start on the injected clock plus the time
// really spent.
func (c *checker) finished() string { return store.FormatTime(c.started.Add(time.Since(c.t0))) }
