package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// syncBuffer is a bytes.Buffer safe to read while run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestRunServesAndPrintsSettings(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	got := make(chan *sandbox.Server, 1)
	ready = func(s *sandbox.Server) { got <- s }
	defer func() { ready = nil }()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--days", "5", "--end", "2026-11-20", "--calls", calls, "--log-format", "json"}, &stdout, &stderr)
	}()
	var srv *sandbox.Server
	select {
	case srv = <-got:
	case err := <-done:
		t.Fatalf("run returned early: %v; stderr %s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"export SVC_BASE_URL=" + srv.URL + " ", "SVC_CLIENT_SECRET=" + sandbox.DefaultCredentials.ClientSecret,
		"SVC_ACCOUNT=" + sandbox.DefaultCredentials.Account, "# period 2026-11-16 to 2026-11-20"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != srv.Counts().Calls {
		t.Errorf("--calls wrote %d lines, want %d", n, srv.Counts().Calls)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v after cancel", err)
	}
	// --log-format json: its start and stop lines are JSON, in IST.
	recs := clitest.JSONLines(t, stderr.String())
	if len(recs) != 2 || recs[0]["msg"] != "sandbox serving" || !strings.HasSuffix(recs[0]["time"].(string), "+05:30") {
		t.Errorf("stderr = %q, want the start and stop lines as JSON in IST", stderr.String())
	}
}

func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:8089"}, "loopback"},
		{[]string{"--5xx", "2"}, "--5xx"},
		{[]string{"--end", "yesterday"}, "--end"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"--addr", "127.0.0.1:0", "--days", "1"}, "--no-defects"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%v) = %v, want a usage error about %s", tc.args, err, tc.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stdout.String(), "Examples:") || stderr.Len() > 0 {
		t.Errorf("-h = %v, usage %q, stderr %q; want the usage on stdout", err, stdout.String(), stderr.String())
	}
}
