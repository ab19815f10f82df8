package svcapi_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// testSecret holds characters that JSON escapes, so a scrub of the encoded
// bytes alone would miss it.
const testSecret = `t3st-s3cr&t<x>"q`

const (
	testClientID   = "test-client-01"
	testOutletID   = "OUTLET-T1"
	testEndpointIP = "198.51.100.7"
)

var fixtureDir = filepath.Join("..", "..", "testdata", "responses")

// fixture returns the bytes of a response fixture.
func fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		tb.Fatalf("fixture: %v", err)
	}
	return b
}

// recorded is one request as the fake service saw it.
type recorded struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// fakeService is an httptest server that records every request and answers
// with handle (n is the 1-based number of the request).
type fakeService struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []recorded
	handle func(w http.ResponseWriter, r *http.Request, n int)
}

func newFake(tb testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *fakeService {
	tb.Helper()
	f := &fakeService{handle: handle}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, recorded{r.Method, r.URL.Path, r.Header.Clone(), body})
		n := len(f.reqs)
		f.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.handle(w, r, n)
	}))
	tb.Cleanup(f.Close)
	return f
}

func (f *fakeService) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

func (f *fakeService) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// serve answers with a fixed status and body.
func serve(status int, body []byte) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}
}

// hangUp closes the connection after the request was read, without an
// answer.
func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func testConfig(baseURL string) svcapi.Config {
	return svcapi.Config{
		BaseURL: baseURL, ClientID: testClientID, ClientSecret: testSecret,
		OutletID: testOutletID, EndpointIP: testEndpointIP,
		Timeout: 10 * time.Second, MaxRetries: 3,
		RetryBase: time.Millisecond, RetryMax: 4 * time.Millisecond,
	}
}

func newClient(tb testing.TB, cfg svcapi.Config) *svcapi.Client {
	tb.Helper()
	c, err := svcapi.New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return c
}

// eq compares a decoded value's text with the wanted text.
func eq[T ~string](tb testing.TB, what string, got T, want string) {
	tb.Helper()
	if string(got) != want {
		tb.Errorf("%s = %q, want %q", what, got, want)
	}
}

// amt compares an amount's exact decimal text.
func amt(tb testing.TB, what string, got svcapi.Amount, want string) {
	tb.Helper()
	if !got.Valid || got.String() != want {
		tb.Errorf("%s = %q (valid %v), want %q", what, got.String(), got.Valid, want)
	}
}

// checkPool compares a pool object with its wanted shape and amounts, and
// checks that it adds up.
func checkPool(tb testing.TB, p *svcapi.Pool, shape svcapi.PoolShape, opening, amount, closing string) {
	tb.Helper()
	if p == nil {
		tb.Fatalf("pool is nil")
	}
	if p.Shape != shape || p.Opening.String() != opening || p.Amount.String() != amount || p.Closing.String() != closing {
		tb.Errorf("pool = %s %s - %s = %s, want %s %s - %s = %s", p.Shape, p.Opening, p.Amount, p.Closing,
			shape, opening, amount, closing)
	}
	if !p.Delta().IsZero() {
		tb.Errorf("pool delta = %s, want 0", p.Delta())
	}
}
