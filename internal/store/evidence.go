package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// This file maps internal/evidence's types to tables: the run's findings
// read from the recon_* tables, what its manifest is made of (records,
// calls, call-log files, walks), the manifests, the exceptions, their
// sightings and the append-only, hash-chained evidence_events. Evidence
// events are only ever inserted.

var _ evidence.Store = (*DB)(nil)

// evidenceLock serializes the appends to the event chain across processes
// (PostgreSQL; SQLite's write transactions exclude each other already).
const evidenceLock = 7079113

// ownSource is calls.source of svcrecon's own calls (calllog.SourceSvcrecon).
const ownSource = "svcrecon"

// scanSeq yields one value per row of query, scanned into it by scan
// (checkSeq for scanners that fill a value in place).
func scanSeq[T any](ctx context.Context, db *DB, scan func(*sql.Rows, *T) error, query string, args ...any) iter.Seq2[T, error] {
	return checkSeq(ctx, db, func(rows *sql.Rows) (T, error) {
		var v T
		err := scan(rows, &v)
		return v, err
	}, query, args...)
}

// EvidenceRun returns a reconciliation run.
func (db *DB) EvidenceRun(ctx context.Context, runID int64) (evidence.RunInfo, bool, error) {
	r := evidence.RunInfo{ID: runID}
	var by sql.NullInt64
	var fin sql.NullString
	err := db.QueryRowContext(ctx, `SELECT period_from, period_to, as_of, state, superseded_by, finished_at
		FROM recon_runs WHERE id = ?`, runID).Scan(&r.From, &r.To, &r.AsOf, &r.State, &by, &fin)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("reconciliation run %d: %w", runID, err)
	}
	r.SupersededBy = by.Int64
	if fin.Valid {
		r.Finished, _ = time.Parse(time.RFC3339Nano, fin.String)
	}
	return r, true, nil
}

// EvidenceFindings yields a run's findings: its arithmetic and gap breaks
// (with their call's operation and orderid), its matching rows other than
// matched and reversed, its reversals not linked and its unsettled orders;
// each kind by time.
func (db *DB) EvidenceFindings(ctx context.Context, runID int64) iter.Seq2[evidence.Finding, error] {
	queries := []struct {
		q    string
		args []any
		scan func(*sql.Rows, *evidence.Finding) error
	}{
		{`SELECT b.kind, b.pool_account, b.ts, COALESCE(c.operation, ''), b.external_ref, COALESCE(c.orderid, ''),
			b.delta, b.note FROM recon_breaks b LEFT JOIN calls c ON c.id = b.call_id
			WHERE b.run_id = ? AND b.kind IN (?, ?) ORDER BY b.ts, b.pool_account, b.external_ref`, []any{runID, recon.BreakArithmetic, recon.BreakGap}, scanBreakFinding},
		{`SELECT m.outcome, m.ts, m.operation, m.external_ref, COALESCE(c.orderid, ''), m.svc_order_id,
			m.call_amount, m.statement_amount, m.note FROM recon_matches m LEFT JOIN calls c ON c.id = m.call_id
			WHERE m.run_id = ? AND m.outcome NOT IN (?, ?) ORDER BY m.ts, m.svc_order_id, m.external_ref`, []any{runID, recon.Matched, recon.Reversed}, scanMatchFinding},
		{`SELECT svc_order_id, txn_date_time, amount, note FROM recon_reversals
			WHERE run_id = ? AND reversal_found = 0 ORDER BY txn_date_time, svc_order_id`, []any{runID}, scanReversalFinding},
		{`SELECT svc_order_id, client_order_id, txn_date_time, amount, age_bucket FROM recon_unsettled
			WHERE run_id = ? ORDER BY txn_date_time, svc_order_id`, []any{runID}, scanUnsettledFinding},
		{feeFindings, []any{runID}, scanFeeFinding}, // fees.go
	}
	return func(yield func(evidence.Finding, error) bool) {
		for _, q := range queries {
			for f, err := range scanSeq(ctx, db, q.scan, q.q, q.args...) {
				if !yield(f, err) || err != nil {
					return
				}
			}
		}
	}
}

