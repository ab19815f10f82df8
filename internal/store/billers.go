package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Biller change kinds (the biller_changes.change column).
const (
	BillerAdded   = "added"
	BillerChanged = "changed"
	BillerRemoved = "removed"
)

// Biller is one biller of the service's biller list (a row of billers).
type Biller struct {
	ID                                           string // billerId
	Name, CategoryKey, Type, CategoryName        string
	CoverageCity, CoverageState, CoveragePincode string
	UpdatedDate, Status                          string
	Available                                    bool // isAvailable
}

// billerFields maps the biller's text fields to their API names (the keys of
// biller_changes.fields) and columns; isAvailable is kept apart: a boolean.
var billerFields = [...]struct {
	api, col string
	get      func(*Biller) *string
}{
	{"billerName", "biller_name", func(b *Biller) *string { return &b.Name }},
	{"categoryKey", "category_key", func(b *Biller) *string { return &b.CategoryKey }},
	{"type", "type", func(b *Biller) *string { return &b.Type }},
	{"categoryName", "category_name", func(b *Biller) *string { return &b.CategoryName }},
	{"coverageCity", "coverage_city", func(b *Biller) *string { return &b.CoverageCity }},
	{"coverageState", "coverage_state", func(b *Biller) *string { return &b.CoverageState }},
	{"coveragePincode", "coverage_pincode", func(b *Biller) *string { return &b.CoveragePincode }},
	{"updatedDate", "updated_date", func(b *Biller) *string { return &b.UpdatedDate }},
	{"billerStatus", "biller_status", func(b *Biller) *string { return &b.Status }},
}

// BillerSyncResult is the end of a biller sync (its biller_syncs row).
type BillerSyncResult struct {
	State, Error string // state: ok or failed
	// MaxUpdated is the newest updatedDate seen, the start of the next
	// incremental sync of the scope.
	MaxUpdated                    string
	Seen, Added, Changed, Removed int
}

// BillerChanges counts what StoreBillers changed.
type BillerChanges struct{ Added, Changed, Removed int }

// LastBillerSync returns the newest updatedDate the last successful biller
// sync of the scope saw (a sync of every category covers each category);
// "" when there is none.
func (db *DB) LastBillerSync(ctx context.Context, category string) (string, error) {
	var maxUpdated string
	err := db.QueryRowContext(ctx, `SELECT max_updated FROM biller_syncs
		WHERE state = 'ok' AND (category = '' OR category = ?) ORDER BY id DESC LIMIT 1`, category).Scan(&maxUpdated)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return maxUpdated, err
}

// StartBillerSync records a biller sync as running and returns its id.
func (db *DB) StartBillerSync(ctx context.Context, mode, category, updatedAfter string, at time.Time) (int64, error) {
	var id int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO biller_syncs (mode, category, updated_after, started_at, state)
			VALUES (?, ?, ?, ?, 'running') RETURNING id`, mode, category, updatedAfter, FormatTime(at)).Scan(&id)
	})
	return id, err
}

// FinishBillerSync records the end of biller sync id at at.
func (db *DB) FinishBillerSync(ctx context.Context, id int64, at time.Time, r BillerSyncResult) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE biller_syncs SET finished_at = ?, state = ?, seen = ?, added = ?, changed = ?,
			removed = ?, error = ?, max_updated = ? WHERE id = ?`, FormatTime(at), r.State, r.Seen,
			r.Added, r.Changed, r.Removed, r.Error, r.MaxUpdated, id)
		return err
	})
}

// StoreBillers writes the billers seen by sync syncID in one transaction,
// recording each biller added, changed (with the fields that changed, old
// and new) or listed again after it was removed. With markRemoved, billers
// of the category ("" every category) that were not seen are marked
// removed (never deleted). On error nothing is stored.
func (db *DB) StoreBillers(ctx context.Context, syncID int64, at time.Time, seen []Biller, markRemoved bool, category string) (BillerChanges, error) {
	var ch BillerChanges
	err := db.Write(ctx, func(tx *sql.Tx) error {
		w := &billerTx{ctx: ctx, syncID: syncID, now: FormatTime(at)}
		defer w.close()
		if err := w.prepare(tx); err != nil {
			return err
		}
		for i := range seen {
			if err := w.store(&seen[i]); err != nil {
				return err
			}
		}
		if markRemoved {
			n, err := markBillersRemoved(ctx, tx, seen, category, w.now, w.record)
			w.ch.Removed = n
			if err != nil {
				return err
			}
		}
		ch = w.ch
		return nil
	})
	if err != nil {
		return BillerChanges{}, err
	}
	return ch, nil
}

// billerTx is StoreBillers' transaction with its prepared statements.
type billerTx struct {
	ctx                context.Context
	syncID             int64
	now                string
	get, ins, upd, chg *sql.Stmt
	ch                 BillerChanges
}

// billerCols are the columns of billerFields, in order.
var billerCols = func() []string {
	cols := make([]string, len(billerFields))
	for i, f := range billerFields {
		cols[i] = f.col
	}
	return cols
}()

