package statement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// BenchmarkSync syncs STATEMENT_BENCH_RECORDS (default 1,000,000) statement
// records over 30 days from the sandbox over loopback HTTP into a fresh
// database ("http"), then inserts the same rows straight into a fresh
// database with prepared statements in batched transactions, no HTTP and no
// JSON ("floor"). Run it with
//
//	go test ./internal/statement/ -run '^$' -bench Sync -benchtime 1x
//
// It reports records/s, CPU time per record (the in-process server's
// included), peak heap and the ratio to the floor. -bench Sync/http runs
// the sync alone (for /usr/bin/time -v: the floor holds every row in memory).
// STATEMENT_BENCH_FAKE=1 uses a minimal in-package page server instead of
// the sandbox.
//
// Measured on the 2-core development machine, shared with other jobs
// (load about 1.3), 1,000,000 records, page size 500, concurrency 4
// (docs/benchmarks.md):
//
//	http   18.5 s  54,114 records/s  29 CPU-µs/record  peak heap 88 MB
//	floor  17.3 s  57,736 records/s  20 CPU-µs/record  (holds all rows)
//	ratio  0.94
//
// The floor is the store's own write path (WriteRecords: 32 records a
// prepared INSERT) fed the same rows with no HTTP and no JSON; the sync's
// pages are decoded by the lean decoder (page.go) while the writer inserts,
// so the writer is what bounds it.
func BenchmarkSync(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("STATEMENT_BENCH_RECORDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	pageSize := 500
	if v := os.Getenv("STATEMENT_BENCH_PAGE"); v != "" {
		pageSize, _ = strconv.Atoi(v)
	}
	conc := 4
	if v := os.Getenv("STATEMENT_BENCH_CONCURRENCY"); v != "" {
		conc, _ = strconv.Atoi(v)
	}
	cfg, from, to, want := benchSource(b, n)
	cl, err := svcapi.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var src *store.DB
	var httpRate float64
	outer := b
	b.Run("http", func(b *testing.B) {
		for b.Loop() {
			db := openDB(outer)
			peak := watchHeap()
			cpu := cpuTime()
			start := time.Now()
			sum, err := Sync(context.Background(), Options{DB: db, Client: cl, Account: sandbox.DefaultCredentials.Account,
				From: from, To: to, Kinds: []recon.Kind{recon.Statement}, PageSize: pageSize, Concurrency: conc})
			el := time.Since(start)
			if err != nil {
				b.Fatalf("Sync: %v", err)
			}
			if sum.New != want {
				b.Fatalf("synced %d records, want %d", sum.New, want)
			}
			httpRate = float64(sum.New) / el.Seconds()
			b.ReportMetric(httpRate, "records/s")
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(sum.Pages), "pages")
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(sum.New), "cpu-µs/record")
			src = db
		}
	})
	if src == nil {
		return
	}
	b.Run("floor", func(b *testing.B) {
		rows := loadRows(b, src) // before b.Loop: not timed
		for b.Loop() {
			db := openDB(b)
			peak := watchHeap()
			cpu := cpuTime()
			start := time.Now()
			insertFloor(b, db, rows)
			el := time.Since(start)
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(len(rows)), "cpu-µs/record")
			rate := float64(len(rows)) / el.Seconds()
			b.ReportMetric(rate, "records/s")
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
			if httpRate > 0 {
				b.Logf("http sync runs at %.2f of the floor (%.0f vs %.0f records/s)", httpRate/rate, httpRate, rate)
			}
		}
	})
}

// benchSource starts the sandbox (or the minimal fake) with n statement
// records over 30 days.
func benchSource(b *testing.B, n int) (svcapi.Config, time.Time, time.Time, int) {
	if os.Getenv("STATEMENT_BENCH_FAKE") == "" {
		srv, err := sandbox.Start(sandbox.Options{TotalRecords: n, Days: 30, NoDefects: true})
		if err == nil {
			b.Cleanup(func() { srv.Close() })
			from, to := srv.Period()
			return srv.Config(), from, to, srv.Counts().Statement
		}
		if !errors.Is(err, sandbox.ErrNotImplemented) {
			b.Fatal(err)
		}
		b.Log("sandbox not implemented yet: using the minimal page server")
	}
	to := day(time.Now()).AddDate(0, 0, -1)
	from := to.AddDate(0, 0, -29)
	fp := &fastPages{perDay: n / 30, from: from}
	srv := httptest.NewServer(fp)
	b.Cleanup(srv.Close)
	c := sandbox.DefaultCredentials
	return svcapi.Config{BaseURL: srv.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret, OutletID: c.OutletID,
		EndpointIP: c.EndpointIP}, from, to, fp.perDay * 30
}

