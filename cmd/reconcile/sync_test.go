package main

import (
	"bytes"
	"context"
	"errors"
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
	if !strings.Contains(out.String(), "records: 0 new, 0 updated") || !strings.Contains(out.String(), "6 skipped") {
		t.Errorf("second summary = %q, want nothing new and 6 windows skipped", out.String())
	}
}
