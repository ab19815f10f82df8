package statement

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Services that would leave a day looking complete with records missing:
// each sync must end incomplete (ErrIncomplete, a problem naming the day),
// or walk again until it has every record.

// asked is a statement page request as a hostile service reads it.
type asked struct {
	page, per int
}

// hostileService answers every statement page with serve's meta and
// records; it counts the requests.
type hostileService struct {
	mu       sync.Mutex
	requests int
}

func startHostile(t *testing.T, serve func(a asked) (meta map[string]any, recs []map[string]any)) (*hostileService, *svcapi.Client) {
	t.Helper()
	h := &hostileService{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.requests++
		var req svcapi.StatementRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p, _ := strconv.Atoi(req.Pagination.PageNumber)
		per, _ := strconv.Atoi(req.Pagination.RecordsPerPage)
		meta, recs := serve(asked{p, per})
		if recs == nil {
			recs = []map[string]any{}
		}
		json.NewEncoder(w).Encode(map[string]any{"statuscode": "TXN", "status": "ok",
			"data": map[string]any{"meta": meta, "records": recs}})
	}))
	t.Cleanup(srv.Close)
	cl, err := svcapi.New(svcapi.Config{BaseURL: srv.URL, ClientID: "id", ClientSecret: "secret-xyz",
		EndpointIP: "203.0.113.1", RetryBase: time.Millisecond, RetryMax: 4 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return h, cl
}

func (h *hostileService) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests
}

const hostileDay = "2026-11-03"

// oneDayOptions syncs the statement of hostileDay alone, 10 records a page.
func oneDayOptions(t *testing.T, cl *svcapi.Client) Options {
	return Options{DB: openDB(t), Client: cl, Account: acct, From: date(t, hostileDay), To: date(t, hostileDay),
		Kinds: []recon.Kind{recon.Statement}, PageSize: 10, Concurrency: 1, RecheckDays: -1}
}

func dayRecords(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = fakeRecord(recon.Statement, hostileDay, i)
	}
	return out
}

// pageMeta is a truthful meta of page a of records.
func pageMeta(a asked, records int) map[string]any {
	from := min((a.page-1)*a.per, records)
	return map[string]any{"totalRecords": records, "totalPages": (records + a.per - 1) / a.per,
		"currentPage": a.page, "recordsOnCurrentPage": min(from+a.per, records) - from}
}

// syncIncomplete syncs and wants it to end incomplete with one problem of
// hostileDay in state, whose text holds want.
func syncIncomplete(t *testing.T, o Options, state, want string) {
	t.Helper()
	sum, err := Sync(context.Background(), o)
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("Sync = %v; want ErrIncomplete (exit 1)", err)
	}
	if len(sum.Problems) != 1 || sum.Problems[0].Day != hostileDay || sum.Problems[0].State != state ||
		!strings.Contains(sum.Problems[0].String(), want) {
		t.Fatalf("problems %v; want one of %s, %s, saying %q", sum.Problems, hostileDay, state, want)
	}
	if got := windowStates(t, sqlDB(o.DB))["statement "+hostileDay]; got != state {
		t.Errorf("window state %q; want %q", got, state)
	}
}

// TestSyncLastPageWithoutItsCount: the service stops after the first of
// three pages, its empty page past the end counting 0 records. The count
// is the walk's largest (25), not the last page's: the day is a mismatch,
// not done with 10 of 25 records.
func TestSyncLastPageWithoutItsCount(t *testing.T) {
	all := dayRecords(25)
	_, cl := startHostile(t, func(a asked) (map[string]any, []map[string]any) {
		if a.page == 1 {
			return pageMeta(a, 25), all[:10]
		}
		return map[string]any{"totalRecords": 0, "totalPages": 0}, nil
	})
	syncIncomplete(t, oneDayOptions(t, cl), StateMismatch, "10 records stored, the service says 25")
}

// TestSyncPagesWithoutACount: a service capping its pages at 5 records and
// counting nothing: the records are stored and the day fails, never done.
func TestSyncPagesWithoutACount(t *testing.T) {
	all := dayRecords(25)
	_, cl := startHostile(t, func(a asked) (map[string]any, []map[string]any) {
		from := min((a.page-1)*5, 25)
		return map[string]any{}, all[from:min(from+5, 25)]
	})
	o := oneDayOptions(t, cl)
	syncIncomplete(t, o, StateFailed, "no page said meta.totalRecords")
}

