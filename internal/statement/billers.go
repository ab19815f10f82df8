package statement

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Biller change kinds (the biller_changes.change column).
const (
	ChangeAdded   = "added"
	ChangeChanged = "changed"
	ChangeRemoved = "removed"
)

// BillerOptions configure SyncBillers.
type BillerOptions struct {
	DB     *store.DB
	Client BillerFetcher
	// Category limits the sync to one categoryKey ("" all). A full sync of
	// one category marks only billers of that category removed.
	Category string
	// Full walks the whole list and marks billers it does not list as
	// removed; otherwise only billers updated on or after the newest
	// updatedDate of the last successful sync of the same scope are asked
	// for (updatedAfterDate the day before it).
	Full     bool
	PageSize int // default 500
	MaxWalks int // walks while the count differs from meta.totalRecords; default 3
	Calls    *CallCounter

	Log      *slog.Logger
	Progress io.Writer // nil: no progress output
	Now      func() time.Time
}

// BillerSummary says what a SyncBillers did.
type BillerSummary struct {
	SyncID                        int64
	Mode                          string // "full" or "incremental"
	UpdatedAfter                  string // filters.updatedAfterDate sent
	Seen, Added, Changed, Removed int
	Pages, Retries                int
	Elapsed                       time.Duration
}

// Line is a one-line summary.
func (s BillerSummary) Line() string {
	after := ""
	if s.UpdatedAfter != "" {
		after = " after " + s.UpdatedAfter
	}
	return fmt.Sprintf("billers (%s%s): %d seen, %d added, %d changed, %d removed; pages: %d; retries: %d; time: %s",
		s.Mode, after, s.Seen, s.Added, s.Changed, s.Removed, s.Pages, s.Retries, s.Elapsed.Round(time.Millisecond))
}

// billerFields maps the biller's API fields to their columns (isAvailable
// is kept apart: a boolean).
var billerFields = [...]struct{ api, col string }{
	{"billerName", "biller_name"}, {"categoryKey", "category_key"}, {"type", "type"},
	{"categoryName", "category_name"}, {"coverageCity", "coverage_city"}, {"coverageState", "coverage_state"},
	{"coveragePincode", "coverage_pincode"}, {"updatedDate", "updated_date"}, {"billerStatus", "biller_status"},
}

type billerRow struct {
	id    string
	vals  [len(billerFields)]string
	avail bool
}

func toBillerRow(b *svcapi.Biller) billerRow {
	return billerRow{id: str(b.BillerID), avail: bool(b.IsAvailable), vals: [len(billerFields)]string{
		str(b.BillerName), str(b.CategoryKey), str(b.Type), str(b.CategoryName), str(b.CoverageCity),
		str(b.CoverageState), str(b.CoveragePincode), str(b.UpdatedDate), str(b.BillerStatus),
	}}
}

