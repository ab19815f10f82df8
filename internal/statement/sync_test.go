package statement

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

const acct = "0409000123456"

// baseOptions sync fakeDays, with no held day walked again in full: held
// days are probed.
func baseOptions(t testing.TB, cl Fetcher) Options {
	t.Helper()
	return Options{DB: openDB(t), Client: cl, Account: acct, From: date(t, fakeDays[0]),
		To: date(t, fakeDays[len(fakeDays)-1]), PageSize: 10, Concurrency: 3, RecheckDays: -1}
}

func TestSyncStoresEveryRecord(t *testing.T) {
	f, cl := newFake(t)
	f.fill(37)
	o := baseOptions(t, cl)
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	for _, k := range []recon.Kind{recon.Statement, recon.Orders} {
		if got, want := countRecords(t, sqlDB(o.DB), k), f.count(k); got != want {
			t.Errorf("%s records = %d, want %d", k, got, want)
		}
	}
	if want := 2 * 5 * 37; sum.New != want || sum.Updated != 0 {
		t.Errorf("Summary New, Updated = %d, %d, want %d, 0", sum.New, sum.Updated, want)
	}
	if sum.Windows != 10 || sum.WindowsFailed != 0 || sum.Pages != 40 {
		t.Errorf("Summary windows %d failed %d pages %d, want 10, 0, 40", sum.Windows, sum.WindowsFailed, sum.Pages)
	}
	for w, s := range windowStates(t, sqlDB(o.DB)) {
		if s != StateDone {
			t.Errorf("window %s state %s, want done", w, s)
		}
	}
	// Stored values are normalised: amounts exact, nulls empty, times IST.
	var amt, ov, sub, ts, day string
	err = sqlDB(o.DB).QueryRow(`SELECT txn_charged_value, order_value, sub_product_name, txn_date_time, txn_date FROM records
		WHERE kind = 'statement' AND svc_order_id = 'ST202611030005'`).Scan(&amt, &ov, &sub, &ts, &day)
	if err != nil {
		t.Fatal(err)
	}
	if amt != "15.5" || ov != "12" || sub != "" || ts != "2026-11-03 00:05:05" || day != "2026-11-03" {
		t.Errorf("stored record = %q %q %q %q %q", amt, ov, sub, ts, day)
	}
	var state string
	var n, pages int
	if err := sqlDB(o.DB).QueryRow(`SELECT state, records_new, pages FROM sync_runs WHERE id = ?`, sum.RunID).Scan(&state, &n, &pages); err != nil {
		t.Fatal(err)
	}
	if state != "ok" || n != sum.New || pages != 40 {
		t.Errorf("sync_runs = %s, %d new, %d pages; want ok, %d, 40", state, n, pages, sum.New)
	}
}

