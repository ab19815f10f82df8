package svcapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// A report page is logged without its data (its records are stored by the
// sync); a billable call's answer and a txnStatus look-up (which resolves a
// pending call) are logged whole, redacted.
func TestLoggedResponseDropsDataOfReadOnlyCalls(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		op, fixture string
		body        any
		wantData    bool
	}{
		{svcapi.OpStatement, "statement.json", svcapi.StatementRequest{BankProfileID: "1", AccountNumber: "0409", ExternalRef: "ST1",
			Pagination: svcapi.Pagination{PageNumber: "1", RecordsPerPage: "10"},
			Filters:    svcapi.StatementFilters{TxnDateFrom: "2026-11-01", TxnDateTo: "2026-11-01"}}, false},
		{svcapi.OpTxnStatus, "txnStatus.json", svcapi.TxnStatusRequest{TransactionDate: "2026-11-21", ExternalRef: "R1"}, true},
		{svcapi.OpVerifyPanPlusV2, "verifyPanPlusV2.json", map[string]any{"pan": "ABCDE1234F",
			"latitude": "1", "longitude": "2", "externalRef": "R1", "consent": "Y"}, true},
	} {
		t.Run(tc.op, func(t *testing.T) {
			f := newFake(t, serve(http.StatusOK, fixture(t, tc.fixture)))
			var log bytes.Buffer
			cfg := testConfig(f.URL)
			cfg.Recorders = []svcapi.Recorder{svcapi.NewJSONLRecorder(&log)}
			if _, err := newClient(t, cfg).Do(ctx, tc.op, tc.body); err != nil {
				t.Fatalf("Do(%s) = %v", tc.op, err)
			}
			var rec struct {
				Response map[string]json.RawMessage `json:"response"`
			}
			if err := json.Unmarshal(log.Bytes(), &rec); err != nil {
				t.Fatalf("call log line %q: %v", log.String(), err)
			}
			if string(rec.Response["statuscode"]) != `"TXN"` {
				t.Errorf("logged statuscode = %s, want \"TXN\"", rec.Response["statuscode"])
			}
			if _, has := rec.Response["data"]; has != tc.wantData {
				t.Errorf("logged response has data = %v, want %v", has, tc.wantData)
			}
		})
	}
}