func scanBreakFinding(rows *sql.Rows, f *evidence.Finding) error {
	var delta string
	if err := rows.Scan(&f.Kind, &f.PoolAccount, &f.TS, &f.Operation, &f.ExternalRef, &f.OrderID, &delta, &f.Text); err != nil {
		return err
	}
	return amountInto(&f.Amount, delta)
}

func scanMatchFinding(rows *sql.Rows, f *evidence.Finding) error {
	var call, stmt string
	if err := rows.Scan(&f.Kind, &f.TS, &f.Operation, &f.ExternalRef, &f.OrderID, &f.SvcOrderID, &call, &stmt, &f.Text); err != nil {
		return err
	}
	if call == "" {
		call = stmt
	}
	return amountInto(&f.Amount, call)
}

func scanReversalFinding(rows *sql.Rows, f *evidence.Finding) error {
	var amount string
	f.Kind = evidence.KindReversalNotFound
	if err := rows.Scan(&f.SvcOrderID, &f.TS, &amount, &f.Text); err != nil {
		return err
	}
	return amountInto(&f.Amount, amount)
}

func scanUnsettledFinding(rows *sql.Rows, f *evidence.Finding) error {
	var amount, bucket string
	f.Kind = evidence.KindUnsettled
	if err := rows.Scan(&f.SvcOrderID, &f.ExternalRef, &f.TS, &amount, &bucket); err != nil {
		return err
	}
	f.Text = "unsettled, " + bucket + " days"
	return amountInto(&f.Amount, amount)
}

// amountInto parses an exact amount ("" is zero).
func amountInto(d *decimal.Decimal, s string) error {
	if s == "" {
		*d = decimal.Zero
		return nil
	}
	v, err := decimal.NewFromString(s)
	if err != nil {
		return fmt.Errorf("amount %q: %w", s, err)
	}
	*d = v
	return nil
}

// evidenceRecordCols are a record's key columns and its RecordFields, read
// as one text (concatCols).
var evidenceRecordCols = append([]string{"account", "svc_order_id"}, recordColumns...)

// EvidenceRecords yields the records of kind k dated from..to in the order
// of their canonical lines: by account, txnDateTime and svcOrderId,
// compared bytewise. It reads one range of index records_time per account
// (its accounts in bytewise order, one after the other): the days' range
// of txn_date_time, whose first ten characters are txn_date (the record's
// IST day, statement.record), so that a day is read without the kind's
// other days (a range on txn_date alone read every record of the kind:
// the whole history for a month, thirty times over for its days one by
// one).
func (db *DB) EvidenceRecords(ctx context.Context, k recon.Kind, from, to string) iter.Seq2[*recon.Record, error] {
	f := make([]string, len(evidenceRecordCols))
	reread := `SELECT ` + strings.Join(evidenceRecordCols, ", ") + ` FROM records WHERE id = ?`
	scan := func(rows *sql.Rows, r *recon.Record) error {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return err
		}
		if err := db.splitOrRead(ctx, text, f, reread, id); err != nil {
			return err
		}
		r.Kind, r.Account, r.SvcOrderID = k, f[0], f[1]
		copy(r.Values[:], f[2:])
		return nil
	}
	q := `SELECT id, ` + concatCols(evidenceRecordCols...) + ` FROM records
		WHERE kind = ? AND account = ? AND txn_date_time >= ? AND txn_date_time < ? AND txn_date BETWEEN ? AND ?
		ORDER BY ` + db.dialect.bytewise("txn_date_time") + `, ` + db.dialect.bytewise("svc_order_id")
	return func(yield func(*recon.Record, error) bool) {
		lo, hi, err := dayBounds(from, to)
		if err != nil {
			yield(nil, err)
			return
		}
		accts, err := db.distinctLeading(ctx, "records", "account", "kind = ?", string(k))
		if err != nil {
			yield(nil, err)
			return
		}
		slices.Sort(accts)   // bytewise, whatever the database's collation
		var rec recon.Record // one for the stream: &r of the loop's r was 545 bytes a record
		for _, a := range accts {
			for r, err := range scanSeq(ctx, db, scan, q, k, a, lo, hi, from, to) {
				rec = r
				if !yield(&rec, err) || err != nil {
					return
				}
			}
		}
	}
}