func TestSyncSecondRunAddsNothing(t *testing.T) {
	f, cl := newFake(t)
	f.fill(23)
	o := baseOptions(t, cl)
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	before := dumpRecords(t, sqlDB(o.DB))
	reqs := f.requests
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 0 || sum.Updated != 0 || sum.Pages != 0 || sum.Probed != 10 || sum.Unchanged != 10 ||
		sum.Rewalked != 0 || f.requests-reqs != 10 {
		t.Errorf("second run: %+v, %d requests; want nothing new, 10 held days probed unchanged, one request each", sum, f.requests-reqs)
	}
	// --refresh walks again and finds nothing new either.
	o.Refresh = true
	sum, err = Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 0 || sum.Updated != 0 || sum.Pages == 0 {
		t.Errorf("refresh run: New %d Updated %d Pages %d; want 0, 0, > 0", sum.New, sum.Updated, sum.Pages)
	}
	if after := dumpRecords(t, sqlDB(o.DB)); !slices.Equal(before, after) {
		t.Errorf("records changed on refresh")
	}
	// A record changed at the service is counted as updated, once.
	f.mu.Lock()
	f.records[recon.Orders]["2026-11-02"][4]["settlementSvcOrderId"] = "SETTLE1"
	f.mu.Unlock()
	sum, err = Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 0 || sum.Updated != 1 {
		t.Errorf("after one change: New %d Updated %d, want 0, 1", sum.New, sum.Updated)
	}
	if got := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM records WHERE settlement_svc_order_id = 'SETTLE1'
		AND first_synced_at < last_synced_at`); got != 1 {
		t.Errorf("changed record: %d rows with the new value and first_synced_at kept, want 1", got)
	}
}

func TestSyncWithFaultsStoresExactlyTheRecords(t *testing.T) {
	f, cl := newFake(t)
	f.fill(41)
	f.drift(3)
	f.serverError, f.drop = 0.10, 0.05
	o := baseOptions(t, cl)
	var calls CallCounter
	o.Calls = &calls
	cl2, err := svcapi.New(svcapi.Config{BaseURL: f.url, ClientID: "id", ClientSecret: "s", EndpointIP: "203.0.113.1",
		RetryBase: 1, RetryMax: 2, MaxRetries: 10, Recorders: []svcapi.Recorder{&calls}})
	if err != nil {
		t.Fatal(err)
	}
	o.Client = cl2
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatalf("Sync: %v (%+v)", err, sum.Problems)
	}
	for _, k := range []recon.Kind{recon.Statement, recon.Orders} {
		if got, want := countRecords(t, sqlDB(o.DB), k), f.count(k); got != want {
			t.Errorf("%s records = %d, want %d", k, got, want)
		}
	}
	if sum.New != 2*5*41 {
		t.Errorf("New = %d, want %d", sum.New, 2*5*41)
	}
	if sum.Retries == 0 {
		t.Errorf("Retries = 0 with 15%% faults")
	}
	// Drift hid records from the first walk: every window was walked again.
	if got := queryInt(t, sqlDB(o.DB), `SELECT min(walks) FROM sync_windows`); got < 2 {
		t.Errorf("min walks = %d, want >= 2 (drift)", got)
	}
}

func TestSyncResumesAfterCancel(t *testing.T) {
	f, cl := newFake(t)
	f.fill(33)
	clean := baseOptions(t, cl)
	if _, err := Sync(context.Background(), clean); err != nil {
		t.Fatal(err)
	}
	want := dumpRecords(t, sqlDB(clean.DB))

	o := baseOptions(t, cl)
	// One window at a time: the 9th page is the first of the third window
	// (four pages a window), so the interruption leaves it mid-walk.
	o.Concurrency = 1
	ctx, cancel := context.WithCancel(context.Background())
	o.Client = &cancelAfter{f: cl, n: 9, cancel: cancel}
	isum, err := Sync(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Sync error = %v, want context.Canceled", err)
	}
	// The summary counts the windows ended, not those planned.
	if isum.WindowsLeft == 0 || isum.Windows+isum.WindowsLeft != 10 || !strings.Contains(isum.Line(), "left for the next run") {
		t.Errorf("interrupted summary: %d windows ended, %d left (%s); want some left of 10", isum.Windows, isum.WindowsLeft, isum.Line())
	}
	if n := countRecords(t, sqlDB(o.DB), recon.Statement) + countRecords(t, sqlDB(o.DB), recon.Orders); n == 0 || n >= len(want) {
		t.Fatalf("after the interruption %d records stored, want some but not all %d", n, len(want))
	}
	walking := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM sync_windows WHERE state = 'walking' AND next_page > 1`)
	if walking == 0 {
		t.Errorf("no window checkpointed mid-walk")
	}
	var state string
	sqlDB(o.DB).QueryRow(`SELECT state FROM sync_runs ORDER BY id LIMIT 1`).Scan(&state)
	if state != "failed" {
		t.Errorf("interrupted run state = %q, want failed", state)
	}
	// A killed run leaves its row 'running'; the next run closes it.
	if _, err := sqlDB(o.DB).Exec(`UPDATE sync_runs SET state = 'running', finished_at = NULL`); err != nil {
		t.Fatal(err)
	}
	counting := &cancelAfter{f: cl, n: -1}
	o.Client, o.Concurrency = counting, 3
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpRecords(t, sqlDB(o.DB)); !slices.Equal(got, want) {
		t.Errorf("resumed run stored %d records, clean run %d; contents differ", len(got), len(want))
	}
	if sum.Updated != 0 {
		t.Errorf("resumed run updated %d records, want 0", sum.Updated)
	}
	if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM sync_runs WHERE state = 'running'`); n != 0 {
		t.Errorf("%d sync runs still 'running' after a later run", n)
	}
	// Resumed windows start at their checkpoint: the two runs together
	// fetch no more pages than a clean run plus the interrupted ones (the
	// windows done before the interruption are only probed).
	if total := 9 + sum.Pages; total > 40+o.Concurrency+1 || int(counting.calls.Load()) != sum.Pages+sum.Probed {
		t.Errorf("interrupted + resumed runs fetched %d pages (%d requests, %d probes), clean run 40",
			total, counting.calls.Load(), sum.Probed)
	}
	for w, s := range windowStates(t, sqlDB(o.DB)) {
		if s != StateDone {
			t.Errorf("window %s %s after resume, want done", w, s)
		}
	}
}

// cancelAfter cancels its context once n pages were fetched (n < 0: never).
type cancelAfter struct {
	f      Fetcher
	n      int64
	calls  atomic.Int64
	cancel func()
}

// The nth page is fetched whole and then the context is cancelled, so that
// the page's walker sees the cancellation with its page in hand: which pages
// are kept does not depend on which fetches happened to be in flight.
func (c *cancelAfter) Statement(ctx context.Context, req svcapi.StatementRequest) (*svcapi.StatementPage, error) {
	k := c.calls.Add(1)
	if c.n >= 0 && k > c.n {
		c.calls.Add(-1)
		return nil, context.Canceled
	}
	pg, err := c.f.Statement(ctx, req)
	if k == c.n {
		c.cancel()
	}
	return pg, err
}

func TestSyncPageNotJSON(t *testing.T) {
	f, cl := newFake(t)
	f.fill(25)
	f.notJSON["orders 2026-11-03 2"] = true
	o := baseOptions(t, cl)
	sum, err := Sync(context.Background(), o)
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("Sync error = %v, want ErrIncomplete", err)
	}
	if len(sum.Problems) != 1 {
		t.Fatalf("Problems = %+v, want one", sum.Problems)
	}
	p := sum.Problems[0]
	if p.Kind != recon.Orders || p.Day != "2026-11-03" || p.Page != 2 || p.State != StateFailed {
		t.Errorf("problem = %+v, want orders window 2026-11-03 page 2 failed", p)
	}
	if s := p.String(); !strings.Contains(s, "2026-11-03") || !strings.Contains(s, "page 2") {
		t.Errorf("problem text %q does not name window and page", s)
	}
	// Page 1 of the failed window stays stored; every other window is done.
	if got, want := countRecords(t, sqlDB(o.DB), recon.Orders), 4*25+10; got != want {
		t.Errorf("orders stored = %d, want %d", got, want)
	}
	if got := queryInt(t, sqlDB(o.DB), `SELECT next_page FROM sync_windows WHERE kind = 'orders' AND day = '2026-11-03' AND state = 'failed'`); got != 2 {
		t.Errorf("failed window next_page = %d, want 2", got)
	}
	if sum.WindowsFailed != 1 || sum.Windows != 10 {
		t.Errorf("windows %d failed %d, want 10, 1", sum.Windows, sum.WindowsFailed)
	}
	// Once the service answers, the next run resumes the window at page 2.
	delete(f.notJSON, "orders 2026-11-03 2")
	counting := &cancelAfter{f: cl, n: -1}
	o.Client = counting
	rsum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := counting.calls.Load(); rsum.Pages != 2 || rsum.Probed != 9 || got != 2+9 {
		t.Errorf("resume fetched %d pages and probed %d days (%d requests), want pages 2 and 3 and 9 probes", rsum.Pages, rsum.Probed, got)
	}
	if got := countRecords(t, sqlDB(o.DB), recon.Orders); got != 5*25 {
		t.Errorf("orders stored = %d, want %d", got, 5*25)
	}
}

func TestSyncRecordErrors(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		set         any
	}{
		{"no date", "txnDateTime", nil},
		{"bad date", "txnDateTime", "yesterday"},
		{"no amount", "txnChargedValue", nil},
		{"amount not a number", "txnChargedValue", "ten"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, cl := newFake(t)
			f.fill(15)
			if tc.set == nil {
				delete(f.records[recon.Statement]["2026-11-04"][12], tc.field)
			} else {
				f.records[recon.Statement]["2026-11-04"][12][tc.field] = tc.set
			}
			o := baseOptions(t, cl)
			sum, err := Sync(context.Background(), o)
			if !errors.Is(err, ErrIncomplete) || len(sum.Problems) != 1 {
				t.Fatalf("Sync = %v, %+v; want one problem", err, sum.Problems)
			}
			p := sum.Problems[0]
			if p.Day != "2026-11-04" || p.Page != 2 || !strings.Contains(p.Err, tc.field) || !strings.Contains(p.Err, "page 2") {
				t.Errorf("problem = %+v, want window 2026-11-04 page 2 naming %s", p, tc.field)
			}
			if got := countRecords(t, sqlDB(o.DB), recon.Statement); got != 4*15+10 {
				t.Errorf("statement records = %d, want %d", got, 4*15+10)
			}
		})
	}
}

func TestSyncMismatchIsReported(t *testing.T) {
	f, cl := newFake(t)
	f.fill(12)
	f.totalLie = 1
	o := baseOptions(t, cl)
	o.Kinds = []recon.Kind{recon.Statement}
	o.MaxWalks = 2
	sum, err := Sync(context.Background(), o)
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v, want ErrIncomplete", err)
	}
	if len(sum.Problems) != 5 || sum.Problems[0].State != StateMismatch || sum.Problems[0].Stored != 12 || sum.Problems[0].Total != 13 {
		t.Errorf("problems = %+v, want 5 mismatches 12 vs 13", sum.Problems)
	}
	if got := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM sync_windows WHERE state = 'mismatch' AND walks = 2 AND stored_records = 12 AND total_records = 13`); got != 5 {
		t.Errorf("%d mismatch windows walked twice, want 5", got)
	}
	if got := countRecords(t, sqlDB(o.DB), recon.Statement); got != 60 {
		t.Errorf("records = %d, want 60 (no duplicates from walking again)", got)
	}
}

