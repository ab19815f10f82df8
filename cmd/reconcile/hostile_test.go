package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// hostileProxy stands between the commands and the sandbox: it passes
// every request on, except that it may answer one statement page itself.
type hostileProxy struct {
	mu      sync.Mutex
	badPage string // "day page" of the statement answered with badBody
	badBody string
}

func startHostileProxy(t *testing.T, srv *sandbox.Server) (*hostileProxy, string) {
	t.Helper()
	target, err := url.Parse(srv.Config().BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	hp := &hostileProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	px := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			IsOrder    bool `json:"isOrder"`
			Pagination struct {
				PageNumber string `json:"pageNumber"`
			} `json:"pagination"`
			Filters struct {
				TxnDateFrom string `json:"txnDateFrom"`
			} `json:"filters"`
		}
		json.Unmarshal(body, &req)
		hp.mu.Lock()
		bad, badBody := hp.badPage, hp.badBody
		hp.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/statement") && !req.IsOrder && bad != "" && req.Filters.TxnDateFrom+" "+req.Pagination.PageNumber == bad {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, badBody)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(px.Close)
	return hp, px.URL
}

// TestSyncMalformedMidDayPageExit1: the service answers a mid-day
// statement page TXN with no page. reconcile sync exits 1 naming the day
// and page; once the page is answered, the next sync stores exactly what a
// clean sync stores.
func TestSyncMalformedMidDayPageExit1(t *testing.T) {
	srv, err := sandbox.Start(sandbox.Options{Seed: 5, Days: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	hp, proxyURL := startHostileProxy(t, srv)
	cfg := srv.Config()
	t.Setenv("SVC_BASE_URL", proxyURL)
	t.Setenv("SVC_CLIENT_ID", cfg.ClientID)
	t.Setenv("SVC_CLIENT_SECRET", cfg.ClientSecret)
	t.Setenv("SVC_ENDPOINT_IP", cfg.EndpointIP)
	t.Setenv("SVC_ACCOUNT", srv.Credentials().Account)
	from, to := srv.Period()
	day := to.Format(time.DateOnly)
	sync := func(db string) (int, string, string) {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"sync", "--db", db, "--from", from.Format(time.DateOnly),
			"--to", day, "--page-size", "7", "--log-level", "error"}, &out, &errb)
		return cli.Exit(err, &errb), out.String(), errb.String()
	}
	dir := t.TempDir()
	cleanDB, db := filepath.Join(dir, "clean.db"), filepath.Join(dir, "hostile.db")
	if code, _, stderr := sync(cleanDB); code != cli.ExitOK {
		t.Fatalf("clean sync: exit %d\n%s", code, stderr)
	}
	clean, _ := recordsDump(t, cleanDB)

	hp.badPage, hp.badBody = day+" 2", `{"statuscode":"TXN","status":"Statement fetched","data":null}`
	code, stdout, stderr := sync(db)
	if code != cli.ExitFailure {
		t.Fatalf("sync with a page answered without data: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if want := "statement window " + day + " failed at page 2"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if got, _ := recordsDump(t, db); len(got) >= len(clean) {
		t.Errorf("%d records stored with a page missing, a clean sync stores %d", len(got), len(clean))
	}
	hp.mu.Lock()
	hp.badPage = ""
	hp.mu.Unlock()
	if code, _, stderr := sync(db); code != cli.ExitOK {
		t.Fatalf("healthy re-run: exit %d\n%s", code, stderr)
	}
	if got, _ := recordsDump(t, db); !slices.Equal(got, clean) {
		t.Errorf("after the healthy re-run %d records, a clean sync stores %d (or they differ)", len(got), len(clean))
	}
}
