package statement

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// malformedAnswers are answers to a page that are not a well-formed page:
// each must be a fault of that page, never the end of its day.
var malformedAnswers = map[string]struct {
	status int
	body   string
}{
	"no records":        {200, `{"statuscode":"TXN","status":"ok","data":{"meta":{"totalPages":3,"currentPage":2,"totalRecords":25}}}`},
	"no meta":           {200, `{"statuscode":"TXN","status":"ok","data":{"records":[]}}`},
	"records null":      {200, `{"statuscode":"TXN","status":"ok","data":{"meta":{"totalPages":3,"totalRecords":25},"records":null}}`},
	"records an object": {200, `{"statuscode":"TXN","status":"ok","data":{"meta":{"totalPages":3,"totalRecords":25},"records":{}}}`},
	"meta a number":     {200, `{"statuscode":"TXN","status":"ok","data":{"meta":3,"records":[]}}`},
	"data null":         {200, `{"statuscode":"TXN","status":"ok","data":null}`},
	"no data":           {200, `{"statuscode":"TXN","status":"ok"}`},
	"data an array":     {200, `{"statuscode":"TXN","status":"ok","data":[]}`},
	"data a string":     {200, `{"statuscode":"TXN","status":"ok","data":"none"}`},
	"HTTP 500 page":     {500, `{"statuscode":"TXN","status":"ok","data":{"meta":{"totalPages":3,"totalRecords":25},"records":[]}}`},
	"redirect page":     {302, `{"statuscode":"TXN","status":"ok","data":{"meta":{"totalPages":3,"totalRecords":25},"records":[]}}`},
	"redirect empty":    {307, ``},
	"HTTP 204":          {204, ``},
}

func writeMalformed(w http.ResponseWriter, shape string) {
	a, ok := malformedAnswers[shape]
	if !ok {
		panic("unknown malformed answer " + shape)
	}
	if a.status/100 == 3 {
		w.Header().Set("Location", "/elsewhere")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	fmt.Fprint(w, a.body)
}

// TestSyncMalformedPageLeavesTheDayUnfinished: a mid-day page answered in
// any malformed shape is retried, then its day is left failed at that page
// (the run incomplete: exit 1), never taken as the day's end; once the
// service answers, the next run stores exactly what a clean sync stores.
func TestSyncMalformedPageLeavesTheDayUnfinished(t *testing.T) {
	f0, cl0 := newFake(t)
	f0.fill(25)
	o0 := baseOptions(t, cl0)
	if _, err := Sync(context.Background(), o0); err != nil {
		t.Fatal(err)
	}
	clean := dumpRecords(t, sqlDB(o0.DB))
	const key = "statement 2026-11-03 2"
	for shape := range malformedAnswers {
		t.Run(shape, func(t *testing.T) {
			f, cl := newFake(t)
			f.fill(25)
			f.malformed[key] = shape
			o := baseOptions(t, cl)
			sum, err := Sync(context.Background(), o)
			if !errors.Is(err, ErrIncomplete) {
				t.Fatalf("Sync error = %v, want ErrIncomplete (exit 1)", err)
			}
			if len(sum.Problems) != 1 {
				t.Fatalf("Problems = %+v, want one", sum.Problems)
			}
			p := sum.Problems[0]
			if p.Kind != recon.Statement || p.Day != "2026-11-03" || p.Page != 2 || p.State != StateFailed {
				t.Errorf("problem = %+v, want statement 2026-11-03 failed at page 2", p)
			}
			if s := p.String(); !strings.Contains(s, "page 2") || !strings.Contains(s, "2026-11-03") {
				t.Errorf("problem text %q does not name the day and page", s)
			}
			if f.malformedHits[key] < 2 {
				t.Errorf("the bad page was asked %d times, want it retried", f.malformedHits[key])
			}
			if st := windowStates(t, sqlDB(o.DB))["statement 2026-11-03"]; st != StateFailed {
				t.Errorf("window state %q, want failed", st)
			}
			if n := queryInt(t, sqlDB(o.DB), `SELECT next_page FROM sync_windows WHERE kind = 'statement' AND day = '2026-11-03'`); n != 2 {
				t.Errorf("next_page = %d, want 2", n)
			}
			if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM sync_windows WHERE day = '2026-11-03' AND kind = 'statement' AND error LIKE '%page 2%'`); n != 1 {
				t.Errorf("sync_windows.error does not name page 2")
			}
			delete(f.malformed, key)
			if _, err := Sync(context.Background(), o); err != nil {
				t.Fatalf("healthy re-run: %v", err)
			}
			if got := dumpRecords(t, sqlDB(o.DB)); !slices.Equal(got, clean) {
				t.Errorf("after the re-run %d records stored, a clean sync stores %d (or they differ)", len(got), len(clean))
			}
		})
	}
}

// TestSyncBillersMalformedPage: a biller page answered in any malformed
// shape fails the sync naming the page (nothing stored); the next run
// stores the whole list.
func TestSyncBillersMalformedPage(t *testing.T) {
	for shape := range malformedAnswers {
		t.Run(shape, func(t *testing.T) {
			f, cl := newFake(t)
			for i := range 12 {
				f.billers = append(f.billers, fakeBiller(i, "gas", "2026-10-01"))
			}
			f.malformed["billers page 2"] = shape
			o := BillerOptions{DB: openDB(t), Client: cl, PageSize: 5, Full: true}
			s, err := SyncBillers(context.Background(), o)
			var re *svcapi.ResponseError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "page 2") {
				t.Fatalf("SyncBillers error = %v, want page 2 named as a bad answer", err)
			}
			if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM billers`); n != 0 {
				t.Errorf("%d billers stored from a failed sync", n)
			}
			if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM biller_syncs WHERE id = ? AND state = 'failed' AND error LIKE '%page 2%'`, s.SyncID); n != 1 {
				t.Errorf("failed sync not recorded with its page")
			}
			delete(f.malformed, "billers page 2")
			if s, err := SyncBillers(context.Background(), o); err != nil || s.Seen != 12 {
				t.Fatalf("healthy re-run: %v, %d seen, want 12", err, s.Seen)
			}
		})
	}
}

// TestSyncFetcherWithoutPage: a Fetcher that answers no page (nil) fails
// the page; it does not end the day.
func TestSyncFetcherWithoutPage(t *testing.T) {
	f, cl := newFake(t)
	f.fill(25)
	o := baseOptions(t, &nilPageAt{f: cl, day: "2026-11-02", page: "2"})
	o.Kinds = []recon.Kind{recon.Statement}
	sum, err := Sync(context.Background(), o)
	if !errors.Is(err, ErrIncomplete) || len(sum.Problems) != 1 || sum.Problems[0].Page != 2 || sum.Problems[0].Day != "2026-11-02" {
		t.Fatalf("Sync = %v, %+v; want 2026-11-02 failed at page 2", err, sum.Problems)
	}
}

type nilPageAt struct {
	f         Fetcher
	day, page string
}

func (n *nilPageAt) Statement(ctx context.Context, req svcapi.StatementRequest) (*svcapi.StatementPage, error) {
	if req.Filters.TxnDateFrom == n.day && req.Pagination.PageNumber == n.page {
		return nil, nil
	}
	return n.f.Statement(ctx, req)
}
