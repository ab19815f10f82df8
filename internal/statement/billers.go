package statement

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// BillerOptions configure SyncBillers.
type BillerOptions struct {
	DB     BillerStore
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
	Progress io.Writer        // nil: no progress output
	Now      func() time.Time // the clock of the recorded times; default time.Now
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

func toBiller(b *svcapi.Biller) store.Biller {
	return store.Biller{ID: str(b.BillerID), Name: str(b.BillerName), CategoryKey: str(b.CategoryKey), Type: str(b.Type),
		CategoryName: str(b.CategoryName), CoverageCity: str(b.CoverageCity), CoverageState: str(b.CoverageState),
		CoveragePincode: str(b.CoveragePincode), UpdatedDate: str(b.UpdatedDate), Status: str(b.BillerStatus),
		Available: bool(b.IsAvailable)}
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
		var err error
		if lastMax, err = o.DB.LastBillerSync(ctx, o.Category); err != nil {
			return sum, fmt.Errorf("biller sync: last sync: %w", err)
		}
		sum.UpdatedAfter = dayBefore(lastMax)
	}
	id, err := o.DB.StartBillerSync(ctx, sum.Mode, o.Category, sum.UpdatedAfter, o.Now())
	sum.SyncID = id
	if err != nil {
		return sum, fmt.Errorf("biller sync: record sync: %w", err)
	}
	o.Log.InfoContext(ctx, "biller sync started", recon.LogBillerSync, sum.SyncID, "mode", sum.Mode, "category", o.Category,
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
			maxUpdated = max(maxUpdated, b.UpdatedDate)
		}
		sum.Seen = len(seen)
		ch, err := o.DB.StoreBillers(ctx, sum.SyncID, o.Now(), seen, o.Full && complete, o.Category)
		sum.Added, sum.Changed, sum.Removed = ch.Added, ch.Changed, ch.Removed
		if err != nil {
			return err
		}
		if !complete {
			return incompleteList(len(seen), total, o.MaxWalks)
		}
		return nil
	}()
	if o.Calls != nil {
		sum.Retries = max(0, int(o.Calls.Attempts()-attempts0)-calls)
	}
	sum.Elapsed = time.Since(began)
	res := store.BillerSyncResult{State: "ok", MaxUpdated: maxUpdated, Seen: sum.Seen, Added: sum.Added,
		Changed: sum.Changed, Removed: sum.Removed}
	if err != nil {
		res.State, res.Error = "failed", errText(err)
	}
	werr := o.DB.FinishBillerSync(context.WithoutCancel(ctx), sum.SyncID, o.Now(), res)
	if err == nil && werr != nil {
		err = fmt.Errorf("biller sync: record result: %w", werr)
	}
	o.Log.InfoContext(ctx, "biller sync finished", recon.LogBillerSync, sum.SyncID, "summary", sum.Line())
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
func walkBillers(ctx context.Context, o BillerOptions, sum *BillerSummary, calls *int, bar *progress.Bar) (_ []store.Biller, total int64, complete bool, _ error) {
	req := svcapi.BillersRequest{
		Pagination: svcapi.Pagination{RecordsPerPage: strconv.Itoa(o.PageSize)},
		Filters:    svcapi.BillerFilters{UpdatedAfterDate: sum.UpdatedAfter, CategoryKey: o.Category},
	}
	index := map[string]int{}
	var seen []store.Biller
	for walk := 1; walk <= o.MaxWalks; walk++ {
		var t tally
		empty := false
		normal := 0
		for p := 1; ; p++ {
			if p > maxPages {
				return nil, 0, false, fmt.Errorf("biller list: more than %d pages; the service never sent a short page", maxPages)
			}
			req.Pagination.PageNumber = strconv.Itoa(p)
			*calls++
			pg, err := o.Client.Billers(ctx, req)
			if err == nil && pg == nil {
				err = errNoPage
			}
			if err != nil {
				return nil, 0, false, fmt.Errorf("fetch biller list page %d: %w", p, err)
			}
			sum.Pages++
			for i := range pg.Records {
				r := toBiller(&pg.Records[i])
				if r.ID == "" {
					return nil, 0, false, fmt.Errorf("biller list page %d record %d: billerId missing", p, i+1)
				}
				if at, ok := index[r.ID]; ok {
					seen[at] = r
					continue
				}
				index[r.ID] = len(seen)
				seen = append(seen, r)
			}
			n := len(pg.Records)
			bar.Add(int64(n))
			again, err := t.page(fmt.Sprintf("biller list page %d", p), int64(pg.Meta.TotalRecords), billersKey(pg.Records), o.PageSize)
			if err != nil {
				return nil, 0, false, err
			}
			if again {
				break // the last page served again past the end
			}
			total, empty = t.count, n == 0 && p == 1
			if p == 1 && walk == 1 {
				bar.SetTotal(total)
			}
			last := lastPage(p, n, o.PageSize, normal, pg.Meta)
			normal = max(normal, n)
			if last {
				break
			}
		}
		switch {
		case (total > 0 || empty) && int64(len(seen)) == total && !t.dropped:
			return seen, total, true, nil
		case total == 0 && !empty:
			// Billers listed, and no page said how many there are.
			o.Log.InfoContext(ctx, "walking biller list again: no page said meta.totalRecords", "seen", len(seen), LogWalk, walk)
		case t.dropped:
			o.Log.InfoContext(ctx, "walking biller list again: "+t.fallen(), "seen", len(seen), LogTotal, total, LogWalk, walk)
		default:
			o.Log.InfoContext(ctx, "walking biller list again: billers seen differ from the service's count",
				"seen", len(seen), LogTotal, total, LogWalk, walk)
		}
	}
	return seen, total, false, nil
}

// incompleteList is the error of a biller list whose walks (walks of
// them) listed seen billers, not the service's count total (0: none said).
func incompleteList(seen int, total int64, walks int) error {
	says := fmt.Sprintf("the service says %d", total)
	if total == 0 {
		says = "no page said meta.totalRecords to check them against"
	}
	return fmt.Errorf("biller list: %d billers listed, %s, after %d walks: %w", seen, says, walks, ErrIncomplete)
}

// billersKey is what a page of billers is compared with the page before it
// by (tally): billerId is unique.
func billersKey(recs []svcapi.Biller) pageKey {
	if len(recs) == 0 {
		return pageKey{}
	}
	return pageKey{n: len(recs), first: str(recs[0].BillerID), last: str(recs[len(recs)-1].BillerID)}
}