// TestSyncRecordWithdrawnUnderTheWalk: the service withdraws the day's
// first record once page 1 was served; with offset paging record 10 moves
// to page 1 and is never served on this walk, while the withdrawn one is
// held: 24 stored, 24 counted. The count that fell says the walk cannot be
// trusted: the day is walked again, record 10 is stored, and the day ends
// a mismatch (25 held, the withdrawn one among them, against 24).
func TestSyncRecordWithdrawnUnderTheWalk(t *testing.T) {
	all := dayRecords(25)
	_, cl := startHostile(t, withdrawingFirst(all))
	o := oneDayOptions(t, cl)
	syncIncomplete(t, o, StateMismatch, "25 records stored, the service says 24")
	held := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM records WHERE svc_order_id = ?`, all[10]["svcOrderId"])
	if held != 1 {
		t.Errorf("record 10, still at the service, held %d times; want once", held)
	}
}

// withdrawingFirst serves all, truthfully paged, until page 1 was served
// once; then all but the first record.
func withdrawingFirst(all []map[string]any) func(a asked) (map[string]any, []map[string]any) {
	withdrawn := false
	return func(a asked) (map[string]any, []map[string]any) {
		cur := all
		if withdrawn {
			cur = all[1:]
		}
		withdrawn = true
		from := min((a.page-1)*a.per, len(cur))
		return pageMeta(a, len(cur)), cur[from:min(from+a.per, len(cur))]
	}
}

// TestSyncCountFellOnTheLastWalk: with one walk a run, the withdrawal is
// a mismatch whose counts agree, and its problem says why.
func TestSyncCountFellOnTheLastWalk(t *testing.T) {
	all := dayRecords(25)
	_, cl := startHostile(t, withdrawingFirst(all))
	o := oneDayOptions(t, cl)
	o.MaxWalks = 1
	syncIncomplete(t, o, StateMismatch, "24 records stored, the service says 24; the service's count fell from 25 to 24")
}

// TestSyncPageServedAgainAndAgain: a service ignoring the page number
// serves page 1 for every page: the walk stops at page 2, not after a
// million pages.
func TestSyncPageServedAgainAndAgain(t *testing.T) {
	all := dayRecords(25)
	h, cl := startHostile(t, func(a asked) (map[string]any, []map[string]any) {
		return map[string]any{"totalRecords": 25}, all[:10]
	})
	syncIncomplete(t, oneDayOptions(t, cl), StateFailed, "page 2 repeats the page before it")
	if n := h.count(); n != 2 {
		t.Errorf("%d requests; want 2", n)
	}
}

// TestSyncPagesThatNeverEnd: a service serving new records on every page
// while counting 25 is stopped once it served more than twice its count
// and a page (page 7).
func TestSyncPagesThatNeverEnd(t *testing.T) {
	h, cl := startHostile(t, func(a asked) (map[string]any, []map[string]any) {
		recs := make([]map[string]any, 10)
		for i := range recs {
			recs[i] = fakeRecord(recon.Statement, hostileDay, (a.page-1)*10+i)
		}
		return map[string]any{"totalRecords": 25}, recs
	})
	syncIncomplete(t, oneDayOptions(t, cl), StateFailed, "70 records served, the service counts 25: its pages do not end")
	if n := h.count(); n != 7 {
		t.Errorf("%d requests; want 7", n)
	}
}

// TestSyncCountGrowingUnderTheWalk: records posted while the day is walked
// (a live day) raise the count: that is no reason to distrust the walk.
// The day ends done once it holds them all.
func TestSyncCountGrowingUnderTheWalk(t *testing.T) {
	all := dayRecords(27)
	served := 0
	_, cl := startHostile(t, func(a asked) (map[string]any, []map[string]any) {
		served++
		cur := all[:min(24+served, 27)] // one more record posted at each request, up to 27
		from := min((a.page-1)*a.per, len(cur))
		return pageMeta(a, len(cur)), cur[from:min(from+a.per, len(cur))]
	})
	o := oneDayOptions(t, cl)
	sum, err := Sync(context.Background(), o)
	if err != nil || len(sum.Problems) != 0 {
		t.Fatalf("Sync = %v, problems %v; want done", err, sum.Problems)
	}
	if n := countRecords(t, sqlDB(o.DB), recon.Statement); n != 27 {
		t.Errorf("%d records stored; want 27", n)
	}
}

// TestBillerListCutShortRemovesNothing: a full biller sync whose service
// stops after the first of three pages, its page past the end counting 0:
// the list is incomplete and no biller held is marked removed.
func TestBillerListCutShortRemovesNothing(t *testing.T) {
	f, cl := newFake(t)
	for i := range 12 {
		f.billers = append(f.billers, fakeBiller(i, "gas", "2026-10-01"))
	}
	db := openDB(t)
	if _, err := SyncBillers(context.Background(), BillerOptions{DB: db, Client: cl, PageSize: 5, Full: true}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req svcapi.BillersRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		recs, meta := []map[string]any{}, map[string]any{"totalRecords": 0}
		if req.Pagination.PageNumber == "1" {
			recs, meta = f.billers[:5], map[string]any{"totalRecords": 12, "totalPages": 3}
		}
		json.NewEncoder(w).Encode(map[string]any{"statuscode": "TXN", "status": "ok", "data": map[string]any{"meta": meta, "records": recs}})
	}))
	defer srv.Close()
	cut, err := svcapi.New(svcapi.Config{BaseURL: srv.URL, ClientID: "id", ClientSecret: "s", OutletID: "O", EndpointIP: "203.0.113.1"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := SyncBillers(context.Background(), BillerOptions{DB: db, Client: cut, PageSize: 5, Full: true})
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "5 billers listed, the service says 12") {
		t.Errorf("second full sync: %v; want ErrIncomplete, 5 billers listed of 12", err)
	}
	if s.Removed != 0 {
		t.Errorf("%d billers marked removed by a walk cut short; want none", s.Removed)
	}
}

// TestTally: the count is the largest said; a lower one marks the walk.
func TestTally(t *testing.T) {
	var tl tally
	for _, c := range []int64{25, 0, 26, 26} {
		if _, err := tl.page("p", c, pageKey{}, 10); err != nil {
			t.Fatal(err)
		}
	}
	if tl.count != 26 || tl.dropped {
		t.Errorf("counts 25, 0, 26, 26: count %d, dropped %v; want 26, not dropped", tl.count, tl.dropped)
	}
	if _, err := tl.page("p", 24, pageKey{}, 10); err != nil || !tl.dropped || tl.count != 26 ||
		!strings.Contains(tl.fallen(), "from 26 to 24") {
		t.Errorf("then 24: %v, count %d, %q; want dropped from 26 to 24, count 26", err, tl.count, tl.fallen())
	}
}

// TestSyncLastPageServedAgainPastTheEnd: a truthful service that answers
// a page past the end with its last page again (as many do): a day of 20
// records, 10 a page, is done; page 3 adds nothing.
func TestSyncLastPageServedAgainPastTheEnd(t *testing.T) {
	all := dayRecords(20)
	_, cl := startHostile(t, func(a asked) (map[string]any, []map[string]any) {
		p := min(a.page, 2)
		return map[string]any{"totalRecords": 20, "currentPage": p}, all[(p-1)*10 : p*10]
	})
	o := oneDayOptions(t, cl)
	sum, err := Sync(context.Background(), o)
	if err != nil || len(sum.Problems) != 0 || sum.New != 20 {
		t.Fatalf("Sync = %v, problems %v, %d new; want done, 20 new", err, sum.Problems, sum.New)
	}
	if got := windowStates(t, sqlDB(o.DB))["statement "+hostileDay]; got != StateDone {
		t.Errorf("window %s; want done", got)
	}
}

// TestSyncResumedKeepsTheWalksCount: a walk that fails at page 3 keeps
// the count its first pages said, so the next run, resuming at page 3 of
// a service that says the count on page 1 alone, checks the day against
// it (25) instead of failing it for want of a count.
func TestSyncResumedKeepsTheWalksCount(t *testing.T) {
	all := dayRecords(25)
	down := true
	_, cl := startHostile(t, func(a asked) (map[string]any, []map[string]any) {
		meta := map[string]any{}
		if a.page == 1 {
			meta["totalRecords"] = 25
		}
		from := min((a.page-1)*a.per, 25)
		if a.page == 3 && down {
			return nil, nil // no meta: not a page, a fault of page 3
		}
		return meta, all[from:min(from+a.per, 25)]
	})
	o := oneDayOptions(t, cl)
	if _, err := Sync(context.Background(), o); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("first sync = %v; want page 3 failed (ErrIncomplete)", err)
	}
	down = false
	sum, err := Sync(context.Background(), o)
	if err != nil || len(sum.Problems) != 0 || countRecords(t, sqlDB(o.DB), recon.Statement) != 25 {
		t.Fatalf("resumed sync = %v, problems %v, %d records; want done with 25", err, sum.Problems, countRecords(t, sqlDB(o.DB), recon.Statement))
	}
}

// TestBillerListLastPageServedAgain: a biller list of 10, 5 a page, whose
// service answers page 3 with page 2 again is complete: a full sync
// removes nothing.
func TestBillerListLastPageServedAgain(t *testing.T) {
	var billers []map[string]any
	for i := range 10 {
		billers = append(billers, fakeBiller(i, "gas", "2026-10-01"))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req svcapi.BillersRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p, _ := strconv.Atoi(req.Pagination.PageNumber)
		p = min(p, 2)
		json.NewEncoder(w).Encode(map[string]any{"statuscode": "TXN", "status": "ok",
			"data": map[string]any{"meta": map[string]any{"totalRecords": 10}, "records": billers[(p-1)*5 : p*5]}})
	}))
	defer srv.Close()
	cl, err := svcapi.New(svcapi.Config{BaseURL: srv.URL, ClientID: "id", ClientSecret: "s", OutletID: "O", EndpointIP: "203.0.113.1"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := SyncBillers(context.Background(), BillerOptions{DB: openDB(t), Client: cl, PageSize: 5, Full: true})
	if err != nil || s.Seen != 10 || s.Removed != 0 {
		t.Errorf("full sync = %+v, %v; want 10 seen, none removed", s, err)
	}
}
