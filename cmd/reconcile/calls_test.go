package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/calllog"
)

// A line carrying what must never be shown: the client secret, a card
// number and pidData.
const showSecret = "S3cr3t-SHOW-91d2"

var showLine = `{"at":"2026-11-21T10:00:00+05:30","operation":"verifyPanPlusV2","method":"POST","externalRef":"RS1",` +
	`"request":{"externalRef":"RS1","pidData":"PID-BLOB","note":"` + showSecret + `"},"httpStatus":200,"latencyMs":5,` +
	`"response":{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 10:00:00","orderid":"OS1",` +
	`"data":{"externalRef":"RS1","cardNumber":"4111111111111111","pool":{"openingBal":"100","amount":"1","closingBal":"99"}}},"error":""}`

// TestCallsShow: a call imported from a file is shown from that file,
// redacted; from a gzip file too; one imported from standard input is
// shown from the database; a file changed since the import, an unknown
// call and a missing REF are errors.
func TestCallsShow(t *testing.T) {
	t.Setenv(cli.EnvClientSecret, showSecret)
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	plain := filepath.Join(dir, "calls.jsonl")
	os.WriteFile(plain, []byte("\n  "+okEnvelope+"\n"+showLine+"\r\n"), 0o600)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(brokenEnvelope + "\n" + strings.ReplaceAll(showLine, "RS1", "RS2") + "\n"))
	zw.Close()
	zipped := filepath.Join(dir, "calls.jsonl.gz")
	os.WriteFile(zipped, gz.Bytes(), 0o600)
	var out, errOut bytes.Buffer
	_, err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", plain, zipped}, strings.NewReader(""), &out, &errOut)
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != cli.ExitFailure { // brokenEnvelope is a bad line
		t.Fatalf("import-calls = %v (%s)", err, errOut.String())
	}
	stdin := strings.ReplaceAll(showLine, "RS1", "RS3")
	if _, err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(stdin+"\n"), &out, &errOut); err != nil {
		t.Fatalf("import-calls - = %v (%s)", err, errOut.String())
	}

	show := func(refs ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, append([]string{"calls", "show", "--db", db}, refs...), &out, &errOut)
		return out.String(), errOut.String(), err
	}
	for _, tc := range []struct{ ref, where string }{
		{"RS1", "file " + plain}, {"RS2", "file " + zipped}, {"RS3", "database"},
	} {
		got, where, err := show(tc.ref)
		if err != nil {
			t.Fatalf("calls show %s = %v (%s)", tc.ref, err, where)
		}
		if !strings.Contains(where, tc.where) {
			t.Errorf("calls show %s: stderr %q, want the line read from the %s", tc.ref, where, tc.where)
		}
		if strings.Count(got, "\n") != 1 || !strings.Contains(got, `"externalRef":"`+tc.ref+`"`) || !strings.Contains(got, `"orderid":"OS1"`) {
			t.Errorf("calls show %s = %q, want its one line", tc.ref, got)
		}
		for _, never := range []string{showSecret, "PID-BLOB", "4111111111111111"} {
			if strings.Contains(got, never) {
				t.Errorf("calls show %s prints %q: %s", tc.ref, never, got)
			}
		}
		if !strings.Contains(got, "XXXXXXXXXXXX1111") {
			t.Errorf("calls show %s: the card number is not masked to its last four: %s", tc.ref, got)
		}
	}
	// By call id: the first call, okEnvelope, of line 2 of the plain file.
	if got, _, err := show("1"); err != nil || !strings.Contains(got, `"orderid":"O1"`) {
		t.Errorf("calls show 1 = %q, %v; want okEnvelope", got, err)
	}

	// The file changed: the line is no longer there.
	os.WriteFile(plain, []byte(strings.ReplaceAll(string(mustRead(t, plain)), "RS1", "XX1")), 0o600)
	if _, _, err := show("RS1"); !errors.Is(err, calllog.ErrLineChanged) {
		t.Errorf("calls show of a changed file = %v, want ErrLineChanged", err)
	}
	if _, _, err := show("nothing-like-it"); err == nil || !strings.Contains(err.Error(), "no call") {
		t.Errorf("calls show of an unknown ref = %v, want no call", err)
	}
	var ue *cli.UsageError
	if _, _, err := show(); !errors.As(err, &ue) {
		t.Errorf("calls show without REF = %v, want a usage error", err)
	}
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
