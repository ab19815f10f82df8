package statement

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// fullPage is what the ordinary decoder makes of a page's data: its meta
// and records (toRecord), or an error.
func fullPage(data []byte, kind recon.Kind, account string) (svcapi.Meta, []recon.Record, error) {
	env := &svcapi.Envelope{Data: data}
	var pg svcapi.StatementPage
	if err := env.DecodeData(&pg); err != nil {
		return svcapi.Meta{}, nil, err
	}
	recs := make([]recon.Record, len(pg.Records))
	for i := range pg.Records {
		var err error
		if recs[i], err = toRecord(&pg.Records[i], kind, account, "d", 1, i+1); err != nil {
			return svcapi.Meta{}, nil, err
		}
	}
	return pg.Meta, recs, nil
}

// TestDecodePageSandbox: every page of a sandbox world, both statements,
// is read by the lean decoder, exactly as the ordinary decoder reads it.
func TestDecodePageSandbox(t *testing.T) {
	srv, cl := startSandbox(t, sandbox.Options{Days: 3})
	from, to := srv.Period()
	n := 0
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		for _, order := range []bool{false, true} {
			day := d.Format(recon.DateLayout)
			for p := 1; ; p++ {
				req := svcapi.StatementRequest{BankProfileID: "0", AccountNumber: srv.Credentials().Account, IsOrder: order,
					Pagination: svcapi.Pagination{PageNumber: strconv.Itoa(p), RecordsPerPage: "50"},
					Filters:    svcapi.StatementFilters{TxnDateFrom: day, TxnDateTo: day}}
				req.ExternalRef = "T" + strconv.Itoa(n)
				op := svcapi.OpStatement
				if order {
					op = svcapi.OpCollectOrders
				}
				env, err := cl.Do(context.Background(), op, req)
				if err != nil {
					t.Fatal(err)
				}
				meta, recs, ok := decodePage(env.Data, recon.Statement, "A1")
				wmeta, wrecs, err := fullPage(env.Data, recon.Statement, "A1")
				if err != nil || !ok {
					t.Fatalf("%s page %d: lean ok %v, full error %v", day, p, ok, err)
				}
				if meta != wmeta || !reflect.DeepEqual(recs, wrecs) {
					t.Fatalf("%s page %d: lean %+v\n%+v\nfull %+v\n%+v", day, p, meta, recs, wmeta, wrecs)
				}
				n += len(recs)
				if len(recs) < 50 {
					break
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no records read")
	}
}

// FuzzDecodePage: whenever the lean decoder reads a page's data, the
// ordinary decoder reads it too, to the same meta and records.
func FuzzDecodePage(f *testing.F) {
	rec := map[string]any{"status": "SUCCESS", "txnDateTime": "2026-11-21 10:00:00", "svcOrderId": "SO1",
		"clientOrderId": "R1", "txnMode": "DR", "txnChargedValue": "12.50", "orderValue": 100,
		"closingBalance": "XXXX12", "narrationValue0": " x ", "reversalSvcOrderId": nil}
	for _, v := range []any{
		map[string]any{"meta": map[string]any{"totalPages": 1, "totalRecords": "1"}, "records": []any{rec}},
		map[string]any{"records": []any{rec, map[string]any{"txnDateTime": "2026-11-21 10:00:01", "txnChargedValue": "-0.50"}}},
		map[string]any{"meta": nil, "records": nil},
	} {
		b, _ := json.Marshal(v)
		f.Add(b)
	}
	f.Add([]byte(`{"records":[{"txnDateTime":"2026-11-21 10:00:00","txnChargedValue":1e2,"TxnMode":"CR"}]}`))
	// The meta after the records, the records twice, the meta an array.
	f.Add([]byte(`{"records":[{"txnDateTime":"2026-11-21 10:00:00","txnChargedValue":"1"}],"meta":{"totalRecords":1}}`))
	f.Add([]byte(`{"records":[{"txnDateTime":"2026-11-21 10:00:00","txnChargedValue":"1"}],"records":[]}`))
	f.Add([]byte(`{"meta":[1],"records":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		meta, recs, ok := decodePage(data, recon.Orders, "A")
		if !ok {
			return
		}
		wmeta, wrecs, err := fullPage(data, recon.Orders, "A")
		if err != nil {
			t.Fatalf("decodePage(%q) read a page the full decoder refuses: %v", data, err)
		}
		if len(recs) == 0 && len(wrecs) == 0 {
			recs, wrecs = nil, nil
		}
		if meta != wmeta || !reflect.DeepEqual(recs, wrecs) {
			t.Fatalf("decodePage(%q) = %+v %+v, full %+v %+v", data, meta, recs, wmeta, wrecs)
		}
	})
}
