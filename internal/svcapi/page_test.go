package svcapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

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