// TestSyncMetaLagsRecords: the service serves 30 records a day while its
// meta counts 20 (2 pages of 10). The walk does not stop at meta's last
// page, which is full: every record is stored and the window is reported,
// never silently short.
func TestSyncMetaLagsRecords(t *testing.T) {
	f, cl := newFake(t)
	f.fill(30)
	f.metaShort = 10
	o := baseOptions(t, cl)
	o.Kinds = []recon.Kind{recon.Statement}
	o.MaxWalks = 1
	sum, err := Sync(context.Background(), o)
	if !errors.Is(err, ErrIncomplete) || len(sum.Problems) != 5 {
		t.Fatalf("Sync = %v, problems %+v; want 5 windows reported", err, sum.Problems)
	}
	if p := sum.Problems[0]; p.State != StateMismatch || p.Stored != 30 || p.Total != 20 {
		t.Errorf("problem = %+v, want 30 stored, the service says 20", p)
	}
	if got := countRecords(t, sqlDB(o.DB), recon.Statement); got != 5*30 {
		t.Errorf("records = %d, want %d", got, 5*30)
	}
}

// TestSyncStopsWhenCredentialsRefused: a 401 concerns every window, so the
// run stops at once with that error instead of failing window after window.
func TestSyncStopsWhenCredentialsRefused(t *testing.T) {
	f, cl := newFake(t)
	f.fill(5)
	f.unauthorized = true
	o := baseOptions(t, cl)
	o.Concurrency = 1
	sum, err := Sync(context.Background(), o)
	var ae *svcapi.Error
	if !errors.As(err, &ae) || !ae.Unauthorized() || errors.Is(err, ErrIncomplete) {
		t.Fatalf("Sync = %v, want the service's 401 error", err)
	}
	if f.requests != 1 || len(sum.Problems) != 0 || sum.WindowsLeft != 10 {
		t.Errorf("%d requests, problems %+v, %d windows left; want 1 request and the run stopped", f.requests, sum.Problems, sum.WindowsLeft)
	}
	if got := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM sync_runs WHERE state = 'failed' AND error LIKE '%UAD%'`); got != 1 {
		t.Errorf("sync run not recorded as failed with the service's answer")
	}
}

func TestSyncServiceCapsPageSize(t *testing.T) {
	f, cl := newFake(t)
	f.fill(27)
	f.maxPerPage = 4 // asked for 10, gets 4 a page
	o := baseOptions(t, cl)
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := countRecords(t, sqlDB(o.DB), recon.Orders); got != 5*27 {
		t.Errorf("orders = %d, want %d", got, 5*27)
	}
}

func TestSyncRecordWithoutSvcOrderID(t *testing.T) {
	f, cl := newFake(t)
	f.fill(5)
	f.records[recon.Statement]["2026-11-01"][2]["svcOrderId"] = ""
	o := baseOptions(t, cl)
	o.Refresh = true
	for range 2 {
		if _, err := Sync(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	if got := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM records WHERE svc_order_id LIKE 'hash:%' AND length(svc_order_id) = 69`); got != 1 {
		t.Errorf("%d hashed records, want 1", got)
	}
	if got := countRecords(t, sqlDB(o.DB), recon.Statement); got != 25 {
		t.Errorf("records = %d, want 25", got)
	}
}

