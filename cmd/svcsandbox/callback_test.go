package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func TestCallbackWritesValuesAndPrintsKey(t *testing.T) {
	out := filepath.Join(t.TempDir(), "values.txt")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"callback", "--out", out, "--count", "3", "--seed", "9"}, &stdout, &stderr); err != nil {
		t.Fatalf("run = %v; stderr %s", err, stderr.String())
	}
	first, _, _ := strings.Cut(stdout.String(), "\n")
	hexKey, ok := strings.CutPrefix(first, "export SVC_ENCRYPTION_KEY=")
	if !ok {
		t.Fatalf("stdout starts %q, want the export line", first)
	}
	key, err := hex.DecodeString(hexKey)
	if err != nil || len(key) != 32 {
		t.Fatalf("printed key %q: %v, %d bytes; want 64 hex digits", hexKey, err, len(key))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("--out holds %d lines, want 3", len(lines))
	}
	for i, l := range lines {
		if p, err := svcapi.DecodeCallback(l, key); err != nil || !bytes.Contains(p, []byte(`"uid":"9999`)) {
			t.Errorf("line %d decodes to %s, %v; want a payload with a uid", i+1, p, err)
		}
	}
}

func TestCallbackUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"callback"}, "--out"},
		{[]string{"callback", "--out", "x", "--count", "0"}, "--count"},
		{[]string{"callback", "--out", "x", "extra"}, "unexpected argument"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		if code := cli.Exit(err, &stderr); code != cli.ExitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run(%q) exit %d, stderr %q; want 2 naming %s", tc.args, code, stderr.String(), tc.want)
		}
	}
}