// dayBounds are the ts bounds of the days from..to: [from 00:00:00, the
// day after to 00:00:00).
func dayBounds(from, to string) (string, string, error) {
	t, err := time.Parse(recon.DateLayout, to)
	if err != nil {
		return "", "", fmt.Errorf("period to %q: %w", to, err)
	}
	return from + " 00:00:00", t.AddDate(0, 0, 1).Format(recon.DateLayout) + " 00:00:00", nil
}

// EvidenceCalls yields the period's calls: pool account, debit, amount.
func (db *DB) EvidenceCalls(ctx context.Context, from, to string) iter.Seq2[evidence.CallAmount, error] {
	lo, hi, err := dayBounds(from, to)
	if err != nil {
		return func(yield func(evidence.CallAmount, error) bool) { yield(evidence.CallAmount{}, err) }
	}
	return scanSeq(ctx, db, func(rows *sql.Rows, c *evidence.CallAmount) error {
		var account, outcome, shape, amount string
		if err := rows.Scan(&account, &outcome, &shape, &amount); err != nil {
			return err
		}
		*c = callAmount(account, recon.CallOutcome(outcome), shape, amount)
		return nil
	}, `SELECT pool_account, outcome, pool_shape, pool_amount FROM calls WHERE ts >= ? AND ts < ?`, lo, hi)
}

// callAmount is a call as the imported totals count it: its pool account,
// whether it debited (succeeded with a pool object), its pool amount.
func callAmount(account string, outcome recon.CallOutcome, shape, amount string) evidence.CallAmount {
	return evidence.CallAmount{PoolAccount: account, Debit: outcome == recon.CallSuccess && shape != "", Amount: amount}
}

