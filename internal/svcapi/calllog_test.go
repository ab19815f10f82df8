package svcapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// secretForms are the spellings of the secret that would reveal it in a
// JSON line: raw, and JSON-escaped.
func secretForms(tb testing.TB) []string {
	tb.Helper()
	esc, _ := json.Marshal(testSecret)
	return []string{testSecret, strings.Trim(string(esc), `"`)}
}

// decodedStrings returns every key and string value of a JSON document.
func decodedStrings(v any) []string {
	switch x := v.(type) {
	case map[string]any:
		var out []string
		for k, val := range x {
			out = append(out, k)
			out = append(out, decodedStrings(val)...)
		}
		return out
	case []any:
		var out []string
		for _, val := range x {
			out = append(out, decodedStrings(val)...)
		}
		return out
	case string:
		return []string{x}
	}
	return nil
}

// TestCallLog: every call is one JSONL line that parses back as a
// CallRecord; the secret is in no line even when the service echoes it;
// sensitive values are removed or masked in requests and responses.
func TestCallLog(t *testing.T) {
	// The service echoes the secret (and sensitive values) in its bodies.
	echo := strings.Replace(string(fixture(t, "brandOrder.json")), `"TEST SENDER"`,
		string(mustJSON(t, "sender "+testSecret)), 1)
	html := "<html><body>bad gateway for secret " + testSecret + "</body></html>"
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/cards/brand/order":
			serve(200, []byte(echo))(w, r, n)
		case "/fi/aeps/balanceInquiry":
			serve(200, fixture(t, "balanceInquiry.json"))(w, r, n)
		default:
			serve(502, []byte(html))(w, r, n)
		}
	})
	var buf bytes.Buffer
	cfg := testConfig(f.URL)
	cfg.MaxRetries = -1
	cfg.Recorders = []svcapi.Recorder{svcapi.NewJSONLRecorder(&buf)}
	c := newClient(t, cfg)
	ctx := context.Background()

	if _, err := c.Do(ctx, svcapi.OpBrandOrder, brandOrderRequest("TESTBO0001", "S "+testSecret, 500)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(ctx, svcapi.OpBalanceInquiry, balanceRequest()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(ctx, svcapi.OpAepsBanks, nil); err == nil {
		t.Fatal("AepsBanks: want an error for the HTML answer")
	}

	var recs []svcapi.CallRecord
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, s := range secretForms(t) {
			if strings.Contains(line, s) {
				t.Errorf("call log line holds the secret (%q): %s", s, line)
			}
		}
		for _, s := range []string{"ENCAADHAAR-SECRET", "PIDDATA-SECRET", "SESSIONKEY-SECRET", "HMAC-SECRET", "123456", "9999000011112222"} {
			if strings.Contains(line, s) {
				t.Errorf("call log line holds %s: %s", s, line)
			}
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line is not JSON: %v: %s", err, line)
		}
		for _, s := range decodedStrings(v) {
			if strings.Contains(s, testSecret) {
				t.Errorf("decoded line holds the secret: %q", s)
			}
		}
		var rec svcapi.CallRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line does not parse as CallRecord: %v: %s", err, line)
		}
		recs = append(recs, rec)
	}
	if len(recs) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(recs), buf.String())
	}

	bo := recs[0]
	if bo.Operation != svcapi.OpBrandOrder || bo.Method != "POST" || bo.Path != "/cards/brand/order" ||
		bo.ExternalRef != "TESTBO0001" || bo.HTTPStatus != 200 || bo.Error != "" || bo.At.IsZero() || bo.LatencyMs < 0 {
		t.Errorf("brandOrder record = %+v", bo)
	}
	if _, off := bo.At.Zone(); off != 5*3600+1800 || time.Since(bo.At) > time.Hour {
		t.Errorf("at = %v, want now in IST", bo.At)
	}
	var resp struct {
		Data struct {
			Receiver struct{ CardNumber, CardPin string }
		}
	}
	if err := json.Unmarshal(bo.Response, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Data.Receiver.CardNumber != "XXXXXXXXXXXX2222" || resp.Data.Receiver.CardPin != svcapi.Redacted {
		t.Errorf("receiver in the log = %+v, want card masked to last four, pin redacted", resp.Data.Receiver)
	}

	bi := recs[1]
	var req struct {
		BiometricData map[string]string `json:"biometricData"`
	}
	if err := json.Unmarshal(bi.Request, &req); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"encryptedAadhaar", "pidData", "sessionKey", "hmac"} {
		if req.BiometricData[k] != svcapi.Redacted {
			t.Errorf("biometricData.%s = %q in the log, want %s", k, req.BiometricData[k], svcapi.Redacted)
		}
	}
	if req.BiometricData["srno"] != "SRNO0001" {
		t.Errorf("non-secret biometricData.srno = %q, want kept", req.BiometricData["srno"])
	}

	ab := recs[2]
	var body string
	if err := json.Unmarshal(ab.Response, &body); err != nil || !strings.Contains(body, "bad gateway for secret") ||
		!strings.Contains(body, svcapi.Redacted) {
		t.Errorf("HTML response in the log = %s (%v), want a scrubbed JSON string", ab.Response, err)
	}
	if ab.HTTPStatus != 502 || ab.Error == "" {
		t.Errorf("failed call record = %+v", ab)
	}
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestRedact: sensitive keys at any depth, case-insensitively; masked keys
// to their last four; secrets anywhere.
func TestRedact(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"top level", `{"pidData":"P","hmac":"H","keep":"k"}`, `{"hmac":"[REDACTED]","keep":"k","pidData":"[REDACTED]"}`},
		{"nested", `{"a":{"b":{"sessionKey":"S","encryptedAadhaar":"E"}}}`,
			`{"a":{"b":{"encryptedAadhaar":"[REDACTED]","sessionKey":"[REDACTED]"}}}`},
		{"in arrays", `{"cards":[{"cardPin":"1234","cardNumber":"4111111111111111"}]}`,
			`{"cards":[{"cardNumber":"XXXXXXXXXXXX1111","cardPin":"[REDACTED]"}]}`},
		{"case-insensitive", `{"CardPin":"1","PIDDATA":"x"}`, `{"CardPin":"[REDACTED]","PIDDATA":"[REDACTED]"}`},
		{"number card and aadhaar", `{"cardNumber":4111111111111111,"aadhaarNumber":"999988887777"}`,
			`{"aadhaarNumber":"XXXXXXXX7777","cardNumber":"XXXXXXXXXXXX1111"}`},
		{"null stays null", `{"cardPin":null,"pidData":null}`, `{"cardPin":null,"pidData":null}`},
		{"numbers kept exact", `{"amount":1000.10,"id":12345678901234567890}`, `{"amount":1000.10,"id":12345678901234567890}`},
		{"secret in a value", `{"msg":"x` + `SEKRET` + `y"}`, `{"msg":"x[REDACTED]y"}`},
		{"secret in a key", `{"SEKRET":1}`, `{"[REDACTED]":1}`},
		{"not JSON", `<html>SEKRET</html>`, `<html>[REDACTED]</html>`},
		{"empty", ``, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(svcapi.Redact([]byte(tc.in), "SEKRET")); got != tc.want {
				t.Errorf("Redact(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
	if got := string(svcapi.RedactJSON([]byte(`<p>SEKRET & co</p>`), "SEKRET")); got != `"\u003cp\u003e[REDACTED] \u0026 co\u003c/p\u003e"` {
		t.Errorf("RedactJSON(html) = %s", got)
	}
	if got := string(svcapi.RedactJSON([]byte(`{"a":"b`), "x")); !json.Valid([]byte(got)) {
		t.Errorf("RedactJSON(truncated) = %s, not JSON", got)
	}
}

func TestMaskLast4(t *testing.T) {
	for in, want := range map[string]string{
		"4111111111111111": "XXXXXXXXXXXX1111", "12345": "X2345", "1234": "XXXX", "": "", "ab": "XX",
	} {
		if got := svcapi.MaskLast4(in); got != want {
			t.Errorf("MaskLast4(%q) = %q, want %q", in, got, want)
		}
	}
}
