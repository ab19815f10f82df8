package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

const (
	okEnvelope = `{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 10:00:00","orderid":"O1",` +
		`"data":{"externalRef":"R1","pool":{"openingBal":"100","amount":"10","closingBal":"90"}}}`
	brokenEnvelope = `{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 10:00:05","orderid":"O2",` +
		`"data":{"externalRef":"R2","pool":{"openingBal":"90","amount":"abc","closingBal":"80"}}}`
)

func TestImportCallsAndCheckCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	log := filepath.Join(dir, "calls.jsonl")
	os.WriteFile(log, []byte(okEnvelope+"\nnot json\n"+brokenEnvelope+"\n"), 0o600)

	var out, errOut bytes.Buffer
	err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", filepath.Join(dir, "calls.*")}, strings.NewReader(""), &out, &errOut)
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != cli.ExitFailure {
		t.Fatalf("import-calls with bad lines = %v, want exit 1", err)
	}
	for _, want := range []string{log + ":2: not JSON", log + `:3: pool.amount "abc" is not an amount`} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if !strings.Contains(out.String(), "1 imported") {
		t.Errorf("stdout = %q, want the summary line", out.String())
	}

	// Standard input; the same line again adds nothing and is no error.
	out.Reset()
	errOut.Reset()
	if err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(okEnvelope+"\n"), &out, &errOut); err != nil {
		t.Fatalf("import-calls - = %v (%s)", err, errOut.String())
	}
	if !strings.Contains(out.String(), "0 imported, 1 already imported") {
		t.Errorf("stdout = %q", out.String())
	}

	out.Reset()
	if err := run(ctx, []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"}, &out, &errOut); err != nil {
		t.Fatalf("check = %v", err)
	}
	for _, want := range []string{"callOnly", "total debited", "10.00", "unsettled"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, out.String())
		}
	}
	err = run(ctx, []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21", "--fail-on-breaks"}, &out, &errOut)
	if !errors.As(err, &ee) || ee.Code != cli.ExitFindings {
		t.Errorf("check --fail-on-breaks with a call-only debit = %v, want exit 3", err)
	}
}

func TestImportCallsAndCheckUsage(t *testing.T) {
	ctx := context.Background()
	var out, errOut bytes.Buffer
	for _, args := range [][]string{
		{"import-calls"},
		{"import-calls", "-", "-"},
		{"check", "--from", "2026-11-21"},
		{"check", "--from", "2026-11-21", "--to", "2026-11-20"},
		{"check", "--from", "2026-11-21", "--to", "2026-11-21", "--as-of", "2026-11-01"},
		{"check", "--from", "21/11/2026", "--to", "2026-11-21"},
	} {
		var ue *cli.UsageError
		if err := run(ctx, args, &out, &errOut); !errors.As(err, &ue) {
			t.Errorf("%v = %v, want a usage error", args, err)
		}
	}
	for _, cmd := range []string{"import-calls", "check"} {
		errOut.Reset()
		if err := run(ctx, []string{cmd, "-h"}, &out, &errOut); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s -h = %v", cmd, err)
		}
		if !strings.Contains(errOut.String(), "Examples:\n  reconcile "+cmd) {
			t.Errorf("%s -h shows no examples:\n%s", cmd, errOut.String())
		}
	}
}
