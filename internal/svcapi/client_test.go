package svcapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestReadOnlyRetries: read-only operations are retried on 5xx, dropped
// connections and unreadable bodies, with a bound.
func TestReadOnlyRetries(t *testing.T) {
	ok := fixture(t, "statement.json")
	html := fixture(t, "html_error.html")
	tests := []struct {
		name    string
		handle  func(w http.ResponseWriter, r *http.Request, n int)
		wantErr bool
		want    int // requests that reach the service
		status  int // wantErr: the HTTP status the *ResponseError names
	}{
		{"5xx then success", func(w http.ResponseWriter, r *http.Request, n int) {
			if n < 3 {
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			serve(200, ok)(w, r, n)
		}, false, 3, 0},
		{"dropped connection then success", func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				hangUp(w)
				return
			}
			serve(200, ok)(w, r, n)
		}, false, 2, 0},
		{"HTML with 200 then success", func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				serve(200, html)(w, r, n)
				return
			}
			serve(200, ok)(w, r, n)
		}, false, 2, 0},
		{"failure envelope with 503 is retried", func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				serve(503, fixture(t, "failure.json"))(w, r, n)
				return
			}
			serve(200, ok)(w, r, n)
		}, false, 2, 0},
		{"always HTML 502: bounded", serve(http.StatusBadGateway, html), true, 4, 502},
		{"always truncated: bounded", serve(http.StatusOK, fixture(t, "truncated.txt")), true, 4, 200},
		{"body always broken off: bounded", brokenOff, true, 4, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.handle)
			c := newClient(t, testConfig(f.URL)) // MaxRetries 3
			p, err := c.Statement(context.Background(), statementRequest(false))
			if got := f.count(); got != tc.want {
				t.Errorf("requests = %d, want %d", got, tc.want)
			}
			if !tc.wantErr {
				if err != nil || len(p.Records) != 2 {
					t.Fatalf("Statement = %v, %v; want the page", p, err)
				}
				return
			}
			var re *svcapi.ResponseError
			if !errors.As(err, &re) || re.HTTPStatus != tc.status || re.Op != svcapi.OpStatement {
				t.Fatalf("err = %v, want *ResponseError for statement, HTTP %d", err, tc.status)
			}
			if errors.Is(err, svcapi.ErrPending) {
				t.Errorf("read-only failure is pending: %v", err)
			}
		})
	}
}

// brokenOff announces a 1000-byte JSON body with HTTP 200 and closes the
// connection after a few bytes of it.
func brokenOff(w http.ResponseWriter, _ *http.Request, _ int) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"statuscode\":\"TXN\",")
	buf.Flush()
	conn.Close()
}

// TestReadOnlyFailureNotRetried: a failure statuscode with HTTP 200 is an
// answer, not a fault: no retry.
func TestReadOnlyFailureNotRetried(t *testing.T) {
	f := newFake(t, serve(200, fixture(t, "failure.json")))
	c := newClient(t, testConfig(f.URL))
	_, err := c.Statement(context.Background(), statementRequest(false))
	var apiErr *svcapi.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != "IAB" {
		t.Fatalf("err = %v, want *Error IAB", err)
	}
	if f.count() != 1 {
		t.Errorf("requests = %d, want 1", f.count())
	}
}

// TestNoRetriesConfigured: a negative MaxRetries disables retries.
func TestNoRetriesConfigured(t *testing.T) {
	f := newFake(t, serve(503, nil))
	cfg := testConfig(f.URL)
	cfg.MaxRetries = -1
	if _, err := newClient(t, cfg).Statement(context.Background(), statementRequest(false)); err == nil {
		t.Fatal("want an error")
	}
	if f.count() != 1 {
		t.Errorf("requests = %d, want 1", f.count())
	}
}

