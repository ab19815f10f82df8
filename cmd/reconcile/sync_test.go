package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

func TestSyncBadInput(t *testing.T) {
	t.Setenv("SVC_ACCOUNT", "")
	t.Setenv("SVC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("SVC_CLIENT_ID", "id")
	t.Setenv("SVC_CLIENT_SECRET", "secret")
	t.Setenv("SVC_ENDPOINT_IP", "203.0.113.1")
	db := filepath.Join(t.TempDir(), "x.db")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not a date", []string{"--from", "2026-13-01", "--to", "2026-11-02"}, "--from"},
		{"reversed", []string{"--from", "2026-11-05", "--to", "2026-11-02"}, "before"},
		{"no period", nil, "--from"},
		{"only from", []string{"--from", "2026-11-01"}, "--from"},
		{"bad what", []string{"--from", "2026-11-01", "--to", "2026-11-01", "--what", "bank"}, "--what"},
		{"bad concurrency", []string{"--from", "2026-11-01", "--to", "2026-11-01", "--concurrency", "0"}, "--concurrency"},
		{"no account", []string{"--from", "2026-11-01", "--to", "2026-11-02"}, "SVC_ACCOUNT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), append([]string{"sync", "--db", db}, tc.args...), &out, &errb)
			var stderr bytes.Buffer
			if code := cli.Exit(err, &stderr); code != cli.ExitUsage {
				t.Fatalf("exit = %d (%v), want %d", code, err, cli.ExitUsage)
			}
			line := stderr.String()
			if strings.Count(line, "\n") != 1 || !strings.Contains(line, tc.want) {
				t.Errorf("stderr = %q, want one line naming %s", line, tc.want)
			}
		})
	}
}

func TestSyncSandbox(t *testing.T) {
	if _, err := sandbox.New(sandbox.Options{Days: 2}); errors.Is(err, sandbox.ErrNotImplemented) {
		t.Skip("sandbox not implemented yet")
	}
	db := filepath.Join(t.TempDir(), "s.db")
	args := []string{"sync", "--sandbox", "--sandbox-days", "3", "--db", db, "--page-size", "7", "--log-level", "warn"}
	var out, errb bytes.Buffer
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("sync --sandbox: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "windows: 6 ok, 0 failed") || strings.Contains(out.String(), " 0 new") {
		t.Errorf("summary = %q, want 6 windows ok and records new", out.String())
	}
	out.Reset()
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatal(err)
	}
	// The held days are among the last 7: walked again, nothing new.
	if !strings.Contains(out.String(), "records: 0 new, 0 updated") || !strings.Contains(out.String(), "6 walked again, 0 records found late") {
		t.Errorf("second summary = %q, want nothing new and 6 held days walked again", out.String())
	}
}

func TestSyncWindowFailsExit1(t *testing.T) {
	// The service answers every statement page with a record without a
	// date; collect orders are fine.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			IsOrder bool `json:"isOrder"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		rec := `{"svcOrderId":"S1","txnChargedValue":"5.00"}`
		if req.IsOrder {
			rec = `{"svcOrderId":"O1","txnDateTime":"2026-11-01 10:00:00","txnChargedValue":"5.00"}`
		}
		fmt.Fprintf(w, `{"statuscode":"TXN","status":"ok","data":{"meta":{"totalPages":1,"currentPage":1,"totalRecords":1,"recordsOnCurrentPage":1},"records":[%s]}}`, rec)
	}))
	defer srv.Close()
	t.Setenv("SVC_BASE_URL", srv.URL)
	t.Setenv("SVC_CLIENT_ID", "id")
	t.Setenv("SVC_CLIENT_SECRET", "secret")
	t.Setenv("SVC_ENDPOINT_IP", "203.0.113.1")
	t.Setenv("SVC_ACCOUNT", "0409000123456")
	db := filepath.Join(t.TempDir(), "f.db")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"sync", "--db", db, "--from", "2026-11-01", "--to", "2026-11-01"}, &out, &errb)
	if code := cli.Exit(err, io.Discard); code != cli.ExitFailure {
		t.Fatalf("exit = %d (%v), want 1", code, err)
	}
	if !strings.Contains(out.String(), "records: 1 new") || !strings.Contains(out.String(), "windows: 1 ok, 1 failed") {
		t.Errorf("summary = %q, want the orders record stored and one window failed", out.String())
	}
	if !strings.Contains(errb.String(), "statement window 2026-11-01 failed at page 1") || !strings.Contains(errb.String(), "txnDateTime missing") {
		t.Errorf("stderr = %q, want the window, page and field", errb.String())
	}
}

// TestSyncNeverKeepsAQuotedSecret: a careless gateway quotes the client
// secret back in its error status. Neither the text nor the JSON log, the
// output, nor any byte of the database holds it afterwards.
func TestSyncNeverKeepsAQuotedSecret(t *testing.T) {
	const secret = "Q7-uniq-S3CR3T-marker-41"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"statuscode":"ERR","status":"bad header X-Svc-Client-Secret=%s for client id"}`, r.Header.Get("X-Svc-Client-Secret"))
	}))
	defer srv.Close()
	t.Setenv("SVC_BASE_URL", srv.URL)
	t.Setenv("SVC_CLIENT_ID", "id")
	t.Setenv("SVC_CLIENT_SECRET", secret)
	t.Setenv("SVC_ENDPOINT_IP", "203.0.113.1")
	t.Setenv("SVC_ACCOUNT", "0409000123456")
	for _, format := range []string{"text", "json"} {
		dir := t.TempDir()
		db := filepath.Join(dir, "s.db")
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"sync", "--db", db, "--from", "2026-11-01", "--to", "2026-11-02",
			"--log-format", format, "--log-level", "debug", "--call-log", filepath.Join(dir, "calls.jsonl")}, &out, &errb)
		if err == nil {
			t.Fatalf("%s: sync worked against a failing service", format)
		}
		text := out.String() + errb.String() + err.Error()
		if !strings.Contains(text, "bad header") {
			t.Errorf("%s: the service's message is not shown at all:\n%s", format, text)
		}
		if strings.Contains(text, secret) {
			t.Errorf("%s: output or log holds the secret:\n%s", format, text)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s: %s holds the secret", format, e.Name())
			}
		}
	}
}
