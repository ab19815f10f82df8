package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// This file reads back what the reports (the reconciliation workbook, the
// biller list) show: the current reconciliation run and its summary, its
// result rows, the period's records and daily totals, and the billers.
// Each reader returns its rows as an iterator over one ordered query, read
// ahead; the consumer copies what it keeps of a row before the next.

// ReportRun returns the current run of the period from..to: the newest one
// that finished ok and is not superseded. found is false when there is
// none. The run's summary JSON is decoded; a summary that does not decode
// is an error. A start or finish time that was not recorded, or is no
// time, is zero.
func (db *DB) ReportRun(ctx context.Context, from, to string) (run ledger.Run, found bool, err error) {
	run = ledger.Run{From: from, To: to}
	var started string
	var fin sql.NullString
	var sum string
	err = db.QueryRowContext(ctx, `SELECT id, as_of, started_at, finished_at, summary FROM recon_runs
		WHERE period_from = ? AND period_to = ? AND superseded_by IS NULL AND state = 'ok'
		ORDER BY id DESC LIMIT 1`, from, to).Scan(&run.ID, &run.AsOf, &started, &fin, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return run, false, nil
	}
	if err != nil {
		return run, false, fmt.Errorf("find reconciliation run %s..%s: %w", from, to, err)
	}
	run.Started, _ = time.Parse(time.RFC3339Nano, started)
	run.Finished, _ = time.Parse(time.RFC3339Nano, fin.String)
	if err := json.Unmarshal([]byte(sum), &run.Summary); err != nil {
		return run, true, fmt.Errorf("run %d: decode run summary: %w", run.ID, err)
	}
	return run, true, nil
}

