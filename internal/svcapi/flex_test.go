package svcapi_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"abc"`, "abc"}, {`12345678901234567890`, "12345678901234567890"}, {`0.10`, "0.10"},
		{`null`, ""}, {`true`, "true"}, {`"\u00e9"`, "é"}, {`{"a": 1}`, `{"a":1}`}, {`[1, 2]`, `[1,2]`},
	}
	for _, tc := range tests {
		var s svcapi.String
		if err := json.Unmarshal([]byte(tc.in), &s); err != nil || string(s) != tc.want {
			t.Errorf("String(%s) = %q, %v; want %q", tc.in, s, err, tc.want)
		}
	}
}

func TestInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{`12`, 12, true}, {`"12"`, 12, true}, {`12.0`, 12, true}, {`"1e3"`, 1000, true}, {`null`, 0, true}, {`""`, 0, true},
		{`"NA"`, 0, true}, {`"-"`, 0, true}, {`-7`, -7, true},
		{`12.5`, 0, false}, {`"abc"`, 0, false}, {`1e30`, 0, false}, {`"1e2000000000"`, 0, false}, {`{}`, 0, false},
	}
	for _, tc := range tests {
		var n svcapi.Int
		err := json.Unmarshal([]byte(tc.in), &n)
		if (err == nil) != tc.ok || (tc.ok && int64(n) != tc.want) {
			t.Errorf("Int(%s) = %d, %v; want %d, ok %v", tc.in, n, err, tc.want, tc.ok)
		}
	}
}

func TestBool(t *testing.T) {
	tests := []struct {
		in       string
		want, ok bool
	}{
		{`true`, true, true}, {`"true"`, true, true}, {`1`, true, true}, {`"Y"`, true, true}, {`"yes"`, true, true},
		{`false`, false, true}, {`0`, false, true}, {`"N"`, false, true}, {`null`, false, true}, {`"NA"`, false, true},
		{`"maybe"`, false, false}, {`2`, false, false},
	}
	for _, tc := range tests {
		var b svcapi.Bool
		err := json.Unmarshal([]byte(tc.in), &b)
		if (err == nil) != tc.ok || bool(b) != tc.want {
			t.Errorf("Bool(%s) = %v, %v; want %v, ok %v", tc.in, b, err, tc.want, tc.ok)
		}
	}
}

func TestAmount(t *testing.T) {
	tests := []struct {
		in, want, raw string
		valid, ok     bool
	}{
		{`"1.18"`, "1.18", "1.18", true, true},
		{`1.18`, "1.18", "1.18", true, true},
		{`0.1`, "0.1", "0.1", true, true}, // no float rounding
		{`"12345678901234567890.12"`, "12345678901234567890.12", "12345678901234567890.12", true, true},
		{`" 5 "`, "5", "5", true, true},
		{`"-27.64"`, "-27.64", "-27.64", true, true},
		{`"XXXXXX"`, "XXXXXX", "XXXXXX", false, true},
		{`"1e2000000000"`, "1e2000000000", "1e2000000000", false, true}, // absurd exponent: not an amount
		{`""`, "", "", false, true},
		{`null`, "", "", false, true},
		{`true`, "", "", false, false},
		{`{}`, "", "", false, false},
	}
	for _, tc := range tests {
		var a svcapi.Amount
		err := json.Unmarshal([]byte(tc.in), &a)
		if (err == nil) != tc.ok {
			t.Errorf("Amount(%s) err = %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && (a.Valid != tc.valid || a.String() != tc.want || a.Raw != tc.raw) {
			t.Errorf("Amount(%s) = %+v (%q), want valid %v %q raw %q", tc.in, a, a.String(), tc.valid, tc.want, tc.raw)
		}
	}
	// Exact arithmetic: 0.1 + 0.2 is 0.3.
	var x, y svcapi.Amount
	json.Unmarshal([]byte(`0.1`), &x)
	json.Unmarshal([]byte(`"0.2"`), &y)
	if s := x.Decimal.Add(y.Decimal).String(); s != "0.3" {
		t.Errorf("0.1 + 0.2 = %s, want 0.3", s)
	}
	b, _ := json.Marshal(struct{ A, B svcapi.Amount }{x, svcapi.Amount{}})
	if string(b) != `{"A":"0.1","B":null}` {
		t.Errorf("Amount marshal = %s", b)
	}
	if _, err := svcapi.ParseAmount("1e99999"); err == nil {
		t.Error("ParseAmount(1e99999) accepted")
	}
	if d, err := svcapi.ParseAmount(" 10.50 "); err != nil || d.String() != "10.5" {
		t.Errorf("ParseAmount(10.50) = %v, %v", d, err)
	}
}

// TestEmploymentNA: an employment answer whose objects are the text NA
// still yields its pool debit (shape B).
func TestEmploymentNA(t *testing.T) {
	data := `{"employeData":{"personalDetails":"NA","employmentDetails":{"isEmployed":"NA","dateOfExitMarked":false,
		"uanList":"NA","uanCount":"NA","recentEmployerData":"NA","previousEmployerData":"NA"}},
		"pool":{"referenceId":"R","openingBalance":"10","paymentAmount":"1","mode":"DR","closingBalance":"9"}}`
	p, err := svcapi.ExtractPool(&svcapi.Envelope{StatusCode: svcapi.StatusSuccess, Data: json.RawMessage(data)})
	if err != nil {
		t.Fatal(err)
	}
	checkPool(t, &p, svcapi.PoolB, "10", "1", "9")
}

func TestPoolShapes(t *testing.T) {
	tests := []struct {
		name, in                     string
		shape                        svcapi.PoolShape
		opening, amount, closing, id string
		ok                           bool
	}{
		{"A strings", `{"account":"P1","openingBal":"100.00","mode":"DR","amount":"1.18","closingBal":"98.82"}`,
			svcapi.PoolA, "100", "1.18", "98.82", "", true},
		{"A numbers", `{"openingBal":100.5,"amount":0.5,"closingBal":100}`, svcapi.PoolA, "100.5", "0.5", "100", "", true},
		{"B", `{"referenceId":"R9","openingBalance":"50","paymentAmount":"5.90","mode":"DR","closingBalance":"44.10"}`,
			svcapi.PoolB, "50", "5.9", "44.1", "R9", true},
		{"neither", `{"amount":"1"}`, "", "", "", "", "", false},
		{"masked amount", `{"openingBal":"XX","amount":"1","closingBal":"0"}`, "", "", "", "", "", false},
		{"missing amount", `{"openingBal":"1","closingBal":"0"}`, "", "", "", "", "", false},
		{"not an object", `"pool"`, "", "", "", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p svcapi.Pool
			err := json.Unmarshal([]byte(tc.in), &p)
			if (err == nil) != tc.ok {
				t.Fatalf("Pool(%s) err = %v, want ok %v", tc.in, err, tc.ok)
			}
			if !tc.ok {
				return
			}
			if p.Shape != tc.shape || p.Opening.String() != tc.opening || p.Amount.String() != tc.amount ||
				p.Closing.String() != tc.closing || p.ReferenceID != tc.id {
				t.Errorf("Pool(%s) = %+v", tc.in, p)
			}
			checkPoolRoundTrip(t, p)
		})
	}
	var holder struct{ Pool *svcapi.Pool }
	if err := json.Unmarshal([]byte(`{"Pool":null}`), &holder); err != nil || holder.Pool != nil {
		t.Errorf("null pool = %+v, %v", holder.Pool, err)
	}
	var v struct{ Pool svcapi.Pool }
	if err := json.Unmarshal([]byte(`{"Pool":null}`), &v); err != nil {
		t.Errorf("null into Pool value: %v", err)
	}
	// An arithmetic break shows in Delta.
	var p svcapi.Pool
	json.Unmarshal([]byte(`{"openingBal":"100","amount":"1","closingBal":"98"}`), &p)
	if p.Delta().String() != "1" {
		t.Errorf("Delta = %s, want 1", p.Delta())
	}
}

// checkPoolRoundTrip: a pool marshals to its wire shape and reads back
// equal.
func checkPoolRoundTrip(tb testing.TB, p svcapi.Pool) {
	tb.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		tb.Fatalf("marshal %+v: %v", p, err)
	}
	var q svcapi.Pool
	if err := json.Unmarshal(b, &q); err != nil {
		tb.Fatalf("unmarshal %s: %v", b, err)
	}
	if q.Shape != p.Shape || q.Account != p.Account || q.ReferenceID != p.ReferenceID || q.Mode != p.Mode ||
		!q.Opening.Equal(p.Opening) || !q.Amount.Equal(p.Amount) || !q.Closing.Equal(p.Closing) {
		tb.Errorf("pool round trip %+v -> %s -> %+v", p, b, q)
	}
}

func TestPoolDataRoundTrip(t *testing.T) {
	env, err := svcapi.DecodeEnvelope(fixture(t, "nameAbbreviations.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := svcapi.ExtractPool(env)
	if err != nil {
		t.Fatal(err)
	}
	checkPoolRoundTrip(t, p)
	b, _ := json.Marshal(p)
	if string(b) != `{"openingBalance":"3478.73","payableValue":"0.59","mode":"DR","closingBalance":"3478.14"}` {
		t.Errorf("data-level pool marshals as %s", b)
	}
	var a svcapi.Pool
	json.Unmarshal([]byte(`{"account":"P1","openingBal":"100.00","mode":"DR","amount":"1.18","closingBal":"98.82"}`), &a)
	if b, _ := json.Marshal(a); string(b) != `{"account":"P1","openingBal":"100","mode":"DR","amount":"1.18","closingBal":"98.82"}` {
		t.Errorf("shape A pool marshals as %s", b)
	}
}

func TestDecodeEnvelope(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status string
		data   string
		err    error // nil: any error when !ok
		ok     bool
	}{
		{"object data", `{"statuscode":"TXN","data":{"a":1}}`, "TXN", `{"a":1}`, nil, true},
		{"array data", `{"statuscode":"TXN","data":[1]}`, "TXN", `[1]`, nil, true},
		{"null data", `{"statuscode":"ERR","data":null}`, "ERR", ``, nil, true},
		{"absent data", `{"statuscode":"TUP"}`, "TUP", ``, nil, true},
		{"leading space", " \n{\"statuscode\":\"TXN\"}", "TXN", ``, nil, true},
		{"no statuscode", `{"status":"x"}`, "", "", svcapi.ErrNotEnvelope, false},
		{"HTML", `<html></html>`, "", "", nil, false},
		{"truncated", `{"statuscode":"TXN","data":{`, "", "", nil, false},
		{"empty", ``, "", "", nil, false},
		{"array", `[{"statuscode":"TXN"}]`, "", "", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, err := svcapi.DecodeEnvelope([]byte(tc.body))
			if (err == nil) != tc.ok {
				t.Fatalf("DecodeEnvelope = %v, %v; want ok %v", env, err, tc.ok)
			}
			if !tc.ok {
				if tc.err != nil && !errors.Is(err, tc.err) {
					t.Errorf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if string(env.StatusCode) != tc.status || string(env.Data) != tc.data {
				t.Errorf("envelope = %s %s, want %s %s", env.StatusCode, env.Data, tc.status, tc.data)
			}
		})
	}
	for _, orderid := range []string{`"null"`, `"NULL"`, `null`} {
		env, err := svcapi.DecodeEnvelope([]byte(`{"statuscode":"TXN","orderid":` + orderid + `}`))
		if err != nil || env.OrderID != "" {
			t.Errorf("orderid %s = %q, %v; want empty", orderid, env.OrderID, err)
		}
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 11, 20, 4, 45, 2, 0, time.UTC)
	for _, s := range []string{"2026-11-20 10:15:02", "2026-11-20T10:15:02", "2026-11-20T04:45:02Z", "2026-11-20T10:15:02+05:30",
		"2026-11-20 10:15:02.000"} {
		got, err := svcapi.ParseTime(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := svcapi.ParseTime("20-11-2026"); err == nil {
		t.Error("ParseTime(20-11-2026) accepted")
	}
}