// TestBillableNeverRetried: every unknown outcome of a billable call is
// pending, and the call reached the service exactly once.
func TestBillableNeverRetried(t *testing.T) {
	tests := []struct {
		name   string
		handle func(w http.ResponseWriter, r *http.Request, n int)
		status int // HTTP status the error must name; 0: no answer came
	}{
		{"5xx without envelope", serve(http.StatusServiceUnavailable, []byte("service unavailable")), 503},
		{"5xx with empty body", serve(http.StatusInternalServerError, nil), 500},
		{"HTML error page", serve(http.StatusBadGateway, fixture(t, "html_error.html")), 502},
		{"HTML with 200", serve(http.StatusOK, fixture(t, "html_error.html")), 200},
		{"truncated JSON", serve(http.StatusOK, fixture(t, "truncated.txt")), 200},
		{"JSON without statuscode", serve(http.StatusOK, []byte(`{"message":"internal"}`)), 200},
		{"connection closed after the request was read", func(w http.ResponseWriter, _ *http.Request, _ int) { hangUp(w) }, 0},
		{"body broken off", brokenOff, 200},
		{"time-out", func(w http.ResponseWriter, r *http.Request, _ int) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, 0},
		{"TUP", serve(http.StatusOK, fixture(t, "verifyPanPlusV2_tup.json")), 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.handle)
			cfg := testConfig(f.URL)
			cfg.Timeout = 300 * time.Millisecond
			c := newClient(t, cfg)
			env, err := c.Do(context.Background(), svcapi.OpVerifyPanPlusV2, verifyPanRequest())
			if !errors.Is(err, svcapi.ErrPending) {
				t.Fatalf("err = %v, want ErrPending", err)
			}
			var pe *svcapi.PendingError
			if !errors.As(err, &pe) || pe.Op != svcapi.OpVerifyPanPlusV2 || pe.ExternalRef != "TESTPAN0001" {
				t.Errorf("err = %#v, want *PendingError naming the op and externalRef", err)
			} else if pe.HTTPStatus != tc.status {
				t.Errorf("PendingError.HTTPStatus = %d, want %d (%v)", pe.HTTPStatus, tc.status, err)
			}
			if tc.name == "TUP" && (env == nil || !env.Pending() || pe.Envelope == nil) {
				t.Errorf("TUP: env = %+v, PendingError.Envelope = %v", env, pe.Envelope)
			}
			if got := f.count(); got != 1 {
				t.Errorf("requests = %d, want exactly 1", got)
			}
		})
	}
}

// TestBillableFailure: a failure statuscode is an *Error with its fields,
// not pending, and not retried (even with HTTP 500).
func TestBillableFailure(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusInternalServerError} {
		f := newFake(t, serve(status, fixture(t, "failure.json")))
		c := newClient(t, testConfig(f.URL))
		env, err := c.Do(context.Background(), svcapi.OpVerifyPanPlusV2, verifyPanRequest())
		var apiErr *svcapi.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("HTTP %d: err = %v, want *Error", status, err)
		}
		want := svcapi.Error{Op: svcapi.OpVerifyPanPlusV2, HTTPStatus: status, StatusCode: "IAB", ActCode: "ACT01",
			Status: "Insufficient account balance", SvcUUID: "UUID-TEST-0026"}
		if *apiErr != want {
			t.Errorf("HTTP %d: err = %+v, want %+v", status, *apiErr, want)
		}
		if errors.Is(err, svcapi.ErrPending) {
			t.Errorf("failure is pending")
		}
		if env == nil || env.OK() {
			t.Errorf("envelope = %+v, want the failure envelope", env)
		}
		if f.count() != 1 {
			t.Errorf("HTTP %d: requests = %d, want 1", status, f.count())
		}
	}
}

// TestConnectionRefused: a billable call that could not be sent is not
// pending.
func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := newClient(t, testConfig("http://"+addr))
	_, err = c.Do(context.Background(), svcapi.OpVerifyPanPlusV2, verifyPanRequest())
	if err == nil || errors.Is(err, svcapi.ErrPending) {
		t.Fatalf("err = %v, want a transport error that is not pending", err)
	}
	var apiErr *svcapi.Error
	if errors.As(err, &apiErr) {
		t.Errorf("err = %v is an *Error", err)
	}
}