// ReportRunSupersededBy returns the id of the run that replaced run id, or
// 0 while it is current.
func (db *DB) ReportRunSupersededBy(ctx context.Context, id int64) (int64, error) {
	var by sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT superseded_by FROM recon_runs WHERE id = ?`, id).Scan(&by); err != nil {
		return 0, fmt.Errorf("reconciliation run %d: %w", id, err)
	}
	return by.Int64, nil
}

// ReportDay is one day's statement totals: the sums of its DR and CR
// records' txnChargedValue, exactly, and how many there were.
type ReportDay struct {
	Date              string // YYYY-MM-DD
	Debits, Credits   decimal.Decimal
	NDebits, NCredits int64
}

// ReportDays sums the statement's DR and CR records per txnDate for every
// day of from..to (zero on days without records). A txnChargedValue that
// is not a decimal is an error naming the record.
func (db *DB) ReportDays(ctx context.Context, from, to string) ([]ReportDay, error) {
	f, err := time.Parse(recon.DateLayout, from)
	if err != nil {
		return nil, fmt.Errorf("daily totals: from %q: %w", from, err)
	}
	t, err := time.Parse(recon.DateLayout, to)
	if err != nil {
		return nil, fmt.Errorf("daily totals: to %q: %w", to, err)
	}
	var days []ReportDay
	idx := map[string]int{}
	for d := f; !d.After(t); d = d.AddDate(0, 0, 1) {
		idx[d.Format(recon.DateLayout)] = len(days)
		days = append(days, ReportDay{Date: d.Format(recon.DateLayout)})
	}
	rows, err := db.QueryContext(ctx, `SELECT txn_date, txn_mode, txn_charged_value, svc_order_id
		FROM records WHERE kind = ? AND txn_date BETWEEN ? AND ? AND txn_mode IN ('DR', 'CR')`,
		recon.Statement, from, to)
	if err != nil {
		return nil, fmt.Errorf("daily totals: %w", err)
	}
	defer rows.Close()
	debits, credits := make([]recon.Sum, len(days)), make([]recon.Sum, len(days))
	var other recon.Sum // a day not asked for: its amounts only checked
	var others int64
	for rows.Next() {
		var date, mode, amount, id string
		if err := rows.Scan(&date, &mode, &amount, &id); err != nil {
			return nil, fmt.Errorf("daily totals: %w", err)
		}
		sum, n := &other, &others
		if i, ok := idx[date]; ok && mode == "DR" {
			sum, n = &debits[i], &days[i].NDebits
		} else if ok {
			sum, n = &credits[i], &days[i].NCredits
		}
		if err := sum.AddText(amount); err != nil {
			return nil, fmt.Errorf("daily totals: record %s: txnChargedValue %q: %w", id, amount, err)
		}
		*n++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("daily totals: %w", err)
	}
	for i := range days {
		days[i].Debits, days[i].Credits = debits[i].Decimal(), credits[i].Decimal()
	}
	return days, nil
}

// ReportHasRecords reports whether the statement holds a DR or CR record
// dated from..to (what ReportDays would count).
func (db *DB) ReportHasRecords(ctx context.Context, from, to string) (bool, error) {
	found, err := db.exists(ctx, `SELECT 1 FROM records WHERE kind = ? AND txn_date BETWEEN ? AND ?
		AND txn_mode IN ('DR', 'CR') LIMIT 1`, recon.Statement, from, to)
	if err != nil {
		return false, fmt.Errorf("records of %s to %s: %w", from, to, err)
	}
	return found, nil
}

// reportRows runs one query and yields its rows, scanned into a T each.
// The rows are read ahead in a goroutine of their own (prefetch), so that
// the database's work overlaps the consumer's (a report's million rows
// are written to a sheet as they are read). The consumer must copy what
// it keeps of a row before it asks for the next. A query or scan error is
// yielded once, last.
func reportRows[T any](ctx context.Context, db *DB, what, query string, args []any,
	scan func(rows *sql.Rows, v *T) error) iter.Seq2[*T, error] {
	vals := prefetch(ctx, scanSeq(ctx, db, scan, query, args...))
	return func(yield func(*T, error) bool) {
		for v, err := range vals {
			if err != nil {
				yield(nil, fmt.Errorf("read %s: %w", what, err))
				return
			}
			if !yield(&v, nil) {
				return
			}
		}
	}
}

// ReportBreaks yields a run's breaks by pool account, the unexplained ones
// before the explained gaps, each by time, with their call's operation and
// orderid. An amount that is not a decimal is an error naming its break.
func (db *DB) ReportBreaks(ctx context.Context, runID int64) iter.Seq2[*ledger.Break, error] {
	var amounts [3]string
	var explained string
	return reportRows(ctx, db, "breaks", `SELECT b.kind, b.pool_account, b.ts, COALESCE(c.operation, ''),
		b.external_ref, COALESCE(c.orderid, ''), b.expected, b.actual, b.delta, b.explained_by, b.note,
		COALESCE(b.call_id, 0), COALESCE(b.prev_call_id, 0)
		FROM recon_breaks b LEFT JOIN calls c ON c.id = b.call_id
		WHERE b.run_id = ? ORDER BY b.pool_account, b.kind = ?, b.ts, b.call_id`,
		[]any{runID, recon.BreakExplainedGap},
		func(rows *sql.Rows, b *ledger.Break) error {
			if err := rows.Scan(&b.Kind, &b.PoolAccount, &b.TS, &b.Operation, &b.ExternalRef, &b.OrderID,
				&amounts[0], &amounts[1], &amounts[2], &explained, &b.Note, &b.CallID, &b.PrevCallID); err != nil {
				return err
			}
			if explained != "" {
				b.ExplainedBy = strings.Split(explained, ",")
			}
			for i, dst := range []*decimal.Decimal{&b.Expected, &b.Actual, &b.Delta} {
				d, err := decimal.NewFromString(orZeroText(amounts[i]))
				if err != nil {
					return fmt.Errorf("%s break at %s: amount %q: %w", b.Kind, b.TS, amounts[i], err)
				}
				*dst = d
			}
			return nil
		})
}

// ReportBreakTotal totals the breaks of one kind of one pool account whose
// deltas have one sign: Negative deltas mean the pool's balance rose (a
// credit), positive ones that it fell.
type ReportBreakTotal struct {
	PoolAccount, Kind string
	Negative          bool
	Count             int
	Delta             decimal.Decimal // the exact sum of the deltas
}

// ReportBreakTotals sums a run's break deltas exactly per pool account,
// kind and sign, by pool account, kind and sign. A delta that is not a
// decimal is an error naming its break.
func (db *DB) ReportBreakTotals(ctx context.Context, runID int64) ([]ReportBreakTotal, error) {
	rows, err := db.QueryContext(ctx, `SELECT ts, pool_account, kind, delta FROM recon_breaks WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("break totals of run %d: %w", runID, err)
	}
	defer rows.Close()
	type key struct {
		pool, kind string
		neg        bool
	}
	idx := map[key]int{}
	var out []ReportBreakTotal
	for rows.Next() {
		var ts, pool, kind, delta string
		if err := rows.Scan(&ts, &pool, &kind, &delta); err != nil {
			return nil, fmt.Errorf("break totals of run %d: %w", runID, err)
		}
		d, err := decimal.NewFromString(orZeroText(delta))
		if err != nil {
			return nil, fmt.Errorf("break totals of run %d: %s break at %s: delta %q: %w", runID, kind, ts, delta, err)
		}
		k := key{pool, kind, d.IsNegative()}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, ReportBreakTotal{PoolAccount: pool, Kind: kind, Negative: k.neg})
		}
		out[i].Count++
		out[i].Delta = out[i].Delta.Add(d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("break totals of run %d: %w", runID, err)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.PoolAccount != b.PoolAccount {
			return a.PoolAccount < b.PoolAccount
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return !a.Negative && b.Negative
	})
	return out, nil
}

