package statement

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The database implements the stores the walkers declare.
var (
	_ Store       = (*store.DB)(nil)
	_ BillerStore = (*store.DB)(nil)
)

// recordColumns are the records columns of recon.RecordFields, in order.
func recordColumns() string {
	cols := make([]string, recon.NumFields)
	for i, f := range recon.RecordFields {
		cols[i] = f.Column
	}
	return strings.Join(cols, ", ")
}

// fakeService is a hand-written statement and biller server for tests:
// records per kind and day, paged as the service pages them, with faults.
type fakeService struct {
	mu      sync.Mutex
	records map[recon.Kind]map[string][]map[string]any // kind -> day -> records
	late    map[recon.Kind]map[string][]map[string]any // drift: appear after the day's first page was served
	billers []map[string]any

	serverError, drop float64
	rnd               *rand.Rand
	notJSON           map[string]bool   // "kind day page" answered with HTML
	malformed         map[string]string // "kind day page" or "billers page N" answered in this shape (pagefault_test.go)
	malformedHits     map[string]int    // requests answered so, by key
	totalLie          int               // added to meta.totalRecords
	metaShort         int               // statement pages: meta counts this many records fewer than are served
	maxPerPage        int               // caps recordsPerPage when > 0
	unauthorized      bool              // answer every request HTTP 401 UAD
	requests          int
	url               string
	billerReqs        []svcapi.BillersRequest
}

func newFake(t testing.TB) (*fakeService, *svcapi.Client) {
	t.Helper()
	f := &fakeService{records: map[recon.Kind]map[string][]map[string]any{}, late: map[recon.Kind]map[string][]map[string]any{},
		notJSON: map[string]bool{}, malformed: map[string]string{}, malformedHits: map[string]int{}, rnd: rand.New(rand.NewPCG(7, 7))}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	cl, err := svcapi.New(svcapi.Config{BaseURL: srv.URL, ClientID: "id", ClientSecret: "secret-xyz",
		OutletID: "OUT1", EndpointIP: "203.0.113.1", RetryBase: time.Millisecond, RetryMax: 4 * time.Millisecond,
		MaxRetries: 8})
	if err != nil {
		t.Fatal(err)
	}
	return f, cl
}

var fakeDays = []string{"2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"}

// fakeRecord builds a record of kind on day.
func fakeRecord(kind recon.Kind, day string, i int) map[string]any {
	r := map[string]any{
		"status": "SUCCESS", "txnDateTime": fmt.Sprintf("%s %02d:%02d:%02d", day, i/60%24, i%60, i%60),
		"svcOrderId":    fmt.Sprintf("%s%s%04d", strings.ToUpper(string(kind)[:2]), strings.ReplaceAll(day, "-", ""), i),
		"clientOrderId": fmt.Sprintf("REF%d", i), "transactionId": "", "productCode": "P1", "productName": "PAN",
		"subProductCode": "", "subProductName": nil, "txnMode": "DR",
		"txnChargedValue": fmt.Sprintf("%d.50", 10+i), "orderValue": 12, "convenienceFee": "0.00",
		"txnSurcharge": "0", "txnCashback": "0", "txnTds": "0", "responseCode": "00", "responseMsg": "ok",
		"narrationValue0": "n0", "narrationValue9": "",
	}
	if kind == recon.Orders {
		r["settlementSvcOrderId"] = ""
	} else {
		r["reversalSvcOrderId"], r["closingBalance"] = "", "XXXX"
	}
	return r
}

// fill gives every kind n records on each of fakeDays.
func (f *fakeService) fill(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range []recon.Kind{recon.Statement, recon.Orders} {
		f.records[k] = map[string][]map[string]any{}
		for _, d := range fakeDays {
			for i := range n {
				f.records[k][d] = append(f.records[k][d], fakeRecord(k, d, i))
			}
		}
	}
}

// drift moves m records of each day to appear, at the front, only after
// the day's first page was served.
func (f *fakeService) drift(m int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, days := range f.records {
		f.late[k] = map[string][]map[string]any{}
		for d, recs := range days {
			f.late[k][d] = append([]map[string]any(nil), recs[:m]...)
			days[d] = recs[m:]
		}
	}
}