// TestValidationNothingSent: requests breaking the schema are rejected
// with a *ValidationError naming the field, and nothing is sent.
func TestValidationNothingSent(t *testing.T) {
	base := func(op string) map[string]any {
		m := map[string]any{"latitude": "12.9", "longitude": "77.5", "externalRef": "TESTVAL01", "consent": "Y"}
		switch op {
		case svcapi.OpVerifyPanPlusV2:
			m["pan"] = "AAAPZ0000Z"
		case svcapi.OpAddPaymentMethod:
			m = map[string]any{"gcId": "GC1", "accountType": "VPA", "upiId": "a@b"}
		case svcapi.OpLitigation:
			m["name"], m["searchType"], m["address"] = "TEST", "Entity", "1 TEST STREET"
		case svcapi.OpFundTransfer:
			m["remitterMobile"], m["beneficiaryId"], m["transferMode"], m["transferAmount"] = "9000000001", "B1", "IMPS", "10.50"
		case svcapi.OpBrandOrder:
			for k, v := range map[string]any{"productKey": "PK", "denomination": 500, "sender": map[string]any{"name": "S"},
				"receiver": map[string]any{"name": "R", "contact": "r@example.invalid", "gift_message": "hi"}} {
				m[k] = v
			}
		case svcapi.OpNameAbbreviations:
			m = map[string]any{"name": "TEST", "externalRef": "TESTVAL01"}
		}
		return m
	}
	tests := []struct {
		name  string
		op    string
		edit  func(m map[string]any)
		field string
	}{
		{"missing mandatory", svcapi.OpVerifyPanPlusV2, func(m map[string]any) { delete(m, "pan") }, "pan"},
		{"empty mandatory", svcapi.OpVerifyPanPlusV2, func(m map[string]any) { m["externalRef"] = "" }, "externalRef"},
		{"consent enum", svcapi.OpVerifyPanPlusV2, func(m map[string]any) { m["consent"] = "N" }, "consent"},
		{"upiId when VPA", svcapi.OpAddPaymentMethod, func(m map[string]any) { delete(m, "upiId") }, "upiId"},
		{"accountIfsc when ACCOUNT", svcapi.OpAddPaymentMethod, func(m map[string]any) {
			m["accountType"], m["accountNumber"], m["beneficiaryName"] = "ACCOUNT", "123", "B"
		}, "accountIfsc"},
		{"externalRef when isVerificationOn", svcapi.OpAddPaymentMethod, func(m map[string]any) { m["isVerificationOn"] = true }, "externalRef"},
		{"accountType enum", svcapi.OpAddPaymentMethod, func(m map[string]any) { m["accountType"] = "CARD" }, "accountType"},
		{"fatherName when Individual", svcapi.OpLitigation, func(m map[string]any) { m["searchType"] = "Individual" }, "fatherName"},
		{"searchType enum", svcapi.OpLitigation, func(m map[string]any) { m["searchType"] = "Company" }, "searchType"},
		{"transferMode enum", svcapi.OpFundTransfer, func(m map[string]any) { m["transferMode"] = "UPI" }, "transferMode"},
		{"transferAmount not a decimal", svcapi.OpFundTransfer, func(m map[string]any) { m["transferAmount"] = "12x" }, "transferAmount"},
		{"transferAmount zero", svcapi.OpFundTransfer, func(m map[string]any) { m["transferAmount"] = "0.00" }, "transferAmount"},
		{"denomination not a whole number", svcapi.OpBrandOrder, func(m map[string]any) { m["denomination"] = "ten" }, "denomination"},
		{"nested mandatory", svcapi.OpBrandOrder, func(m map[string]any) { delete(m["receiver"].(map[string]any), "contact") }, "receiver.contact"},
		{"object for a string", svcapi.OpVerifyPanPlusV2, func(m map[string]any) { m["pan"] = map[string]any{"x": 1} }, "pan"},
		{"maxLength wrong type", svcapi.OpNameAbbreviations, func(m map[string]any) { m["maxLength"] = "abc" }, "maxLength"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, serve(200, fixture(t, "verifyPanPlusV2.json")))
			c := newClient(t, testConfig(f.URL))
			m := base(tc.op)
			tc.edit(m)
			_, err := c.Do(context.Background(), tc.op, m)
			var ve *svcapi.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Do = %v, want *ValidationError", err)
			}
			if ve.Op != tc.op || len(ve.Fields) == 0 || ve.Fields[0].Field != tc.field {
				t.Errorf("ValidationError = %+v, want field %s first", ve, tc.field)
			}
			if f.count() != 0 {
				t.Errorf("%d requests sent, want none", f.count())
			}
		})
	}
	t.Run("valid base requests pass", func(t *testing.T) {
		for _, op := range []string{svcapi.OpVerifyPanPlusV2, svcapi.OpAddPaymentMethod, svcapi.OpLitigation,
			svcapi.OpBrandOrder, svcapi.OpNameAbbreviations} {
			o, _ := svcapi.Lookup(op)
			if err := o.Validate(jsonRoundTrip(t, base(op))); err != nil {
				t.Errorf("%s: %v", op, err)
			}
		}
	})
	t.Run("conditional field", func(t *testing.T) {
		f := newFake(t, serve(200, fixture(t, "litigation.json")))
		c := newClient(t, testConfig(f.URL))
		_, err := c.Do(context.Background(), svcapi.OpLitigation, withLoc(map[string]any{"name": "TEST", "searchType": "Individual",
			"address": "A", "externalRef": "TESTLIT9"}))
		var ve *svcapi.ValidationError
		if !errors.As(err, &ve) || ve.Fields[0].Field != "fatherName" || f.count() != 0 {
			t.Errorf("Litigation = %v (%d sent), want fatherName rejected, nothing sent", err, f.count())
		}
	})
	t.Run("bad bodies", func(t *testing.T) {
		f := newFake(t, serve(200, nil))
		c := newClient(t, testConfig(f.URL))
		for _, body := range []any{[]byte(`[1]`), []byte(`{"pan":"X"} trailing`), []byte(`{`)} {
			if _, err := c.Do(context.Background(), svcapi.OpVerifyPanPlusV2, body); err == nil {
				t.Errorf("Do(%s) = nil error", body)
			}
		}
		if _, err := c.Do(context.Background(), "noSuchOp", nil); err == nil {
			t.Error("unknown operation accepted")
		}
		if f.count() != 0 {
			t.Errorf("%d requests sent, want none", f.count())
		}
	})
}

