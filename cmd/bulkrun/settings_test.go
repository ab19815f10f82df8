package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
)

// TestBadSettingsRefusedBeforeTheFirstCall: every setting that cannot
// work is refused by run, resume and settle with one line naming it and
// what is wrong, exit 2, before any request, database, call log or
// results file.
func TestBadSettingsRefusedBeforeTheFirstCall(t *testing.T) {
	svc := clitest.NewService(t)
	for _, bad := range clitest.BadSettings(t, svc.URL) {
		if bad.Needs == "account" { // no bulk operation sends it
			continue
		}
		for _, cmd := range [][]string{
			{"run", "--op", "verifyPanPlusV2", "--set", "consent=Y", "--set", "longitude=1"},
			{"resume", "7KQ2M"},
			{"settle", "7KQ2M"},
		} {
			t.Run(bad.Name+"/"+cmd[0], func(t *testing.T) {
				dir := t.TempDir()
				in := writeInput(t, dir, 2)
				args := append(slices.Clone(cmd), "--db", filepath.Join(dir, "bulk.db"), "--call-log", filepath.Join(dir, "calls.jsonl"))
				if cmd[0] == "run" {
					args = append(args, "--in", in, "--xlsx")
				}
				code, _, stderr := runCLIEnv(t, append(slices.Clone(svc.Env), bad.Env...), append(args, bad.Args...)...)
				if wrong := clitest.CheckRefusal(bad, code, stderr); wrong != "" {
					t.Errorf("%q: %s:\nexit %d\n%s", args, wrong, code, stderr)
				}
				if left, _ := os.ReadDir(dir); len(left) != 1 {
					t.Errorf("%q left %v beside the input", args, left)
				}
			})
		}
	}
	if n := svc.Requests(); n != 0 {
		t.Errorf("%d requests reached the service, want none", n)
	}
}
