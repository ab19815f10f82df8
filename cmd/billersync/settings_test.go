package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
)

// TestBadSettingsRefusedBeforeTheFirstCall: every setting billersync
// takes that cannot work is refused with one line naming it and what is
// wrong, exit 2, before any request, database, call log or export.
func TestBadSettingsRefusedBeforeTheFirstCall(t *testing.T) {
	svc := clitest.NewService(t)
	for _, bad := range clitest.BadSettings(t, svc.URL) {
		if bad.Needs == "account" { // the biller list is no account's
			continue
		}
		t.Run(bad.Name, func(t *testing.T) {
			clitest.Setenv(t, append(slices.Clone(svc.Env), bad.Env...))
			dir := t.TempDir()
			args := append([]string{"--full", "--db", filepath.Join(dir, "svcrecon.db"), "--call-log", filepath.Join(dir, "calls.jsonl"),
				"--out", filepath.Join(dir, "billers")}, bad.Args...)
			var stderr bytes.Buffer
			code := cli.Exit(run(context.Background(), args, io.Discard, &stderr), &stderr)
			if wrong := clitest.CheckRefusal(bad, code, stderr.String()); wrong != "" {
				t.Errorf("%q: %s:\nexit %d\n%s", args, wrong, code, stderr.String())
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%q left %v behind", args, left)
			}
		})
	}
	if n := svc.Requests(); n != 0 {
		t.Errorf("%d requests reached the service, want none", n)
	}
}