// SyncBillers walks the biller list and records every biller added,
// changed or (with Full) removed in biller_changes, under one biller_syncs
// row. Billers are never deleted. Nothing is stored when a page fails. When
// the billers listed still differ from meta.totalRecords after MaxWalks
// walks, additions and changes are stored but no biller is marked removed,
// and the error wraps ErrIncomplete.
func SyncBillers(ctx context.Context, o BillerOptions) (BillerSummary, error) {
	if o.DB == nil || o.Client == nil {
		return BillerSummary{}, errors.New("biller sync: DB and Client are required")
	}
	if o.PageSize <= 0 {
		o.PageSize = 500
	}
	if o.MaxWalks <= 0 {
		o.MaxWalks = 3
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	began := time.Now()
	sum := BillerSummary{Mode: "incremental"}
	lastMax := "" // the newest updatedDate the last successful sync of the scope saw
	if o.Full {
		sum.Mode = "full"
	} else {
		err := o.DB.QueryRowContext(ctx, `SELECT max_updated FROM biller_syncs
			WHERE state = 'ok' AND (category = '' OR category = ?) ORDER BY id DESC LIMIT 1`, o.Category).Scan(&lastMax)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return sum, fmt.Errorf("biller sync: last sync: %w", err)
		}
		sum.UpdatedAfter = dayBefore(lastMax)
	}
	err := o.DB.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO biller_syncs (mode, category, updated_after, started_at, state)
			VALUES (?, ?, ?, ?, 'running')`, sum.Mode, o.Category, sum.UpdatedAfter, store.FormatTime(o.Now()))
		if err != nil {
			return err
		}
		sum.SyncID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return sum, fmt.Errorf("biller sync: record sync: %w", err)
	}
	o.Log.InfoContext(ctx, "biller sync started", "sync", sum.SyncID, "mode", sum.Mode, "category", o.Category,
		"updatedAfter", sum.UpdatedAfter)
	attempts0 := o.Calls.Attempts()
	calls := 0
	maxUpdated := lastMax
	err = func() error {
		var bar *progress.Bar
		if o.Progress != nil {
			bar = progress.New(o.Progress, "billers", 0, o.Log)
			defer bar.Done()
		}
		seen, total, complete, err := walkBillers(ctx, o, &sum, &calls, bar)
		if err != nil {
			return err
		}
		for _, b := range seen {
			maxUpdated = max(maxUpdated, b.vals[7])
		}
		sum.Seen = len(seen)
		if err := storeBillers(ctx, o, &sum, seen, o.Full && complete); err != nil {
			return err
		}
		if !complete {
			return fmt.Errorf("biller list: %d billers listed, the service says %d after %d walks: %w",
				len(seen), total, o.MaxWalks, ErrIncomplete)
		}
		return nil
	}()
	if o.Calls != nil {
		sum.Retries = max(0, int(o.Calls.Attempts()-attempts0)-calls)
	}
	sum.Elapsed = time.Since(began)
	state, msg := "ok", ""
	if err != nil {
		state, msg = "failed", err.Error()
	}
	werr := o.DB.Write(context.WithoutCancel(ctx), func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE biller_syncs SET finished_at = ?, state = ?, seen = ?, added = ?, changed = ?,
			removed = ?, error = ?, max_updated = ? WHERE id = ?`, store.FormatTime(o.Now()), state, sum.Seen,
			sum.Added, sum.Changed, sum.Removed, msg, maxUpdated, sum.SyncID)
		return err
	})
	if err == nil && werr != nil {
		err = fmt.Errorf("biller sync: record result: %w", werr)
	}
	o.Log.InfoContext(ctx, "biller sync finished", "sync", sum.SyncID, "summary", sum.Line())
	return sum, err
}

// dayBefore returns the day before a YYYY-MM-DD date ("" stays ""; text
// that is not such a date is returned as it is). updatedDate is a date and
// the service lists billers updated strictly after updatedAfterDate, so an
// incremental sync asks from the day before the newest updatedDate it saw:
// a biller updated later on that same day is listed again, not missed
// (billers listed again unchanged record no change).
func dayBefore(d string) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return t.AddDate(0, 0, -1).Format(time.DateOnly)
}

// walkBillers fetches every page, walking again (up to MaxWalks) while the
// billers seen differ from meta.totalRecords. complete is false when they
// still differ.
func walkBillers(ctx context.Context, o BillerOptions, sum *BillerSummary, calls *int, bar *progress.Bar) (_ []billerRow, total int64, complete bool, _ error) {
	req := svcapi.BillersRequest{
		Pagination: svcapi.Pagination{RecordsPerPage: strconv.Itoa(o.PageSize)},
		Filters:    svcapi.BillerFilters{UpdatedAfterDate: sum.UpdatedAfter, CategoryKey: o.Category},
	}
	index := map[string]int{}
	var seen []billerRow
	for walk := 1; walk <= o.MaxWalks; walk++ {
		known := false
		normal := 0
		for p := 1; ; p++ {
			if p > maxPages {
				return nil, 0, false, fmt.Errorf("biller list: more than %d pages; the service never sent a short page", maxPages)
			}
			req.Pagination.PageNumber = strconv.Itoa(p)
			*calls++
			pg, err := o.Client.Billers(ctx, req)
			if err != nil {
				return nil, 0, false, fmt.Errorf("fetch biller list page %d: %w", p, err)
			}
			if pg == nil {
				pg = &svcapi.BillerPage{}
			}
			sum.Pages++
			for i := range pg.Records {
				r := toBillerRow(&pg.Records[i])
				if r.id == "" {
					return nil, 0, false, fmt.Errorf("biller list page %d record %d: billerId missing", p, i+1)
				}
				if at, ok := index[r.id]; ok {
					seen[at] = r
					continue
				}
				index[r.id] = len(seen)
				seen = append(seen, r)
			}
			n := len(pg.Records)
			bar.Add(int64(n))
			total = int64(pg.Meta.TotalRecords)
			known = total > 0 || (n == 0 && p == 1)
			if p == 1 && walk == 1 {
				bar.SetTotal(total)
			}
			last := lastPage(p, n, o.PageSize, normal, pg.Meta)
			normal = max(normal, n)
			if last {
				break
			}
		}
		if !known || int64(len(seen)) == total {
			return seen, total, true, nil
		}
		o.Log.InfoContext(ctx, "walking biller list again: billers seen differ from the service's count",
			"seen", len(seen), LogTotal, total, LogWalk, walk)
	}
	return seen, total, false, nil
}