// orZeroText is s, or "0" when s is empty.
func orZeroText(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// matchCols are a match row's text columns, in scanMatch's order (the
// call id aside).
var matchCols = []string{"m.outcome", "m.ts", "m.operation", "m.external_ref", "COALESCE(c.orderid, '')",
	"COALESCE(c.statuscode, '')", "m.svc_order_id", "m.call_amount", "m.statement_amount", "m.delta", "m.note",
	"m.suggested_pair", "m.group_id"}

const matchFrom = ` FROM recon_matches m LEFT JOIN calls c ON c.id = m.call_id`

// matchSelect reads a match row as its key (for a second look), its call
// id and its text columns joined into one (concatCols): a million rows cost
// the driver two columns a row instead of thirteen.
func (db *DB) matchSelect() string {
	return `SELECT ` + db.matchKey() + `, COALESCE(m.call_id, 0), ` + concatCols(matchCols...) + matchFrom + ` WHERE m.run_id = ?`
}

// matchKey is a recon_matches row's key for a second look, as text.
func (db *DB) matchKey() string { return db.dialect.rowKey("m") }

// matchedCols are matchCols for a row of recon_matched (d), whose time,
// operation, externalRef, orderid and statuscode are its call's, and whose
// two amounts are one.
var matchedCols = []string{"'" + recon.Matched + "'", "c.ts", "c.operation", "c.external_ref",
	"c.orderid", "c.statuscode", "d.svc_order_id", "d.amount", "d.amount", "''", "''", "''", "''"}

const matchedFrom = ` FROM recon_matched d JOIN calls c ON c.id = d.call_id`

// scanMatch reads a row of matchSelect (or of ReportMatches); a row whose
// text does not split (a value held the separator) is read again column by
// column, by its key: a recon_matches row's rowid (ctid), or "d" and a
// recon_matched row's seq.
func (db *DB) scanMatch(ctx context.Context, runID int64) func(rows *sql.Rows, m *ledger.Match) error {
	f := make([]string, len(matchCols))
	return func(rows *sql.Rows, m *ledger.Match) error {
		var key, text string
		if err := rows.Scan(&key, &m.CallID, &text); err != nil {
			return err
		}
		if !splitInto(text, f) {
			q, args := `SELECT `+strings.Join(matchCols, ", ")+matchFrom+` WHERE `+db.dialect.rowKeyIs("m"), []any{key}
			if strings.HasPrefix(key, "d") {
				q, args = `SELECT `+strings.Join(matchedCols, ", ")+matchedFrom+` WHERE d.run_id = ? AND d.seq = ?`,
					[]any{runID, strings.TrimPrefix(key, "d")}
			}
			if err := db.QueryRowContext(ctx, q, args...).
				Scan(&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12]); err != nil {
				return err
			}
		}
		m.Outcome, m.TS, m.Operation, m.ExternalRef, m.OrderID, m.StatusCode = f[0], f[1], f[2], f[3], f[4], f[5]
		m.SvcOrderID, m.CallAmount, m.StatementAmount, m.Delta, m.Note, m.SuggestedPair = f[6], f[7], f[8], f[9], f[10], f[11]
		m.Group = f[12]
		return nil
	}
}