// prepare prepares the statements of w in tx.
func (w *billerTx) prepare(tx *sql.Tx) error {
	colList := strings.Join(billerCols, ", ")
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&w.get, `SELECT ` + colList + `, is_available, removed FROM billers WHERE biller_id = ?`},
		{&w.ins, `INSERT INTO billers (biller_id, ` + colList + `, is_available, first_seen_at, last_seen_at)
			VALUES (?` + strings.Repeat(", ?", len(billerCols)) + `, ?, ?, ?)`},
		{&w.upd, `UPDATE billers SET ` + strings.Join(billerCols, " = ?, ") + ` = ?, is_available = ?,
			removed = 0, removed_at = NULL, last_seen_at = ? WHERE biller_id = ?`},
		{&w.chg, `INSERT INTO biller_changes (sync_id, biller_id, change, fields, at) VALUES (?, ?, ?, ?, ?)`},
	} {
		var err error
		if *p.st, err = tx.PrepareContext(w.ctx, p.q); err != nil {
			return err
		}
	}
	return nil
}

func (w *billerTx) close() {
	for _, st := range []*sql.Stmt{w.get, w.ins, w.upd, w.chg} {
		if st != nil {
			st.Close()
		}
	}
}

// record records a change of biller id, with the fields that changed (old
// and new, by API name).
func (w *billerTx) record(id, change string, fields map[string][2]any) error {
	text := ""
	if len(fields) > 0 {
		b, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		text = string(b)
	}
	_, err := w.chg.ExecContext(w.ctx, w.syncID, id, change, text, w.now)
	return err
}

// store inserts or updates biller r, counting and recording what changed.
func (w *billerTx) store(r *Biller) error {
	var old Biller
	var removed bool
	dest := make([]any, 0, len(billerFields)+2)
	for _, f := range billerFields {
		dest = append(dest, f.get(&old))
	}
	dest = append(dest, &old.Available, &removed)
	err := w.get.QueryRowContext(w.ctx, r.ID).Scan(dest...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return w.insert(r)
	case err != nil:
		return fmt.Errorf("read biller %s: %w", r.ID, err)
	}
	args := make([]any, 0, len(billerFields)+3)
	for _, f := range billerFields {
		args = append(args, *f.get(r))
	}
	args = append(args, r.Available, w.now, r.ID)
	if _, err := w.upd.ExecContext(w.ctx, args...); err != nil {
		return fmt.Errorf("update biller %s: %w", r.ID, err)
	}
	diff := billerDiff(&old, r)
	switch {
	case removed:
		// Listed again after it was marked removed.
		diff["removed"] = [2]any{true, false}
		w.ch.Added++
		return w.record(r.ID, BillerAdded, diff)
	case len(diff) > 0:
		w.ch.Changed++
		return w.record(r.ID, BillerChanged, diff)
	}
	return nil
}

// insert stores a biller seen for the first time.
func (w *billerTx) insert(r *Biller) error {
	args := make([]any, 0, len(billerFields)+4)
	args = append(args, r.ID)
	for _, f := range billerFields {
		args = append(args, *f.get(r))
	}
	args = append(args, r.Available, w.now, w.now)
	if _, err := w.ins.ExecContext(w.ctx, args...); err != nil {
		return fmt.Errorf("insert biller %s: %w", r.ID, err)
	}
	w.ch.Added++
	return w.record(r.ID, BillerAdded, nil)
}

// billerDiff returns the fields of a biller that differ from old to r, by
// API name: old and new.
func billerDiff(old, r *Biller) map[string][2]any {
	diff := map[string][2]any{}
	for _, f := range billerFields {
		if o, n := *f.get(old), *f.get(r); o != n {
			diff[f.api] = [2]any{o, n}
		}
	}
	if old.Available != r.Available {
		diff["isAvailable"] = [2]any{old.Available, r.Available}
	}
	return diff
}

// markBillersRemoved marks billers of the category that are not in seen as
// removed, recording each; it returns how many.
func markBillersRemoved(ctx context.Context, tx *sql.Tx, seen []Biller, category, now string,
	record func(id, change string, fields map[string][2]any) error) (int, error) {
	listed := make(map[string]bool, len(seen))
	for _, r := range seen {
		listed[r.ID] = true
	}
	rows, err := tx.QueryContext(ctx, `SELECT biller_id FROM billers WHERE removed = 0 AND (? = '' OR category_key = ?)`,
		category, category)
	if err != nil {
		return 0, err
	}
	var gone []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		if !listed[id] {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for i, id := range gone {
		if _, err := tx.ExecContext(ctx, `UPDATE billers SET removed = 1, removed_at = ? WHERE biller_id = ?`, now, id); err != nil {
			return i, fmt.Errorf("mark biller %s removed: %w", id, err)
		}
		if err := record(id, BillerRemoved, nil); err != nil {
			return i, err
		}
	}
	return len(gone), nil
}