func TestLastPage(t *testing.T) {
	meta := func(pages, onPage int) svcapi.Meta {
		return svcapi.Meta{TotalPages: svcapi.Int(pages), RecordsOnCurrentPage: svcapi.Int(onPage)}
	}
	for _, tc := range []struct {
		name              string
		p, n, req, normal int
		meta              svcapi.Meta
		want              bool
	}{
		{"empty", 3, 0, 10, 10, meta(9, 0), true},
		{"full, more pages", 1, 10, 10, 0, meta(3, 10), false},
		{"meta says last but the page is full: fetch the next", 3, 10, 10, 10, meta(3, 10), false},
		{"past meta's last page", 4, 10, 10, 10, meta(3, 10), true},
		{"short after full pages", 3, 4, 10, 10, meta(9, 4), true},
		{"capped page size, first page", 1, 4, 10, 0, meta(7, 4), false},
		{"capped page size, later page", 2, 4, 10, 4, meta(7, 4), false},
		{"first page short, one page", 1, 4, 10, 0, meta(1, 4), true},
		{"no meta, first page short", 1, 4, 10, 0, svcapi.Meta{}, true},
		{"no meta, full page", 1, 10, 10, 0, svcapi.Meta{}, false},
		{"fewer than meta says", 2, 3, 10, 10, meta(9, 10), false},
		{"resumed walk, short", 4, 3, 10, 0, meta(4, 3), true},
	} {
		if got := lastPage(tc.p, tc.n, tc.req, tc.normal, tc.meta); got != tc.want {
			t.Errorf("%s: lastPage(%d, %d, %d, %d, %+v) = %v, want %v", tc.name, tc.p, tc.n, tc.req, tc.normal, tc.meta, got, tc.want)
		}
	}
}

