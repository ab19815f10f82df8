package svcapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func TestCheckPage(t *testing.T) {
	for _, tc := range []struct {
		data string
		ok   bool
	}{
		{`{"meta":{"totalPages":0},"records":[]}`, true},
		{` { "records" : [ {"a":1} ], "meta" : {} } `, true},
		{`{"Meta":{},"RECORDS":[]}`, true}, // encoding/json matches keys so too
		{``, false},
		{`null`, false},
		{`[]`, false},
		{`"x"`, false},
		{`{}`, false},
		{`{"meta":{}}`, false},
		{`{"records":[]}`, false},
		{`{"meta":{},"records":null}`, false},
		{`{"meta":null,"records":[]}`, false},
		{`{"meta":{},"records":{}}`, false},
		{`{"meta":[],"records":[]}`, false},
		{`{"meta":{},"records":[]`, false},
	} {
		err := svcapi.CheckPage([]byte(tc.data))
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, svcapi.ErrNotPage) {
			t.Errorf("CheckPage(%s) = %v, want ok %v", tc.data, err, tc.ok)
		}
	}
}

// TestPageAnswerThatIsNoPageIsRetried: a TXN answer to a page operation
// that is not a page (or comes with a status other than 2xx) is retried
// and then an error wrapping ErrNotPage; the same answer to another
// read-only operation is not a page fault.
func TestPageAnswerThatIsNoPageIsRetried(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"data null", 200, `{"statuscode":"TXN","status":"ok","data":null}`},
		{"no records", 200, `{"statuscode":"TXN","status":"ok","data":{"meta":{"totalPages":1}}}`},
		{"redirect", 302, `{"statuscode":"TXN","status":"ok","data":{"meta":{},"records":[]}}`},
		{"server error", 503, `{"statuscode":"TXN","status":"ok","data":{"meta":{},"records":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, serve(tc.status, []byte(tc.body)))
			c := newClient(t, testConfig(f.URL))
			_, err := c.Statement(context.Background(), svcapi.StatementRequest{AccountNumber: "1", BankProfileID: "0",
				ExternalRef: "R1", Pagination: svcapi.Pagination{PageNumber: "2", RecordsPerPage: "10"},
				Filters: svcapi.StatementFilters{TxnDateFrom: "2026-11-01", TxnDateTo: "2026-11-01"}})
			var re *svcapi.ResponseError
			if !errors.Is(err, svcapi.ErrNotPage) || !errors.As(err, &re) || re.HTTPStatus != tc.status {
				t.Fatalf("Statement error = %v, want a ResponseError (HTTP %d) wrapping ErrNotPage", err, tc.status)
			}
			if n := f.count(); n != 4 {
				t.Errorf("%d requests, want 4 (retried)", n)
			}
		})
	}
	f := newFake(t, serve(http.StatusOK, []byte(`{"statuscode":"TXN","status":"ok","data":null}`)))
	if _, err := newClient(t, testConfig(f.URL)).Do(context.Background(), svcapi.OpAepsBanks, nil); err != nil {
		t.Errorf("bank list answered TXN without data: %v, want no page fault", err)
	}
}

// TestAmountBound: ParseAmount and Amount.Check refuse an amount beyond
// the bound of an amount, and a request's decimal field beyond it is
// refused before anything is sent.
func TestAmountBound(t *testing.T) {
	for _, s := range []string{strings.Repeat("9", 401), "1e29", "1000000000000000", "0.12345"} {
		if _, err := svcapi.ParseAmount(s); !errors.Is(err, recon.ErrAmountRange) || len(err.Error()) > 200 {
			t.Errorf("ParseAmount(%.30s) = %v, want the bound named, briefly", s, err)
		}
		var a svcapi.Amount
		if err := json.Unmarshal([]byte(`"`+s+`"`), &a); err != nil || !errors.Is(a.Check(), recon.ErrAmountRange) {
			t.Errorf("Amount %.30s: decode %v, Check %v; want it decoded and refused by Check", s, err, a.Check())
		}
	}
	for _, s := range []string{"12.50", "999999999999999.99", "XXXX", ""} {
		var a svcapi.Amount
		if err := json.Unmarshal([]byte(`"`+s+`"`), &a); err != nil || a.Check() != nil {
			t.Errorf("Amount %q: decode %v, Check %v; want both nil", s, err, a.Check())
		}
	}
	op, _ := svcapi.Lookup(svcapi.OpFundTransfer)
	f := newFake(t, serve(http.StatusOK, []byte(`{"statuscode":"TXN"}`)))
	body := map[string]any{}
	for _, fl := range op.Fields {
		if fl.Req == svcapi.Mandatory {
			svcapi.SetPath(body, fl.Name, "1")
		}
	}
	svcapi.SetPath(body, "transferAmount", "1e29")
	_, err := newClient(t, testConfig(f.URL)).Do(context.Background(), svcapi.OpFundTransfer, body)
	var ve *svcapi.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "transferAmount") || !strings.Contains(err.Error(), "beyond the bound") || f.count() != 0 {
		t.Errorf("transfer of 1e29: %v, %d requests; want it refused before sending", err, f.count())
	}
}