// ReportMatches yields every matching outcome of a run: the exceptions
// (every outcome but matched and reversed) first, then the matched and
// reversed rows, each part by time. The run's rows are in recon_matches,
// and its plain matches in recon_matched (runs stored before that table
// have them all in recon_matches).
func (db *DB) ReportMatches(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error] {
	q := `SELECT k, cid, text FROM (
		SELECT ` + db.matchKey() + ` AS k, COALESCE(m.call_id, 0) AS cid, ` + concatCols(matchCols...) + ` AS text,
			CASE WHEN m.outcome IN (?, ?) THEN 1 ELSE 0 END AS late, m.ts AS ts, m.external_ref AS ref,
			m.svc_order_id AS svc, m.call_id AS call` + matchFrom + ` WHERE m.run_id = ?
		UNION ALL
		SELECT 'd' || d.seq, d.call_id, ` + concatCols(matchedCols...) + `, 1, c.ts, c.external_ref, d.svc_order_id,
			d.call_id` + matchedFrom + ` WHERE d.run_id = ?
	) u ORDER BY late, ts, ref, svc, call`
	return reportRows(ctx, db, "matches", q, []any{recon.Matched, recon.Reversed, runID, runID}, db.scanMatch(ctx, runID))
}

// ReportSuggestedPairs yields the callOnly rows of a run that carry a
// suggested pair, by time.
func (db *DB) ReportSuggestedPairs(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error] {
	return reportRows(ctx, db, "suggested pairs",
		db.matchSelect()+` AND m.outcome = ? AND m.suggested_pair <> '' ORDER BY m.ts, m.external_ref, m.call_id`,
		[]any{runID, recon.CallOnly}, db.scanMatch(ctx, runID))
}

// ReportDuplicates yields a run's duplicate debits grouped by externalRef.
func (db *DB) ReportDuplicates(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error] {
	return reportRows(ctx, db, "duplicates",
		db.matchSelect()+` AND m.outcome = ? ORDER BY m.external_ref, m.ts, m.svc_order_id, m.call_id`,
		[]any{runID, recon.DuplicateDebit}, db.scanMatch(ctx, runID))
}

// ReportPending yields a run's pending calls by time.
func (db *DB) ReportPending(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error] {
	return reportRows(ctx, db, "pending",
		db.matchSelect()+` AND m.outcome = ? ORDER BY m.ts, m.external_ref, m.call_id`,
		[]any{runID, recon.Pending}, db.scanMatch(ctx, runID))
}

// ReportReversals yields a run's reversed records by time.
func (db *DB) ReportReversals(ctx context.Context, runID int64) iter.Seq2[*ledger.Reversal, error] {
	return reportRows(ctx, db, "reversals", `SELECT svc_order_id, txn_date_time, amount,
		reversal_svc_order_id, reversal_found, reversal_txn_date_time, reversal_amount, note
		FROM recon_reversals WHERE run_id = ? ORDER BY txn_date_time, svc_order_id`, []any{runID},
		func(rows *sql.Rows, r *ledger.Reversal) error {
			return rows.Scan(&r.SvcOrderID, &r.TxnDateTime, &r.Amount, &r.ReversalSvcOrderID,
				&r.Found, &r.ReversalTxnDateTime, &r.ReversalAmount, &r.Note)
		})
}