func TestOptionsRejected(t *testing.T) {
	_, cl := newFake(t)
	db := openDB(t)
	for _, o := range []Options{
		{DB: db, Client: cl, From: date(t, "2026-11-01"), To: date(t, "2026-11-02")},                                             // no account
		{DB: db, Client: cl, Account: acct, From: date(t, "2026-11-02"), To: date(t, "2026-11-01")},                              // reversed
		{DB: db, Client: cl, Account: acct, From: date(t, "2026-11-01"), To: date(t, "2026-11-01"), Kinds: []recon.Kind{"bank"}}, // kind
	} {
		if _, err := Sync(context.Background(), o); err == nil {
			t.Errorf("Sync(%+v) = nil error", o)
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM sync_runs`); n != 0 {
		t.Errorf("%d sync runs recorded for rejected options", n)
	}
}

// TestSyncHandsEndedDays checks Options.DayEnded: called once for each
// window whose walk ended, done or (when the service's count lies, walked
// twice) still differing from it, and only once the window's records are
// committed: the callback finds them all in the database.
func TestSyncHandsEndedDays(t *testing.T) {
	for _, lie := range []int{0, 1} {
		f, cl := newFake(t)
		f.fill(23)
		f.totalLie = lie
		o := baseOptions(t, cl)
		o.Kinds = []recon.Kind{recon.Statement}
		o.MaxWalks = 2
		var mu sync.Mutex
		var ended []string
		o.DayEnded = func(k recon.Kind, day string) {
			n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM records WHERE kind = ? AND txn_date = ?`, k, day)
			mu.Lock()
			defer mu.Unlock()
			ended = append(ended, fmt.Sprintf("%s %s %d", k, day, n))
		}
		if _, err := Sync(context.Background(), o); (err != nil) != (lie > 0) {
			t.Fatalf("count lie %d: Sync: %v", lie, err)
		}
		slices.Sort(ended)
		var want []string
		for _, d := range fakeDays {
			want = append(want, fmt.Sprintf("statement %s 23", d))
		}
		if !slices.Equal(ended, want) {
			t.Errorf("count lie %d: days ended %q, want %q", lie, ended, want)
		}
	}
}