func (f *fakeService) count(kind recon.Kind) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, recs := range f.records[kind] {
		n += len(recs)
	}
	for _, recs := range f.late[kind] {
		n += len(recs)
	}
	return n
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if f.serverError > 0 && f.rnd.Float64() < f.serverError {
		http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
		return
	}
	if f.drop > 0 && f.rnd.Float64() < f.drop {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	if f.unauthorized {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"statuscode":"UAD","status":"Unauthorized","actcode":"CHECK_CREDENTIALS","orderid":null,"data":null}`)
		return
	}
	if r.URL.Path == "/marketplace/utilityPayments/billers" {
		f.serveBillers(w, r)
		return
	}
	var req svcapi.StatementRequest
	var raw map[string]any
	body := json.NewDecoder(r.Body)
	if err := body.Decode(&raw); err != nil {
		http.Error(w, "bad body", 400)
		return
	}
	b, _ := json.Marshal(raw)
	json.Unmarshal(b, &req)
	kind := recon.Statement
	if req.IsOrder {
		kind = recon.Orders
	}
	day := req.Filters.TxnDateFrom
	page, _ := strconv.Atoi(req.Pagination.PageNumber)
	per, _ := strconv.Atoi(req.Pagination.RecordsPerPage)
	if f.maxPerPage > 0 && per > f.maxPerPage {
		per = f.maxPerPage
	}
	if key := fmt.Sprintf("%s %s %d", kind, day, page); f.malformed[key] != "" {
		f.malformedHits[key]++
		writeMalformed(w, f.malformed[key])
		return
	}
	if f.notJSON[fmt.Sprintf("%s %s %d", kind, day, page)] {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>gateway error</html>")
		return
	}
	recs := f.records[kind][day]
	from := min((page-1)*per, len(recs))
	to := min(from+per, len(recs))
	f.writePage(w, recs[from:to], len(recs)-f.metaShort, page, per)
	if late := f.late[kind][day]; len(late) > 0 && page == 1 {
		f.records[kind][day] = append(append([]map[string]any(nil), late...), recs...)
		delete(f.late[kind], day)
	}
}

func (f *fakeService) writePage(w http.ResponseWriter, recs []map[string]any, total, page, per int) {
	if recs == nil {
		recs = []map[string]any{}
	}
	pages := (total + per - 1) / per
	env := map[string]any{"statuscode": "TXN", "status": "Transaction Successful", "actcode": nil,
		"timestamp": "2026-11-06 10:00:00", "svc_uuid": "u1", "orderid": nil, "environment": "SANDBOX",
		"data": map[string]any{"meta": map[string]any{"totalPages": pages, "currentPage": page,
			"totalRecords": total + f.totalLie, "recordsOnCurrentPage": len(recs), "recordFrom": (page-1)*per + 1,
			"recordTo": (page-1)*per + len(recs)}, "records": recs}}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(env)
}

func (f *fakeService) serveBillers(w http.ResponseWriter, r *http.Request) {
	var req svcapi.BillersRequest
	var raw map[string]any
	json.NewDecoder(r.Body).Decode(&raw)
	b, _ := json.Marshal(raw)
	json.Unmarshal(b, &req)
	f.billerReqs = append(f.billerReqs, req)
	var list []map[string]any
	for _, b := range f.billers {
		if req.Filters.CategoryKey != "" && b["categoryKey"] != req.Filters.CategoryKey {
			continue
		}
		if req.Filters.UpdatedAfterDate != "" && b["updatedDate"].(string) <= req.Filters.UpdatedAfterDate {
			continue
		}
		list = append(list, b)
	}
	page, _ := strconv.Atoi(req.Pagination.PageNumber)
	per, _ := strconv.Atoi(req.Pagination.RecordsPerPage)
	if key := fmt.Sprintf("billers page %d", page); f.malformed[key] != "" {
		f.malformedHits[key]++
		writeMalformed(w, f.malformed[key])
		return
	}
	from := min((page-1)*per, len(list))
	to := min(from+per, len(list))
	f.writePage(w, list[from:to], len(list), page, per)
}

func fakeBiller(id int, category, updated string) map[string]any {
	return map[string]any{"billerId": fmt.Sprintf("B%03d", id), "billerName": fmt.Sprintf("Biller %d", id),
		"categoryKey": category, "type": "ONUS", "categoryName": strings.ToUpper(category), "coverageCity": "Pune",
		"coverageState": "MH", "coveragePincode": 411001, "updatedDate": updated, "billerStatus": "ACTIVE",
		"isAvailable": true}
}

func openDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func date(t testing.TB, s string) time.Time {
	t.Helper()
	d, err := time.ParseInLocation(time.DateOnly, s, recon.IST)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// dumpRecords lists the records of a database without the sync times, one
// line each, sorted: two syncs that stored the same content dump the same.
func dumpRecords(t testing.TB, db *store.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT kind, account, svc_order_id, ` + recordColumns() + ` FROM records`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := make([]string, 3+recon.NumFields)
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join(vals, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// windowStates maps "kind day" to the window's state.
func windowStates(t testing.TB, db *store.DB) map[string]string {
	t.Helper()
	rows, err := db.Query(`SELECT kind, day, state FROM sync_windows`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, d, s string
		if err := rows.Scan(&k, &d, &s); err != nil {
			t.Fatal(err)
		}
		out[k+" "+d] = s
	}
	return out
}

func countRecords(t testing.TB, db *store.DB, kind recon.Kind) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM records WHERE kind = ?`, kind).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func queryInt(t testing.TB, db *store.DB, q string, args ...any) int {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return int(n.Int64)
}

// sqlDB is the database behind a store the tests handed to Sync or
// SyncBillers, for inspecting with SQL.
func sqlDB(s any) *store.DB { return s.(*store.DB) }
