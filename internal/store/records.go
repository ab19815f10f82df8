package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// SyncWindow is the checkpoint of one window of a statement sync (a row of
// sync_windows): one kind, account and IST day.
type SyncWindow struct {
	Kind     recon.Kind
	Account  string
	Day      string // YYYY-MM-DD
	State    string // the syncer's window state (walking, done, mismatch, failed)
	NextPage int    // page a resumed walk starts at
	Total    *int64 // meta.totalRecords last seen; nil: not known
	Stored   *int64 // records of the day stored after the walk; nil: not counted
	Walks    int    // walks started, over all runs
	Error    string
}

// RecordPage is one unit of a record write: the records of a page (maybe
// none) and the checkpoint of their window, stored in the same transaction.
type RecordPage struct {
	Records []recon.Record
	// Window, when set, is written after Records.
	Window *SyncWindow
	// Finish, when set (with Window), is called after Records are stored
	// with the number of records of the window's day now stored (also put
	// in Window.Stored); it settles Window's state before it is written.
	// It is called again when the transaction is run again (PostgreSQL,
	// aborted for a deadlock with another writer), so it sets every field
	// it decides each time.
	Finish func(stored int64, w *SyncWindow)
}

// SyncRunResult is the end of a sync run (its sync_runs row).
type SyncRunResult struct {
	State, Error                    string // state: ok, partial or failed
	New, Updated, Pages             int
	Windows, WindowsFailed, Retries int
	// Probed, Rewalked and Late are the held days probed, the held days
	// walked again and the records those walks found that were not held.
	Probed, Rewalked, Late int
}

// DayKey names the records of one kind on one IST day (YYYY-MM-DD).
type DayKey struct {
	Kind recon.Kind
	Day  string
}

// recordColumns are the records columns of recon.RecordFields, in Values order.
var recordColumns = func() []string {
	cols := make([]string, recon.NumFields)
	for i, f := range recon.RecordFields {
		cols[i] = f.Column
	}
	return cols
}()

// The record statements, generated from recon.RecordFields.
var (
	touchRecordSQL = fmt.Sprintf(`UPDATE records SET last_synced_at = ? WHERE kind = ? AND account = ? AND svc_order_id = ? AND %s`,
		strings.Join(recordColumns, " = ? AND ")+" = ?")
	updateRecordSQL = fmt.Sprintf(`UPDATE records SET %s, last_synced_at = ? WHERE kind = ? AND account = ? AND svc_order_id = ?`,
		strings.Join(recordColumns, " = ?, ")+" = ?")
	windowSQL = `INSERT INTO sync_windows (kind, account, day, state, next_page, total_records, stored_records, walks, error, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (kind, account, day) DO UPDATE SET state = excluded.state, next_page = excluded.next_page,
			total_records = excluded.total_records, stored_records = excluded.stored_records,
			walks = excluded.walks, error = excluded.error, updated_at = excluded.updated_at`
	// countDaySQL counts the records of one day through the records_time index.
	countDaySQL = `SELECT count(*) FROM records WHERE kind = ? AND account = ? AND txn_date_time >= ? AND txn_date_time < ?`
)

// recordTx is a write transaction of records and checkpoints with its
// prepared statements.
type recordTx struct {
	db            *DB
	tx            *sql.Tx
	ctx           context.Context
	now           string
	insert        *rowInsert
	batch         int // records gathered for one insert
	touch, update *sql.Stmt
	window, count *sql.Stmt
	args          []any
	newN, updN    int
	pending       []*recon.Record // records waiting for a whole multi-row insert
	inserted      map[string]bool
	dirty         map[[2]string]bool // (kind, day) with a record new or changed: a new version (day_versions)
}

// recordsPerInsert is how many records one INSERT statement of
// WriteRecords carries (SQLite; see dialect.batchRows).
const recordsPerInsert = 32

// recordKey is the key of a record: its unique index's columns.
const recordKey = "kind, account, svc_order_id"