// writersStore is a Store that reports n record writers and notes, under
// its lock, the checkpoints each WriteRecords call brings, in the order
// they were written.
type writersStore struct {
	Store
	n     int
	mu    sync.Mutex
	pages map[string][]int // window (kind day) → the next_page of each checkpoint written
}

func (s *writersStore) RecordWriters() int { return s.n }

func (s *writersStore) WriteRecords(ctx context.Context, at time.Time, pages []store.RecordPage) (int, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	newN, updN, err := s.Store.WriteRecords(ctx, at, pages)
	for _, p := range pages {
		if p.Window != nil && err == nil {
			k := string(p.Window.Kind) + " " + p.Window.Day
			s.pages[k] = append(s.pages[k], p.Window.NextPage)
		}
	}
	return newN, updN, err
}

// TestSyncSeveralWriters: with three record writers (as PostgreSQL has
// more than one), every record is stored and counted once, from the counts
// of every writer, and each window's pages are written in the order they
// were fetched (all of a window's pages go to one writer).
func TestSyncSeveralWriters(t *testing.T) {
	f, cl := newFake(t)
	f.fill(37)
	o := baseOptions(t, cl)
	db := sqlDB(o.DB)
	ws := &writersStore{Store: db, n: 3, pages: map[string][]int{}}
	o.DB = ws
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if want := 2 * 5 * 37; sum.New != want || sum.Updated != 0 || countRecords(t, db, recon.Statement)+countRecords(t, db, recon.Orders) != want {
		t.Errorf("Summary New, Updated = %d, %d, want %d, 0 (and as many stored)", sum.New, sum.Updated, want)
	}
	if len(ws.pages) != 10 {
		t.Errorf("checkpoints of %d windows written, want 10", len(ws.pages))
	}
	for w, next := range ws.pages {
		if !slices.Equal(next, []int{2, 3, 4, 5}) {
			t.Errorf("window %s: checkpoints written with next pages %v, want 2, 3, 4, 5 in order", w, next)
		}
	}
}

// TestWritersTakeTheLeastBusy: a window starting its walk takes the writer
// with the fewest windows walking, so that two kinds walked at once (one
// light) do not leave one writer all the pages.
func TestWritersTakeTheLeastBusy(t *testing.T) {
	ws := &writers{busy: make([]int, 2)}
	a, b, c := ws.take(), ws.take(), ws.take()
	ws.done(b)
	d := ws.take()
	ws.done(a)
	ws.done(c)
	e := ws.take()
	if got := []int{a, b, c, d, e}; !slices.Equal(got, []int{0, 1, 0, 1, 0}) {
		t.Errorf("writers taken %v, want 0 1 0 1 0", got)
	}
}
