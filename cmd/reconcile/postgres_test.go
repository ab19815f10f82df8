package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// TestRunSandboxSameOnPostgres runs the nightly job on the sandbox twice,
// once on SQLite and once on PostgreSQL, and compares what finance reads:
// the findings line and every CSV file but the run's own times.
func TestRunSandboxSameOnPostgres(t *testing.T) {
	needSandbox(t)
	pg := pgtest.NewDatabase(t)
	dir := t.TempDir()
	outputs := map[string]string{}
	for name, db := range map[string]string{"sqlite": filepath.Join(dir, "recon.db"), "postgres": pg} {
		out := filepath.Join(dir, name)
		stdout, stderr, err := runCmd(t, "run", "--sandbox", "--sandbox-days", "9", "--out", out, "--db", db)
		if err != nil {
			t.Fatalf("%s: run --sandbox: %v\n%s\n%s", name, err, stdout, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		outputs[name] = lines[len(lines)-1]
	}
	if outputs["sqlite"] != outputs["postgres"] || !strings.Contains(outputs["sqlite"], "findings: ") {
		t.Errorf("findings differ:\nsqlite:   %s\npostgres: %s", outputs["sqlite"], outputs["postgres"])
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sqlite", "*.csv"))
	if len(files) < 9 {
		t.Fatalf("CSV files: %v", files)
	}
	for _, f := range files {
		base := filepath.Base(f)
		a, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "postgres", base))
		if err != nil {
			t.Fatal(err)
		}
		la, lb := withoutTimes(string(a)), withoutTimes(string(b))
		if !slices.Equal(la, lb) {
			for i := range min(len(la), len(lb)) {
				if la[i] != lb[i] {
					t.Errorf("%s differs at line %d:\nsqlite:   %s\npostgres: %s", base, i+1, la[i], lb[i])
					break
				}
			}
			if len(la) != len(lb) {
				t.Errorf("%s: %d lines on SQLite, %d on PostgreSQL", base, len(la), len(lb))
			}
		}
	}
}

// withoutTimes drops what differs between two runs by nature: the run's
// finish time, the records' sync times, the exceptions' first sighting
// and the manifest's digest (it holds the time it was made).
func withoutTimes(csv string) []string {
	var out []string
	for _, l := range strings.Split(csv, "\n") {
		if strings.Contains(l, "finishedAt") || strings.Contains(l, "manifestDigest") {
			continue
		}
		f := strings.Split(l, ",")
		for i, v := range f {
			if len(v) >= 20 && v[4] == '-' && strings.Contains(v, "T") && (strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "+05:30")) {
				f[i] = "<time>"
			}
		}
		out = append(out, strings.Join(f, ","))
	}
	return out
}
