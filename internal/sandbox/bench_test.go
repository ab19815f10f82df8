package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

var (
	bigOnce sync.Once
	big     *sandbox.Sandbox
	bigTook time.Duration
)

func bigWorld(b *testing.B) *sandbox.Sandbox {
	bigOnce.Do(func() {
		t0 := time.Now()
		sb, err := sandbox.New(sandbox.Options{TotalRecords: 1_000_000, End: end})
		if err != nil {
			b.Fatal(err)
		}
		big, bigTook = sb, time.Since(t0)
	})
	return big
}

// BenchmarkStatementPage serves 1000-record statement pages of a 1,000,000
// record history, walking the whole period page by page.
func BenchmarkStatementPage(b *testing.B) {
	sb := bigWorld(b)
	b.Logf("generating the 1,000,000-record world took %s", bigTook)
	from, to := sb.Period()
	cr := sb.Credentials()
	pages := sb.Counts().Statement / 1000
	b.ReportAllocs()
	b.ResetTimer()
	var bytesOut int64
	for i := 0; i < b.N; i++ {
		body := fmt.Sprintf(`{"bankProfileId":"7","accountNumber":%q,"externalRef":"B","pagination":{"pageNumber":"%d","recordsPerPage":"1000"},"filters":{"txnDateFrom":%q,"txnDateTo":%q}}`,
			cr.Account, 1+i%pages, from.Format(time.DateOnly), to.Format(time.DateOnly))
		rec := serve(sb, body)
		if rec.Code != 200 {
			b.Fatalf("page: %d %s", rec.Code, rec.Body.String()[:200])
		}
		bytesOut += int64(rec.Body.Len())
	}
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "records/s")
	b.SetBytes(bytesOut / int64(b.N))
}

// BenchmarkCallLog writes the call log of a 100,000-record history.
func BenchmarkCallLog(b *testing.B) {
	sb, err := sandbox.New(sandbox.Options{TotalRecords: 100_000, Days: 3, End: end})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := sb.WriteCallLog(&buf); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
	}
	b.ReportMetric(float64(b.N)*float64(sb.Counts().Calls)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkStatementHTTP pulls 1000-record pages of the 1,000,000-record
// history over loopback HTTP and decodes them with svcapi.Client, as a sync
// would (the figure includes the client's decoding).
func BenchmarkStatementHTTP(b *testing.B) {
	sb := bigWorld(b)
	ts := httptest.NewServer(sb)
	defer ts.Close()
	cr := sb.Credentials()
	cl, err := svcapi.New(svcapi.Config{BaseURL: ts.URL, ClientID: cr.ClientID, ClientSecret: cr.ClientSecret,
		OutletID: cr.OutletID, EndpointIP: cr.EndpointIP})
	if err != nil {
		b.Fatal(err)
	}
	from, to := sb.Period()
	pages := sb.Counts().Statement / 1000
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := cl.Statement(context.Background(), svcapi.StatementRequest{BankProfileID: "7", AccountNumber: cr.Account, ExternalRef: "B",
			Pagination: svcapi.Pagination{PageNumber: fmt.Sprint(1 + i%pages), RecordsPerPage: "1000"},
			Filters:    svcapi.StatementFilters{TxnDateFrom: from.Format(time.DateOnly), TxnDateTo: to.Format(time.DateOnly)}})
		if err != nil || len(p.Records) != 1000 {
			b.Fatalf("page %d: %v", 1+i%pages, err)
		}
	}
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkDayPages serves every 1000-record page of one day, four days at
// once (as a sync walks four windows), in worlds of 1,000,000 and
// 10,000,000 records over 30 days: the cost per record must not grow with
// the world.
func BenchmarkDayPages(b *testing.B) {
	for _, total := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("records=%d", total), func(b *testing.B) {
			sb, err := sandbox.New(sandbox.Options{TotalRecords: total, End: end})
			if err != nil {
				b.Fatal(err)
			}
			from, _ := sb.Period()
			acct := sb.Credentials().Account
			perDay := total / 30
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				for d := range 4 {
					day := from.AddDate(0, 0, (4*i+d)%30).Format(time.DateOnly)
					wg.Add(1)
					go func() {
						defer wg.Done()
						for p := 1; p <= (perDay+999)/1000; p++ {
							body := fmt.Sprintf(`{"bankProfileId":"7","accountNumber":%q,"externalRef":"B","pagination":{"pageNumber":"%d","recordsPerPage":"1000"},"filters":{"txnDateFrom":%q,"txnDateTo":%q}}`,
								acct, p, day, day)
							if rec := serve(sb, body); rec.Code != 200 {
								b.Errorf("page %d of %s: %d", p, day, rec.Code)
								return
							}
						}
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*4*perDay), "ns/record")
		})
	}
}