// jsonRoundTrip returns m as the client sees it: encoded and decoded with
// json.Number numbers.
func jsonRoundTrip(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConfig: missing or unsafe settings are *ConfigError naming the
// variable.
func TestConfig(t *testing.T) {
	good := testConfig("https://api.example.invalid")
	tests := []struct {
		name    string
		edit    func(c *svcapi.Config)
		setting string // "" when valid
	}{
		{"valid https", func(*svcapi.Config) {}, ""},
		{"no base URL", func(c *svcapi.Config) { c.BaseURL = "" }, "SVC_BASE_URL"},
		{"no client id", func(c *svcapi.Config) { c.ClientID = "" }, "SVC_CLIENT_ID"},
		{"no client secret", func(c *svcapi.Config) { c.ClientSecret = "" }, "SVC_CLIENT_SECRET"},
		{"no endpoint IP", func(c *svcapi.Config) { c.EndpointIP = "" }, "SVC_ENDPOINT_IP"},
		{"http on a public host", func(c *svcapi.Config) { c.BaseURL = "http://api.example.invalid" }, "SVC_BASE_URL"},
		{"http on a private address", func(c *svcapi.Config) { c.BaseURL = "http://10.0.0.5:8080" }, "SVC_BASE_URL"},
		{"ftp", func(c *svcapi.Config) { c.BaseURL = "ftp://127.0.0.1" }, "SVC_BASE_URL"},
		{"not a URL", func(c *svcapi.Config) { c.BaseURL = "api.example.invalid" }, "SVC_BASE_URL"},
		{"http on 127.0.0.1", func(c *svcapi.Config) { c.BaseURL = "http://127.0.0.1:8080" }, ""},
		{"http on localhost", func(c *svcapi.Config) { c.BaseURL = "http://localhost:8080/api" }, ""},
		{"http on ::1", func(c *svcapi.Config) { c.BaseURL = "http://[::1]:8080" }, ""},
		{"no outlet id (needed by H5 only)", func(c *svcapi.Config) { c.OutletID = "" }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			_, err := svcapi.New(cfg)
			if tc.setting == "" {
				if err != nil {
					t.Fatalf("New = %v, want nil", err)
				}
				return
			}
			var ce *svcapi.ConfigError
			if !errors.As(err, &ce) || ce.Setting != tc.setting {
				t.Fatalf("New = %v, want *ConfigError naming %s", err, tc.setting)
			}
		})
	}
}