// recordsInsert is the insert of records stamped now, skipping those
// already stored, in a way that tells which were new (flush).
func recordsInsert(now string) *rowInsert {
	return &rowInsert{table: "records", cols: append([]string{"kind", "account", "svc_order_id"}, recordColumns...),
		fixed: []fixedValue{{"first_synced_at", now}, {"last_synced_at", now}}, key: recordKey, per: recordsPerInsert}
}

// WriteRecords stores pages in one transaction: each page's records are
// upserted by (kind, account, svcOrderId), then its window checkpoint is
// written. It returns how many records were inserted and how many had their
// content changed (a record stored again unchanged only has its
// last_synced_at moved to at). Records are inserted many at a time (a
// statement of recordsPerInsert on SQLite, a COPY on PostgreSQL); those
// already stored are then compared and updated one by one. On error
// nothing is stored. On PostgreSQL calls run at once (a sync's
// RecordWriters, pages of different windows); on SQLite they are
// serialized.
func (db *DB) WriteRecords(ctx context.Context, at time.Time, pages []RecordPage) (newN, updN int, err error) {
	err = db.writeAlongside(ctx, func(tx *sql.Tx) error {
		w := &recordTx{db: db, tx: tx, ctx: ctx, now: FormatTime(at), batch: db.dialect.batchRows(recordsPerInsert)}
		w.insert = recordsInsert(w.now)
		w.args = make([]any, 0, min(w.batch, 1024)*(recon.NumFields+3))
		var perr error
		prep := func(q string) *sql.Stmt {
			if perr != nil {
				return nil
			}
			var s *sql.Stmt
			s, perr = tx.PrepareContext(ctx, q)
			return s
		}
		w.touch, w.update = prep(touchRecordSQL), prep(updateRecordSQL)
		w.window, w.count = prep(windowSQL), prep(countDaySQL)
		defer func() {
			w.insert.close()
			for _, s := range []*sql.Stmt{w.touch, w.update, w.window, w.count} {
				if s != nil {
					s.Close()
				}
			}
		}()
		if perr != nil {
			return fmt.Errorf("prepare: %w", perr)
		}
		for i := range pages {
			if err := w.page(&pages[i]); err != nil {
				return err
			}
		}
		if err := w.flush(); err != nil {
			return err
		}
		if err := w.forgetDigests(); err != nil {
			return err
		}
		newN, updN = w.newN, w.updN
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return newN, updN, nil
}

func (w *recordTx) page(p *RecordPage) error {
	for i := range p.Records {
		w.pending = append(w.pending, &p.Records[i])
		if len(w.pending) == w.batch {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	if p.Window == nil {
		return nil
	}
	// The day's count comes after the page's records; the checkpoint needs
	// them in the same transaction only, so that pages are inserted
	// together (a COPY of many on PostgreSQL).
	if p.Finish != nil {
		if err := w.flush(); err != nil {
			return err
		}
		n, err := w.stored(p.Window)
		if err != nil {
			return err
		}
		p.Window.Stored = &n
		p.Finish(n, p.Window)
	}
	return w.checkpoint(p.Window)
}

// flush inserts the pending records; each one not inserted (stored
// already, or twice in the batch) is then upserted alone.
func (w *recordTx) flush() error {
	recs := w.pending
	if len(recs) == 0 {
		return nil
	}
	w.pending = w.pending[:0]
	a := w.args[:0]
	for _, r := range recs {
		a = append(a, string(r.Kind), r.Account, r.SvcOrderID)
		for i := range r.Values {
			a = append(a, r.Values[i])
		}
	}
	w.args = a
	if w.inserted == nil {
		w.inserted = map[string]bool{}
	}
	clear(w.inserted)
	all, err := w.db.dialect.insertNewRows(w.ctx, w.tx, w.insert, a, w.noteInserted)
	if err != nil {
		return fmt.Errorf("insert records %s…: %w", recs[0].SvcOrderID, err)
	}
	if all {
		w.newN += len(recs)
		for _, r := range recs {
			w.markDirty(string(r.Kind), r.Values[recon.FTxnDate])
		}
		return nil
	}
	w.newN += len(w.inserted)
	for _, r := range recs {
		if w.inserted[string(r.Kind)+"\x00"+r.Account+"\x00"+r.SvcOrderID] {
			w.markDirty(string(r.Kind), r.Values[recon.FTxnDate])
		}
	}
	if len(w.inserted) == len(recs) {
		return nil
	}
	for _, r := range recs {
		k := string(r.Kind) + "\x00" + r.Account + "\x00" + r.SvcOrderID
		if w.inserted[k] {
			delete(w.inserted, k) // a second record of the key in the batch is upserted
			continue
		}
		if err := w.upsert(r); err != nil {
			return err
		}
	}
	return nil
}

// noteInserted notes the keys of rows (kind, account, svcOrderId) in
// w.inserted, and closes rows.
func (w *recordTx) noteInserted(rows *sql.Rows) error {
	defer rows.Close()
	for rows.Next() {
		var kind, account, svc string
		if err := rows.Scan(&kind, &account, &svc); err != nil {
			return err
		}
		w.inserted[kind+"\x00"+account+"\x00"+svc] = true
	}
	return rows.Err()
}

// upsert counts a record stored already as updated or unchanged: an
// update of last_synced_at that matches only identical content, and only
// then a full update.
func (w *recordTx) upsert(r *recon.Record) error {
	a := append(w.args[:0], w.now, string(r.Kind), r.Account, r.SvcOrderID)
	for i := range r.Values {
		a = append(a, r.Values[i])
	}
	res, err := w.touch.ExecContext(w.ctx, a...)
	if err != nil {
		return fmt.Errorf("touch record %s: %w", r.SvcOrderID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("touch record %s: %w", r.SvcOrderID, err)
	} else if n == 1 {
		w.args = a
		return nil
	}
	var was string // the day the record had: its digest goes too
	if err := w.tx.QueryRowContext(w.ctx, `SELECT txn_date FROM records WHERE kind = ? AND account = ? AND svc_order_id = ?`,
		string(r.Kind), r.Account, r.SvcOrderID).Scan(&was); err != nil {
		return fmt.Errorf("update record %s: %w", r.SvcOrderID, err)
	}
	w.markDirty(string(r.Kind), was)
	w.markDirty(string(r.Kind), r.Values[recon.FTxnDate])
	a = a[:0]
	for i := range r.Values {
		a = append(a, r.Values[i])
	}
	a = append(a, w.now, string(r.Kind), r.Account, r.SvcOrderID)
	if _, err := w.update.ExecContext(w.ctx, a...); err != nil {
		return fmt.Errorf("update record %s: %w", r.SvcOrderID, err)
	}
	w.updN++
	w.args = a
	return nil
}

// markDirty notes that a record of kind and day was inserted or changed.
func (w *recordTx) markDirty(kind, day string) {
	if w.dirty == nil {
		w.dirty = map[[2]string]bool{}
	}
	w.dirty[[2]string{kind, day}] = true
}

// forgetDigests moves on the version of the days written (day_versions):
// the digests kept of them (day_digests, evidence) no longer hold.
func (w *recordTx) forgetDigests() error {
	// In key order: two writers' transactions lock their days' rows in
	// the same order, and do not deadlock on them.
	for _, k := range slices.SortedFunc(maps.Keys(w.dirty), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	}) {
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO day_versions (kind, day, version) VALUES (?, ?, 1)
			ON CONFLICT (kind, day) DO UPDATE SET version = day_versions.version + 1`, k[0], k[1]); err != nil {
			return fmt.Errorf("a new version of %s %s: %w", k[0], k[1], err)
		}
	}
	clear(w.dirty)
	return nil
}

// checkpoint writes the state of a window.
func (w *recordTx) checkpoint(cp *SyncWindow) error {
	_, err := w.window.ExecContext(w.ctx, string(cp.Kind), cp.Account, cp.Day, cp.State, cp.NextPage,
		nullInt(cp.Total), nullInt(cp.Stored), cp.Walks, cp.Error, w.now)
	if err != nil {
		return fmt.Errorf("checkpoint %s window %s: %w", cp.Kind, cp.Day, err)
	}
	return nil
}

// stored counts the records of the window's kind and account on its day.
func (w *recordTx) stored(cp *SyncWindow) (int64, error) {
	d, err := time.ParseInLocation(recon.DateLayout, cp.Day, time.UTC)
	if err != nil {
		return 0, fmt.Errorf("count %s records of %s: %w", cp.Kind, cp.Day, err)
	}
	var n int64
	next := d.AddDate(0, 0, 1).Format(recon.DateLayout)
	if err := w.count.QueryRowContext(w.ctx, string(cp.Kind), cp.Account, cp.Day, next).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s records of %s: %w", cp.Kind, cp.Day, err)
	}
	return n, nil
}

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// SyncWindows returns the checkpoints of the account's windows from day
// from to day to (YYYY-MM-DD, inclusive). Only Kind, Day, State, NextPage,
// Walks and Total are read.
func (db *DB) SyncWindows(ctx context.Context, account, from, to string) ([]SyncWindow, error) {
	rows, err := db.QueryContext(ctx, `SELECT kind, day, state, next_page, walks, total_records FROM sync_windows
		WHERE account = ? AND day >= ? AND day <= ?`, account, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SyncWindow
	for rows.Next() {
		w := SyncWindow{Account: account}
		var total sql.NullInt64
		if err := rows.Scan(&w.Kind, &w.Day, &w.State, &w.NextPage, &w.Walks, &total); err != nil {
			return nil, err
		}
		if total.Valid {
			w.Total = &total.Int64
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// DayCounts returns how many records of the account are stored per kind
// and IST day, from day from to day to (YYYY-MM-DD, inclusive); days
// without a record are absent.
func (db *DB) DayCounts(ctx context.Context, account, from, to string) (map[DayKey]int64, error) {
	end, err := time.Parse(recon.DateLayout, to)
	if err != nil {
		return nil, fmt.Errorf("count records to %q: %w", to, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT kind, substr(txn_date_time, 1, 10), count(*) FROM records
		WHERE account = ? AND kind IN ('statement', 'orders') AND txn_date_time >= ? AND txn_date_time < ?
		GROUP BY kind, substr(txn_date_time, 1, 10)`, account, from, end.AddDate(0, 0, 1).Format(recon.DateLayout))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[DayKey]int64{}
	for rows.Next() {
		var k DayKey
		var n int64
		if err := rows.Scan(&k.Kind, &k.Day, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// StartSyncRun records a sync run of the account's kinds over from..to
// (YYYY-MM-DD) as running and returns its id. A run of the account still
// recorded as running was killed: it is marked failed first (its windows
// resume in the new run).
func (db *DB) StartSyncRun(ctx context.Context, account string, kinds []recon.Kind, from, to string, at time.Time) (int64, error) {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	var id int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE sync_runs SET state = 'failed',
			error = 'ended without finishing (killed?); resumed by a later run' WHERE state = 'running' AND account = ?`,
			account); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `INSERT INTO sync_runs (kinds, account, date_from, date_to, started_at, state)
			VALUES (?, ?, ?, ?, ?, 'running') RETURNING id`, strings.Join(names, ","), account, from, to, FormatTime(at)).Scan(&id)
	})
	return id, err
}

// FinishSyncRun records the end of sync run id at at.
func (db *DB) FinishSyncRun(ctx context.Context, id int64, at time.Time, r SyncRunResult) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sync_runs SET finished_at = ?, state = ?, records_new = ?, records_updated = ?,
			pages = ?, windows = ?, windows_failed = ?, retries = ?, days_probed = ?, days_rewalked = ?, records_late = ?,
			error = ? WHERE id = ?`,
			FormatTime(at), r.State, r.New, r.Updated, r.Pages, r.Windows, r.WindowsFailed, r.Retries,
			r.Probed, r.Rewalked, r.Late, r.Error, id)
		return err
	})
}
