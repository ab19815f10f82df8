package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func panBody(ref string) map[string]any {
	return map[string]any{"pan": "ABCPR1234F", "consent": "Y", "latitude": "1", "longitude": "2", "externalRef": ref}
}

var liveDay = time.Date(2026, 11, 21, 0, 0, 0, 0, recon.IST)

func TestFaultServerErrorShare(t *testing.T) {
	srv, cl := start(t, sandbox.Options{Days: 2, NoDefects: true})
	srv.SetFaults(sandbox.Faults{ServerError: 0.3, Seed: 5})
	failed := 0
	const n = 300
	for i := 0; i < n; i++ {
		_, err := cl.Do(context.Background(), svcapi.OpVerifyBankAccountBanks, nil)
		var re *svcapi.ResponseError
		switch {
		case err == nil:
		case errors.As(err, &re) && re.HTTPStatus >= 500:
			failed++
		default:
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if failed < n*2/10 || failed > n*4/10 {
		t.Errorf("%d of %d answers were 5xx, want about 30%%", failed, n)
	}
}

func TestFaultDropResolvesByTxnStatus(t *testing.T) {
	srv, cl := start(t, sandbox.Options{Days: 2, NoDefects: true})
	ctx := context.Background()
	outcomes := map[string]int{}
	for i := 0; i < 12; i++ {
		ref := fmt.Sprintf("DROP%02d", i)
		srv.SetFaults(sandbox.Faults{Drop: 1, Seed: int64(100 + i)})
		_, err := cl.Do(ctx, svcapi.OpVerifyPanPlusV2, panBody(ref))
		if !errors.Is(err, svcapi.ErrPending) {
			t.Fatalf("dropped call: %v, want ErrPending", err)
		}
		srv.SetFaults(sandbox.Faults{})
		st, err := cl.TxnStatus(ctx, liveDay, ref)
		if err != nil {
			t.Fatal(err)
		}
		code := string(st.TransactionStatusCode)
		outcomes[code]++
		recs := walk(t, cl, srv.Credentials().Account, liveDay, liveDay, false, 1000)
		inStatement := false
		for _, r := range recs {
			if string(r.ClientOrderID) == ref {
				inStatement = true
				if string(r.SvcOrderID) != string(st.OrderID) {
					t.Errorf("%s: txnStatus orderid %s, statement %s", ref, st.OrderID, r.SvcOrderID)
				}
			}
		}
		switch code {
		case "TXN":
			if !inStatement || st.Pool == nil {
				t.Errorf("%s: TXN but in statement %v, pool %v", ref, inStatement, st.Pool)
			}
		case svcapi.TxnNotFound:
			if inStatement {
				t.Errorf("%s: SNA but debited", ref)
			}
		default:
			t.Errorf("%s: transactionStatusCode %s", ref, code)
		}
		if srv.CallCount(ref) != 1 {
			t.Errorf("%s: CallCount %d, want 1", ref, srv.CallCount(ref))
		}
	}
	if outcomes["TXN"] == 0 || outcomes[svcapi.TxnNotFound] == 0 {
		t.Errorf("dropped calls resolved as %v; want both TXN and SNA", outcomes)
	}
}

func TestFaultPendingResolvesTXN(t *testing.T) {
	srv, cl := start(t, sandbox.Options{Days: 2, NoDefects: true})
	ctx := context.Background()
	srv.SetFaults(sandbox.Faults{Pending: 1})
	_, err := cl.Do(ctx, svcapi.OpLitigation, map[string]any{"name": "X Ltd", "searchType": "Entity", "address": "Pune",
		"latitude": "1", "longitude": "2", "externalRef": "TUP1"})
	var pe *svcapi.PendingError
	if !errors.As(err, &pe) || pe.Envelope == nil || pe.Envelope.StatusCode != "TUP" {
		t.Fatalf("Do = %v, want a TUP answer", err)
	}
	// Read-only calls are never TUP.
	if _, err := cl.Do(ctx, svcapi.OpAepsBanks, nil); err != nil {
		t.Errorf("aepsBanks with Pending 1: %v", err)
	}
	st, err := cl.TxnStatus(ctx, liveDay, "TUP1")
	if err != nil {
		t.Fatal(err)
	}
	if st.TransactionStatusCode != "TXN" || st.OrderID == "" || st.Pool == nil || st.Pool.Amount.String() != "25" {
		t.Errorf("txnStatus = %+v, want TXN with orderid and a 25.00 pool debit", st)
	}
	// The wrong day does not find it.
	st, err = cl.TxnStatus(ctx, liveDay.AddDate(0, 0, -1), "TUP1")
	if err != nil || st.TransactionStatusCode != svcapi.TxnNotFound {
		t.Errorf("txnStatus on the wrong day = %+v, %v; want SNA", st, err)
	}
}

func TestFaultPageDrift(t *testing.T) {
	srv, cl := start(t, sandbox.Options{Days: 3, NoDefects: true, CallsPerDay: 300})
	from, _ := srv.Period()
	srv.SetFaults(sandbox.Faults{PageDrift: true})
	page := func(n int) *svcapi.StatementPage {
		p, err := cl.Statement(context.Background(), svcapi.StatementRequest{BankProfileID: "7", AccountNumber: srv.Credentials().Account,
			ExternalRef: "D1", Pagination: svcapi.Pagination{PageNumber: itoa(n), RecordsPerPage: "50"},
			Filters: svcapi.StatementFilters{TxnDateFrom: from.Format(time.DateOnly), TxnDateTo: from.Format(time.DateOnly)}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p1 := page(1)
	p2 := page(2)
	if p2.Meta.TotalRecords <= p1.Meta.TotalRecords {
		t.Errorf("totalRecords %d after page 1, %d after; want records to appear", p1.Meta.TotalRecords, p2.Meta.TotalRecords)
	}
	// A walk of another day that trusts page 1's totalPages misses the
	// records pushed past it; a second walk finds every record once.
	day2 := from.AddDate(0, 0, 1)
	var naive []svcapi.StatementRecord
	pages := 1
	for n := 1; n <= pages; n++ {
		p, err := cl.Statement(context.Background(), svcapi.StatementRequest{BankProfileID: "7", AccountNumber: srv.Credentials().Account,
			ExternalRef: "D2", Pagination: svcapi.Pagination{PageNumber: itoa(n), RecordsPerPage: "50"},
			Filters: svcapi.StatementFilters{TxnDateFrom: day2.Format(time.DateOnly), TxnDateTo: day2.Format(time.DateOnly)}})
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			pages = int(p.Meta.TotalPages)
		}
		naive = append(naive, p.Records...)
	}
	second := walk(t, cl, srv.Credentials().Account, day2, day2, false, 50)
	srv.SetFaults(sandbox.Faults{})
	want := walk(t, cl, srv.Credentials().Account, day2, day2, false, 1000)
	distinct := func(rs []svcapi.StatementRecord) int {
		seen := map[string]bool{}
		for _, r := range rs {
			seen[string(r.SvcOrderID)] = true
		}
		return len(seen)
	}
	if distinct(naive) >= len(want) {
		t.Errorf("a naive walk under drift saw all %d records; want some pushed past its last page", len(want))
	}
	if distinct(second) != len(want) || len(second) != len(want) {
		t.Errorf("the second walk saw %d records (%d distinct), the day has %d", len(second), distinct(second), len(want))
	}
}

// TestDeterministic: one seed, one world — byte-identical call logs and
// statement pages.
func TestDeterministic(t *testing.T) {
	var logs [2][]byte
	var pages [2][][]byte
	for i := range logs {
		c := &clock{t: time.Date(2026, 11, 21, 10, 0, 0, 0, recon.IST)}
		sb, err := sandbox.New(sandbox.Options{Seed: 11, End: end, Now: c.now})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := sb.WriteCallLog(&buf); err != nil {
			t.Fatal(err)
		}
		logs[i] = buf.Bytes()
		for _, p := range []string{"1", "2", "3"} {
			for _, orders := range []string{"false", "true"} {
				body := `{"bankProfileId":"0","accountNumber":"` + sb.Credentials().Account + `","externalRef":"X","isOrder":` + orders +
					`,"pagination":{"pageNumber":"` + p + `","recordsPerPage":"200"},"filters":{"txnDateFrom":"2026-10-01","txnDateTo":"2026-11-30"}}`
				rec := serve(sb, body)
				if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"TXN"`)) {
					t.Fatalf("statement page %s: %d %s", p, rec.Code, rec.Body.String())
				}
				pages[i] = append(pages[i], rec.Body.Bytes())
			}
		}
		// Billers (every page, both filters) and both bank lists.
		for _, r := range []struct{ method, path, body string }{
			{http.MethodPost, "/marketplace/utilityPayments/billers", `{"pagination":{"pageNumber":"1","recordsPerPage":"1000"}}`},
			{http.MethodPost, "/marketplace/utilityPayments/billers", `{"pagination":{"pageNumber":"2","recordsPerPage":"70"},"filters":{"updatedAfterDate":"2026-10-01","categoryKey":""}}`},
			{http.MethodGet, "/fi/aeps/banks", ""},
			{http.MethodGet, "/identity/verifyBankAccount/banks", ""},
		} {
			rec := serveReq(sb, r.method, r.path, r.body)
			if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"TXN"`)) {
				t.Fatalf("%s: %d %s", r.path, rec.Code, rec.Body.String())
			}
			pages[i] = append(pages[i], rec.Body.Bytes())
		}
	}
	if !bytes.Equal(logs[0], logs[1]) || len(logs[0]) == 0 {
		t.Errorf("two sandboxes with one seed wrote different call logs")
	}
	for k := range pages[0] {
		if !bytes.Equal(pages[0][k], pages[1][k]) {
			t.Errorf("answer %d (statement, orders, billers, banks) differs between two sandboxes with one seed", k)
		}
	}
	other, err := sandbox.New(sandbox.Options{Seed: 12, End: end})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	other.WriteCallLog(&buf)
	if bytes.Equal(buf.Bytes(), logs[0]) {
		t.Errorf("seeds 11 and 12 wrote the same call log")
	}
}

// serve posts a statement request straight to the handler.
func serve(sb *sandbox.Sandbox, body string) *httptest.ResponseRecorder {
	return serveReq(sb, http.MethodPost, "/reports/statement", body)
}

// serveReq sends a request with the sandbox's credentials (H5) straight to
// the handler.
func serveReq(sb *sandbox.Sandbox, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	cr := sb.Credentials()
	req.Header.Set(svcapi.HeaderAuthCode, "1")
	req.Header.Set(svcapi.HeaderClientID, cr.ClientID)
	req.Header.Set(svcapi.HeaderClientSecret, cr.ClientSecret)
	req.Header.Set(svcapi.HeaderEndpointIP, cr.EndpointIP)
	req.Header.Set(svcapi.HeaderOutletID, cr.OutletID)
	rec := httptest.NewRecorder()
	sb.ServeHTTP(rec, req)
	return rec
}

// TestFaultLatency: the latency fault holds every answer back — a client
// whose time-out is shorter gets no answer (a billable call is pending, a
// read-only one fails); without it the same calls succeed.
func TestFaultLatency(t *testing.T) {
	srv, err := sandbox.Start(sandbox.Options{Days: 2, NoDefects: true, End: end})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := srv.Config()
	cfg.MaxRetries, cfg.Timeout = -1, 300*time.Millisecond
	cl, err := svcapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv.SetFaults(sandbox.Faults{Latency: time.Minute})
	if _, err := cl.Do(ctx, svcapi.OpVerifyBankAccountBanks, nil); err == nil {
		t.Error("read-only call answered within the time-out despite a minute of latency")
	}
	if _, err := cl.Do(ctx, svcapi.OpVerifyPanPlusV2, panBody("LAT1")); !errors.Is(err, svcapi.ErrPending) {
		t.Errorf("billable call with a minute of latency: %v, want ErrPending", err)
	}
	srv.SetFaults(sandbox.Faults{})
	if _, err := cl.Do(ctx, svcapi.OpVerifyBankAccountBanks, nil); err != nil {
		t.Errorf("without latency: %v", err)
	}
	if _, err := cl.Do(ctx, svcapi.OpVerifyPanPlusV2, panBody("LAT2")); err != nil {
		t.Errorf("billable call without latency: %v", err)
	}
}

// TestFaultDiceRepeat: one fault seed, one sequence of faults; another seed
// another sequence.
func TestFaultDiceRepeat(t *testing.T) {
	srv, cl := start(t, sandbox.Options{Days: 2, NoDefects: true})
	pattern := func(seed int64) string {
		srv.SetFaults(sandbox.Faults{ServerError: 0.5, Seed: seed})
		var b []byte
		for range 40 {
			if _, err := cl.Do(context.Background(), svcapi.OpAepsBanks, nil); err != nil {
				b = append(b, 'x')
			} else {
				b = append(b, '.')
			}
		}
		return string(b)
	}
	a, again, other := pattern(3), pattern(3), pattern(4)
	if a != again {
		t.Errorf("fault seed 3 gave %s, then %s", a, again)
	}
	if a == other || !bytes.Contains([]byte(a), []byte("x")) || !bytes.Contains([]byte(a), []byte(".")) {
		t.Errorf("fault seeds 3 and 4 gave %s and %s; want different mixes of failures", a, other)
	}
}