// EvidenceCallCount counts the period's calls (EvidenceCalls's), through
// the index of their times alone.
func (db *DB) EvidenceCallCount(ctx context.Context, from, to string) (int, error) {
	lo, hi, err := dayBounds(from, to)
	if err != nil {
		return 0, err
	}
	var n int
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM calls WHERE ts >= ? AND ts < ?`, lo, hi).Scan(&n)
	return n, err
}

// EvidenceCallSources lists the call-log files (imported since their
// SHA-256 is kept) whose calls reach into the period, by name: a file read
// twice with the same bytes once.
func (db *DB) EvidenceCallSources(ctx context.Context, from, to string) ([]evidence.CallSource, error) {
	lo, hi, err := dayBounds(from, to)
	if err != nil {
		return nil, err
	}
	var out []evidence.CallSource
	for s, err := range scanSeq(ctx, db, func(rows *sql.Rows, s *evidence.CallSource) error {
		return rows.Scan(&s.Name, &s.Path, &s.SHA256, &s.Bytes, &s.Lines)
	}, `SELECT DISTINCT name, path, sha256, bytes, lines FROM call_sources
		WHERE first_ts <> '' AND first_ts < ? AND last_ts >= ? ORDER BY name, sha256, path`, hi, lo) {
		if err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && out[n-1].Name == s.Name && out[n-1].SHA256 == s.SHA256 {
			continue // the same bytes from another path: once
		}
		out = append(out, s)
	}
	return out, nil
}

// EvidenceKeptCalls lists, per source, the line hashes of the period's
// calls kept in the database (standard input; svcrecon's own calls with a
// pool object), by time. It reads every kept call through their partial
// index (calls_kept, which the ts range would lead the planner away from)
// and keeps the period's.
func (db *DB) EvidenceKeptCalls(ctx context.Context, from, to string) ([]evidence.KeptCalls, error) {
	lo, hi, err := dayBounds(from, to)
	if err != nil {
		return nil, err
	}
	var out []evidence.KeptCalls
	type row struct {
		source, ts, shape string
		hash              []byte
	}
	// line_hash is bytes, which sort as their lowercase hex does.
	for r, err := range scanSeq(ctx, db, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.source, &r.ts, &r.hash, &r.shape)
	}, `SELECT source, ts, line_hash, pool_shape FROM calls WHERE line_block IS NOT NULL ORDER BY source, ts, line_hash`) {
		if err != nil {
			return nil, err
		}
		if r.ts < lo || r.ts >= hi || r.source == ownSource && r.shape == "" {
			continue
		}
		hash, err := hashHex(r.hash)
		if err != nil {
			return nil, fmt.Errorf("kept call of %s at %s: %w", r.source, r.ts, err)
		}
		if n := len(out); n == 0 || out[n-1].Source != r.source {
			out = append(out, evidence.KeptCalls{Source: r.source})
		}
		k := &out[len(out)-1]
		k.Hashes = append(k.Hashes, hash)
	}
	return out, nil
}

// EvidenceDayWalks counts, per day, the windows of kind k and those done.
func (db *DB) EvidenceDayWalks(ctx context.Context, k recon.Kind, from, to string) ([]evidence.DayWalk, error) {
	var out []evidence.DayWalk
	for w, err := range scanSeq(ctx, db, func(rows *sql.Rows, w *evidence.DayWalk) error {
		return rows.Scan(&w.Day, &w.Windows, &w.Done)
	}, `SELECT day, count(*), sum(CASE WHEN state = 'done' THEN 1 ELSE 0 END) FROM sync_windows
		WHERE kind = ? AND day >= ? AND day <= ? GROUP BY day ORDER BY day`, k, from, to) {
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// EvidenceRecordArrived says whether a statement debit record with
// svcOrderId orderID (when set), else clientOrderId ref, is stored.
func (db *DB) EvidenceRecordArrived(ctx context.Context, orderID, ref string) (bool, error) {
	col, key := "svc_order_id", orderID
	if orderID == "" {
		col, key = "client_order_id", ref
	}
	return db.exists(ctx, `SELECT 1 FROM records WHERE kind = ? AND `+col+` = ? AND txn_mode <> 'CR' LIMIT 1`,
		string(recon.Statement), key)
}

// EvidenceCallArrived says whether a call with a pool object is stored
// whose orderid is svcOrderID, or whose externalRef is the clientOrderId
// of statement record svcOrderID.
func (db *DB) EvidenceCallArrived(ctx context.Context, svcOrderID string) (bool, error) {
	found, err := db.exists(ctx, `SELECT 1 FROM calls WHERE orderid = ? AND pool_shape <> '' LIMIT 1`, svcOrderID)
	if err != nil || found {
		return found, err
	}
	return db.exists(ctx, `SELECT 1 FROM calls WHERE pool_shape <> '' AND external_ref IN (SELECT client_order_id
		FROM records WHERE kind = ? AND svc_order_id = ? AND client_order_id <> '') LIMIT 1`, string(recon.Statement), svcOrderID)
}

// EvidenceLastCall is the ts of the latest call a client logged (any
// source but svcrecon's own) or of a pool call of svcrecon's own.
func (db *DB) EvidenceLastCall(ctx context.Context) (string, error) {
	var ts string
	err := db.QueryRowContext(ctx, `SELECT ts FROM calls WHERE source <> ? OR pool_shape <> ''
		ORDER BY ts DESC LIMIT 1`, ownSource).Scan(&ts)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return ts, err
}

// EvidenceCoverage is the latest day declared covered ("" none).
func (db *DB) EvidenceCoverage(ctx context.Context) (string, error) {
	var through string
	err := db.QueryRowContext(ctx, `SELECT COALESCE(max(through), '') FROM call_coverage`).Scan(&through)
	return through, err
}

// DeclareCoverage records that the call logs cover every day through.
func (db *DB) DeclareCoverage(ctx context.Context, through string, at time.Time, source string) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO call_coverage (through, declared_at, source) VALUES (?, ?, ?)`,
			through, FormatTime(at), source)
		return err
	})
}