// cpuTime is the process's user and system CPU time so far (the in-process
// server's included): a measure that holds on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// watchHeap samples the heap in use until the returned function is called,
// which returns the peak.
func watchHeap() func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); wg.Wait(); return peak.Load() }
}

type floorRow = recon.Record

func loadRows(b *testing.B, db *store.DB) []floorRow {
	rs, err := db.Query(`SELECT kind, account, svc_order_id, ` + recordColumns() + ` FROM records`)
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Close()
	var out []floorRow
	for rs.Next() {
		var r floorRow
		dest := []any{&r.Kind, &r.Account, &r.SvcOrderID}
		for i := range r.Values {
			dest = append(dest, &r.Values[i])
		}
		if err := rs.Scan(dest...); err != nil {
			b.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// insertFloor inserts rows as the sync's writer does (store.WriteRecords:
// multi-row prepared INSERTs, maxBatchRows a transaction) with no HTTP, no
// JSON and no checkpoints: the insert floor of the same table.
func insertFloor(b *testing.B, db *store.DB, rows []floorRow) {
	at := time.Now()
	for len(rows) > 0 {
		batch := rows[:min(maxBatchRows, len(rows))]
		rows = rows[len(batch):]
		if _, _, err := db.WriteRecords(context.Background(), at, []store.RecordPage{{Records: batch}}); err != nil {
			b.Fatal(err)
		}
	}
}

// fastPages serves statement pages of perDay records a day, encoded
// directly: a stand-in for the sandbox while it is being built.
type fastPages struct {
	perDay int
	from   time.Time
}

func (f *fastPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req svcapi.StatementRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	page, _ := strconv.Atoi(req.Pagination.PageNumber)
	per, _ := strconv.Atoi(req.Pagination.RecordsPerPage)
	d := req.Filters.TxnDateFrom
	lo, hi := min((page-1)*per, f.perDay), min(page*per, f.perDay)
	buf := make([]byte, 0, 700*(hi-lo)+256)
	buf = fmt.Appendf(buf, `{"statuscode":"TXN","actcode":null,"status":"Transaction Successful","timestamp":"2026-11-22 10:00:00","svc_uuid":"x","orderid":null,"environment":"SANDBOX","data":{"meta":{"totalPages":%d,"currentPage":%d,"totalRecords":%d,"recordsOnCurrentPage":%d,"recordFrom":%d,"recordTo":%d},"records":[`,
		(f.perDay+per-1)/per, page, f.perDay, hi-lo, lo+1, hi)
	dd := strings.ReplaceAll(d, "-", "")
	for i := lo; i < hi; i++ {
		if i > lo {
			buf = append(buf, ',')
		}
		s := i * 86400 / max(f.perDay, 1)
		buf = fmt.Appendf(buf, `{"status":"SUCCESS","txnDateTime":"%s %02d:%02d:%02d","svcOrderId":"SO%s%07d","clientOrderId":"REF%s%07d","transactionId":"T%d","productCode":"PANV2","productName":"PAN verification plus","subProductCode":"","subProductName":null,"txnMode":"DR","txnChargedValue":"%d.50","orderValue":"%d.50","convenienceFee":"0.00","txnSurcharge":"0.00","txnCashback":"0.00","txnTds":"0.00","narrationValue0":"PAN","narrationValue1":"","narrationValue2":"","narrationValue3":"","narrationValue4":"","narrationValue5":"","narrationValue6":"","narrationValue7":"","narrationValue8":"","narrationValue9":"","responseCode":"00","responseMsg":"Success","reversalSvcOrderId":"","closingBalance":"XXXXXX%d"}`,
			d, s/3600, s/60%60, s%60, dd, i, dd, i, i, 1+i%90, 1+i%90, i%97)
	}
	buf = append(buf, "]}}"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf)
}