// ReportDifferences yields a run's field-level differences by time, call
// and field.
func (db *DB) ReportDifferences(ctx context.Context, runID int64) iter.Seq2[*ledger.Difference, error] {
	return reportRows(ctx, db, "differences", `SELECT COALESCE(call_id, 0), svc_order_id, external_ref, operation, ts,
		field, call_value, statement_value, difference, note
		FROM recon_differences WHERE run_id = ? ORDER BY ts, call_id, svc_order_id, field`, []any{runID},
		func(rows *sql.Rows, d *ledger.Difference) error {
			return rows.Scan(&d.CallID, &d.SvcOrderID, &d.ExternalRef, &d.Operation, &d.TS, &d.Field, &d.CallValue,
				&d.StatementValue, &d.Difference, &d.Note)
		})
}

// ReportUnsettled yields a run's unsettled orders, oldest first.
func (db *DB) ReportUnsettled(ctx context.Context, runID int64) iter.Seq2[*ledger.Unsettled, error] {
	return reportRows(ctx, db, "unsettled orders", `SELECT svc_order_id, client_order_id, txn_date_time,
		amount, age_days, age_bucket
		FROM recon_unsettled WHERE run_id = ? ORDER BY age_days DESC, txn_date_time, svc_order_id`,
		[]any{runID},
		func(rows *sql.Rows, u *ledger.Unsettled) error {
			return rows.Scan(&u.SvcOrderID, &u.ClientOrderID, &u.TxnDateTime, &u.Amount, &u.AgeDays, &u.AgeBucket)
		})
}

// ReportRecord is a synced record with its sync times (RFC 3339 UTC).
type ReportRecord struct {
	recon.Record
	FirstSyncedAt, LastSyncedAt string
}

// reportRecordCols are a record's key columns, every column of
// recon.RecordFields in order (recordColumns), and its sync times.
var reportRecordCols = append(append([]string{"account", "svc_order_id"}, recordColumns...), "first_synced_at", "last_synced_at")

// ReportRecords yields the records of kind k whose txnDate is in from..to,
// by account, time and svcOrderId. Every field is read for both kinds (a
// field the kind does not carry is ""). A record's columns are read joined
// into one text (concatCols), split here; a record whose text does not
// split is read again column by column.
func (db *DB) ReportRecords(ctx context.Context, k recon.Kind, from, to string) iter.Seq2[*ReportRecord, error] {
	f := make([]string, len(reportRecordCols))
	reread := `SELECT ` + strings.Join(reportRecordCols, ", ") + ` FROM records WHERE id = ?`
	return reportRows(ctx, db, k.String()+" records", `SELECT id, `+concatCols(reportRecordCols...)+`
		FROM records WHERE kind = ? AND txn_date BETWEEN ? AND ?
		ORDER BY account, txn_date_time, svc_order_id`, []any{k, from, to},
		func(rows *sql.Rows, r *ReportRecord) error {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				return err
			}
			if err := db.splitOrRead(ctx, text, f, reread, id); err != nil {
				return err
			}
			r.Kind, r.Account, r.SvcOrderID = k, f[0], f[1]
			copy(r.Values[:], f[2:2+recon.NumFields])
			r.FirstSyncedAt, r.LastSyncedAt = f[2+recon.NumFields], f[3+recon.NumFields]
			return nil
		})
}

// CountReportRecords counts what ReportRecords yields.
func (db *DB) CountReportRecords(ctx context.Context, k recon.Kind, from, to string) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE kind = ? AND txn_date BETWEEN ? AND ?`,
		k, from, to).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count %s records: %w", k, err)
	}
	return n, nil
}

// ReportLastBillerSync returns the id of the newest biller sync that
// finished ok (else the newest of any state; 0 when there was none).
func (db *DB) ReportLastBillerSync(ctx context.Context) (int64, error) {
	var id int64
	err := db.QueryRowContext(ctx, `SELECT id FROM biller_syncs
		ORDER BY state = 'ok' DESC, id DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find last biller sync: %w", err)
	}
	return id, nil
}