// storeBillers writes the billers seen in one transaction, recording each
// change; with markRemoved, billers of the scope not seen are marked removed.
func storeBillers(ctx context.Context, o BillerOptions, sum *BillerSummary, seen []billerRow, markRemoved bool) error {
	now := store.FormatTime(o.Now())
	cols := make([]string, len(billerFields))
	for i, f := range billerFields {
		cols[i] = f.col
	}
	colList := strings.Join(cols, ", ")
	return o.DB.Write(ctx, func(tx *sql.Tx) error {
		get, err := tx.PrepareContext(ctx, `SELECT `+colList+`, is_available, removed FROM billers WHERE biller_id = ?`)
		if err != nil {
			return err
		}
		defer get.Close()
		ins, err := tx.PrepareContext(ctx, `INSERT INTO billers (biller_id, `+colList+`, is_available, first_seen_at, last_seen_at)
			VALUES (?`+strings.Repeat(", ?", len(cols))+`, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		upd, err := tx.PrepareContext(ctx, `UPDATE billers SET `+strings.Join(cols, " = ?, ")+` = ?, is_available = ?,
			removed = 0, removed_at = NULL, last_seen_at = ? WHERE biller_id = ?`)
		if err != nil {
			return err
		}
		defer upd.Close()
		chg, err := tx.PrepareContext(ctx, `INSERT INTO biller_changes (sync_id, biller_id, change, fields, at) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer chg.Close()
		record := func(id, change string, fields map[string][2]any) error {
			text := ""
			if len(fields) > 0 {
				b, err := json.Marshal(fields)
				if err != nil {
					return err
				}
				text = string(b)
			}
			_, err := chg.ExecContext(ctx, sum.SyncID, id, change, text, now)
			return err
		}
		for i := range seen {
			r := &seen[i]
			args := make([]any, 0, len(cols)+4)
			var old billerRow
			var removed bool
			dest := make([]any, 0, len(cols)+2)
			for j := range old.vals {
				dest = append(dest, &old.vals[j])
			}
			dest = append(dest, &old.avail, &removed)
			err := get.QueryRowContext(ctx, r.id).Scan(dest...)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				args = append(args, r.id)
				for _, v := range r.vals {
					args = append(args, v)
				}
				args = append(args, r.avail, now, now)
				if _, err := ins.ExecContext(ctx, args...); err != nil {
					return fmt.Errorf("insert biller %s: %w", r.id, err)
				}
				sum.Added++
				if err := record(r.id, ChangeAdded, nil); err != nil {
					return err
				}
				continue
			case err != nil:
				return fmt.Errorf("read biller %s: %w", r.id, err)
			}
			diff := map[string][2]any{}
			for j, f := range billerFields {
				if old.vals[j] != r.vals[j] {
					diff[f.api] = [2]any{old.vals[j], r.vals[j]}
				}
			}
			if old.avail != r.avail {
				diff["isAvailable"] = [2]any{old.avail, r.avail}
			}
			for _, v := range r.vals {
				args = append(args, v)
			}
			args = append(args, r.avail, now, r.id)
			if _, err := upd.ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("update biller %s: %w", r.id, err)
			}
			switch {
			case removed:
				// Listed again after it was marked removed.
				diff["removed"] = [2]any{true, false}
				sum.Added++
				err = record(r.id, ChangeAdded, diff)
			case len(diff) > 0:
				sum.Changed++
				err = record(r.id, ChangeChanged, diff)
			}
			if err != nil {
				return err
			}
		}
		if !markRemoved {
			return nil
		}
		listed := make(map[string]bool, len(seen))
		for _, r := range seen {
			listed[r.id] = true
		}
		rows, err := tx.QueryContext(ctx, `SELECT biller_id FROM billers WHERE removed = 0 AND (? = '' OR category_key = ?)`,
			o.Category, o.Category)
		if err != nil {
			return err
		}
		var gone []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			if !listed[id] {
				gone = append(gone, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range gone {
			if _, err := tx.ExecContext(ctx, `UPDATE billers SET removed = 1, removed_at = ? WHERE biller_id = ?`, now, id); err != nil {
				return fmt.Errorf("mark biller %s removed: %w", id, err)
			}
			if err := record(id, ChangeRemoved, nil); err != nil {
				return err
			}
			sum.Removed++
		}
		return nil
	})
}