// TestMissingOutletID: an H5 operation without an outlet id is refused
// before sending; H4 operations work.
func TestMissingOutletID(t *testing.T) {
	f := newFake(t, serve(200, fixture(t, "verifyBankAccountBanks.json")))
	cfg := testConfig(f.URL)
	cfg.OutletID = ""
	c := newClient(t, cfg)
	_, err := c.Do(context.Background(), svcapi.OpAepsBanks, nil)
	var ce *svcapi.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_OUTLET_ID" {
		t.Fatalf("AepsBanks = %v, want *ConfigError naming SVC_OUTLET_ID", err)
	}
	if f.count() != 0 {
		t.Fatalf("%d requests sent, want none", f.count())
	}
	if _, err := c.Do(context.Background(), svcapi.OpVerifyBankAccountBanks, nil); err != nil {
		t.Fatalf("H4 operation without outlet id: %v", err)
	}
}

// TestRateLimiterShared: with Rate 1 and Burst 1, three concurrent calls
// under a 1.5 s deadline cannot all get a token: at most two reach the
// service.
func TestRateLimiterShared(t *testing.T) {
	f := newFake(t, serve(200, fixture(t, "aepsBanks.json")))
	cfg := testConfig(f.URL)
	cfg.Rate, cfg.Burst = 1, 1
	c := newClient(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	succeeded := 0
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Do(ctx, svcapi.OpAepsBanks, nil); err == nil {
				mu.Lock()
				succeeded++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if succeeded < 1 || succeeded > 2 || f.count() > 2 {
		t.Errorf("succeeded = %d, requests = %d; want 1 or 2 of 3 within 1.5 s at 1/s", succeeded, f.count())
	}
}

// TestNoRedirects: the client does not follow a redirect (a billable
// request must not be re-sent elsewhere).
func TestNoRedirects(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	c := newClient(t, testConfig(f.URL))
	_, err := c.Do(context.Background(), svcapi.OpVerifyPanPlusV2, verifyPanRequest())
	if !errors.Is(err, svcapi.ErrPending) || f.count() != 1 {
		t.Errorf("err = %v, requests = %d; want pending after exactly 1 request", err, f.count())
	}
}

// TestPostWithoutBody: a POST operation called with a nil body sends an
// empty JSON object, not an empty body.
func TestPostWithoutBody(t *testing.T) {
	f := newFake(t, serve(200, fixture(t, "billers.json")))
	c := newClient(t, testConfig(f.URL))
	if _, err := c.Do(context.Background(), svcapi.OpBillers, nil); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if string(r.Body) != "{}" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("body %q, Content-Type %q; want {} as application/json", r.Body, r.Header.Get("Content-Type"))
	}
}