// ReportBiller is one biller of the biller list (billers), removed ones
// included. Times are RFC 3339 UTC; RemovedAt is "" when not removed.
type ReportBiller struct {
	BillerID, BillerName, CategoryKey, Type, CategoryName string
	CoverageCity, CoverageState, CoveragePincode          string
	UpdatedDate, BillerStatus                             string
	IsAvailable, Removed                                  bool
	RemovedAt, FirstSeenAt, LastSeenAt                    string
}

// ReportBillers yields every biller ever seen, the listed ones first, by
// category and name.
func (db *DB) ReportBillers(ctx context.Context) iter.Seq2[*ReportBiller, error] {
	return reportRows(ctx, db, "billers", `SELECT biller_id, biller_name, category_key, type, category_name,
		coverage_city, coverage_state, coverage_pincode, updated_date, biller_status, is_available, removed,
		COALESCE(removed_at, ''), first_seen_at, last_seen_at
		FROM billers ORDER BY removed, category_name, biller_name, biller_id`, nil,
		func(rows *sql.Rows, b *ReportBiller) error {
			return rows.Scan(&b.BillerID, &b.BillerName, &b.CategoryKey, &b.Type, &b.CategoryName,
				&b.CoverageCity, &b.CoverageState, &b.CoveragePincode, &b.UpdatedDate, &b.BillerStatus,
				&b.IsAvailable, &b.Removed, &b.RemovedAt, &b.FirstSeenAt, &b.LastSeenAt)
		})
}

// ReportBillerChange is one changed field of one biller in a sync's change
// log (biller_changes); an added or removed biller has one row with Field
// "". Old and New are the field's values as text (booleans true/false,
// null "").
type ReportBillerChange struct {
	SyncID                                            int64
	At, Change, BillerID, BillerName, Field, Old, New string
}

// ReportBillerChanges yields the change log of biller sync syncID, one row
// per changed field (by field name), in log order. The fields' JSON is
// read in Go, so the query is the same on every backend.
func (db *DB) ReportBillerChanges(ctx context.Context, syncID int64) iter.Seq2[*ReportBillerChange, error] {
	type logged struct {
		ReportBillerChange
		fields sql.NullString
	}
	rows := reportRows(ctx, db, "biller changes", `SELECT ch.sync_id, ch.at, ch.change, ch.biller_id,
		COALESCE(b.biller_name, ''), ch.fields
		FROM biller_changes ch LEFT JOIN billers b ON b.biller_id = ch.biller_id
		WHERE ch.sync_id = ? ORDER BY ch.id`, []any{syncID},
		func(rows *sql.Rows, c *logged) error {
			return rows.Scan(&c.SyncID, &c.At, &c.Change, &c.BillerID, &c.BillerName, &c.fields)
		})
	return func(yield func(*ReportBillerChange, error) bool) {
		for c, err := range rows {
			if err != nil {
				yield(nil, err)
				return
			}
			var fields map[string][]json.RawMessage
			if json.Unmarshal([]byte(c.fields.String), &fields) != nil || len(fields) == 0 {
				c.Field, c.Old, c.New = "", "", ""
				if !yield(&c.ReportBillerChange, nil) {
					return
				}
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				v := fields[k]
				c.Field, c.Old, c.New = k, "", ""
				if len(v) > 0 {
					c.Old = jsonText(v[0])
				}
				if len(v) > 1 {
					c.New = jsonText(v[1])
				}
				if !yield(&c.ReportBillerChange, nil) {
					return
				}
			}
		}
	}
}

// jsonText is a JSON scalar as text: a string unquoted, null "", true and
// false and numbers as written; an object or array as its JSON.
func jsonText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	if t := strings.TrimSpace(string(v)); t != "null" {
		return t
	}
	return ""
}
