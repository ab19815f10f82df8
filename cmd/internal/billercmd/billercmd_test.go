package billercmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--page-size", "0"}, {"--nope"}, {"extra"}, {"--csv-raw"}} {
		var out, errb bytes.Buffer
		err := run(context.Background(), args, &out, &errb)
		var ue *cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("Run(%q) = %v, want a usage error", args, err)
		}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &out, &errb); cli.Exit(err, &errb) != 0 || !strings.Contains(out.String(), "billersync --full") || errb.Len() > 0 {
		t.Errorf("-h: %v, usage %q, stderr %q; want the usage on stdout", err, out.String(), errb.String())
	}
}

func TestSandboxSyncAndExportHook(t *testing.T) {
	if _, err := sandbox.New(sandbox.Options{Days: 1}); errors.Is(err, sandbox.ErrNotImplemented) {
		t.Skip("sandbox not implemented yet")
	}
	db := filepath.Join(t.TempDir(), "b.db")
	base := []string{"--sandbox", "--db", db, "--log-level", "warn"}
	var out, errb bytes.Buffer
	if err := run(context.Background(), append(base, "--full"), &out, &errb); err != nil {
		t.Fatalf("billersync --full: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "billers (full)") || !strings.Contains(out.String(), "0 removed") {
		t.Errorf("summary = %q", out.String())
	}
	// --out writes the biller workbook and CSV files beside the sync.
	dir := t.TempDir()
	out.Reset()
	if err := run(context.Background(), append(base, "--out", dir), &out, &errb); err != nil {
		t.Fatalf("billersync --out: %v\n%s", err, errb.String())
	}
	for _, name := range []string{"billers.xlsx", "billers.csv", "billers-changes.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil || !strings.Contains(out.String(), name) {
			t.Errorf("billersync --out: %s missing or not printed (%v); output %q", name, err, out.String())
		}
	}
	out.Reset()
	if err := run(context.Background(), append(base, "--out", dir, "--csv-raw"), &out, &errb); err != nil {
		t.Fatalf("billersync --out --csv-raw: %v\n%s", err, errb.String())
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "billers.csv"))
	if lines := strings.Count(string(csv), "\n"); lines != 301 {
		t.Errorf("billers.csv has %d lines, want 301 (header + the sandbox's 300 billers)", lines)
	}
}

// TestCategoryInAnyCase: the service's category keys are upper-case codes
// and it compares them exactly; --category electricity finds the
// ELECTRICITY billers (it used to find none), and the sync is recorded
// under the key, so that a later incremental sync of ELECTRICITY goes on
// from it.
func TestCategoryInAnyCase(t *testing.T) {
	if _, err := sandbox.New(sandbox.Options{Days: 1}); errors.Is(err, sandbox.ErrNotImplemented) {
		t.Skip("sandbox not implemented yet")
	}
	db := filepath.Join(t.TempDir(), "b.db")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"--sandbox", "--db", db, "--log-level", "warn", "--full", "--category", "electricity"}, &out, &errb); err != nil {
		t.Fatalf("billersync --category electricity: %v\n%s", err, errb.String())
	}
	if strings.Contains(out.String(), " 0 seen") || !strings.Contains(out.String(), "billers (full): ") {
		t.Errorf("billersync --category electricity = %q, want the ELECTRICITY billers", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"--sandbox", "--db", db, "--log-level", "warn", "--category", "Electricity"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "billers (incremental after ") {
		t.Errorf("a second sync of the category = %q, want it incremental from the first", out.String())
	}
}

// TestNoOutletID: the biller list needs SVC_OUTLET_ID; without it billersync
// says so in one line, exits 2 and records no sync.
func TestNoOutletID(t *testing.T) {
	for k, v := range map[string]string{"SVC_BASE_URL": "http://127.0.0.1:1", "SVC_CLIENT_ID": "id",
		"SVC_CLIENT_SECRET": "secret", "SVC_ENDPOINT_IP": "203.0.113.1", "SVC_OUTLET_ID": ""} {
		t.Setenv(k, v)
	}
	db := filepath.Join(t.TempDir(), "b.db")
	var out, errb, stderr bytes.Buffer
	err := run(context.Background(), []string{"--db", db, "--log-level", "warn"}, &out, &errb)
	if code := cli.Exit(err, &stderr); code != cli.ExitUsage {
		t.Fatalf("exit = %d (%v), want %d", code, err, cli.ExitUsage)
	}
	if line := stderr.String(); strings.Count(line, "\n") != 1 || !strings.Contains(line, "SVC_OUTLET_ID") {
		t.Errorf("stderr = %q, want one line naming SVC_OUTLET_ID", line)
	}
	if out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", out.String())
	}
	// Refused before the database is created: nothing left behind.
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused sync left %s behind (%v)", db, err)
	}
}

// run is billersync with args, as the billersync program runs it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := cli.Command{Name: "billersync", Help: Help, New: New}.Run(ctx, args, cli.Stdio{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr})
	return err
}
