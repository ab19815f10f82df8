package sandbox_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// forms counts how a field is written across the answers: as a JSON string
// or as a JSON number.
type forms struct{ str, num int }

func (f *forms) add(v any) {
	switch v.(type) {
	case string:
		f.str++
	case json.Number:
		f.num++
	}
}

// decodeData decodes the data member of an answer with json.Number numbers.
func decodeData(tb testing.TB, body []byte) any {
	tb.Helper()
	var env struct{ Data any }
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		tb.Fatalf("answer %s: %v", body, err)
	}
	return env.Data
}

// TestNumberOrString: the sandbox writes the fields the spec lists as
// "number or string" both ways, as its package documentation says.
func TestNumberOrString(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{End: end})
	if err != nil {
		t.Fatal(err)
	}
	var meta [4]forms // by page: 1, 2, 3 …
	var orderValue, fee forms
	for p := 1; p <= 3; p++ {
		body := `{"bankProfileId":"7","accountNumber":"` + sb.Credentials().Account + `","externalRef":"X",` +
			`"pagination":{"pageNumber":"` + itoa(p) + `","recordsPerPage":"300"},"filters":{"txnDateFrom":"2026-10-01","txnDateTo":"2026-11-30"}}`
		data := decodeData(t, serve(sb, body).Body.Bytes()).(map[string]any)
		for _, v := range data["meta"].(map[string]any) {
			meta[p].add(v)
		}
		for _, r := range data["records"].([]any) {
			rec := r.(map[string]any)
			orderValue.add(rec["orderValue"])
			fee.add(rec["convenienceFee"])
		}
	}
	if meta[1].str != 0 || meta[2].num != 0 || meta[2].str == 0 || meta[3].str != 0 {
		t.Errorf("meta forms by page %+v; want numbers on pages 1 and 3, strings on page 2", meta[1:])
	}
	if orderValue.num == 0 || orderValue.str == 0 || fee.num == 0 || fee.str == 0 {
		t.Errorf("orderValue %+v, convenienceFee %+v; want both forms", orderValue, fee)
	}

	var pincode forms
	billers := decodeData(t, serveReq(sb, http.MethodPost, "/marketplace/utilityPayments/billers",
		`{"pagination":{"pageNumber":"1","recordsPerPage":"1000"}}`).Body.Bytes()).(map[string]any)
	for _, r := range billers["records"].([]any) {
		pincode.add(r.(map[string]any)["coveragePincode"])
	}
	if pincode.num == 0 || pincode.str == 0 || pincode.str > pincode.num {
		t.Errorf("coveragePincode %+v; want mostly numbers, some text", pincode)
	}

	var bankID, rate forms
	for _, b := range decodeData(t, serveReq(sb, http.MethodGet, "/fi/aeps/banks", "").Body.Bytes()).([]any) {
		m := b.(map[string]any)
		bankID.add(m["bankId"])
		rate.add(m["aepsFailureRate"])
		rate.add(m["aadhaarpayFailureRate"])
	}
	for _, b := range decodeData(t, serveReq(sb, http.MethodGet, "/identity/verifyBankAccount/banks", "").Body.Bytes()).([]any) {
		bankID.add(b.(map[string]any)["bankId"])
	}
	if bankID.num == 0 || bankID.str == 0 || rate.num != 0 || rate.str == 0 {
		t.Errorf("bank lists: bankId %+v, failure rates %+v; want bankId both ways, rates as strings", bankID, rate)
	}
}
