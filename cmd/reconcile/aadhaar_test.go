package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aadhaarA and aadhaarB are Verhoeff-valid 12-digit numbers: Aadhaar
// numbers to the redaction.
const aadhaarA, aadhaarB = "739146280552", "582061493773"

// TestAadhaarInFreeTextOfCallLogs: an Aadhaar number in the free text of a
// call-log line (a status message, a remark) never reaches what import-calls
// prints, the database or calls show, whether the line was read from a
// file, a .gz file or standard input; nor one quoted by the reason of a bad
// line.
func TestAadhaarInFreeTextOfCallLogs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	line := func(ref string) string {
		return `{"statuscode":"TXN","status":"Aadhaar ` + aadhaarA + ` verified","timestamp":"2026-11-21 10:00:00","orderid":"O` + ref +
			`","data":{"externalRef":"` + ref + `","remarks":"uid ` + aadhaarB + `","pool":{"openingBal":"100","amount":"10","closingBal":"90"}}}`
	}
	bad := `{"statuscode":"TXN","status":"ok","timestamp":"` + aadhaarA + `","orderid":"O9","data":{"externalRef":"R9","pool":{"openingBal":"100","amount":"10","closingBal":"90"}}}`
	plain := filepath.Join(dir, "calls.jsonl")
	os.WriteFile(plain, []byte(line("AF1")+"\n"+bad+"\n"), 0o600)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(line("AF2") + "\n"))
	zw.Close()
	zipped := filepath.Join(dir, "calls.jsonl.gz")
	os.WriteFile(zipped, gz.Bytes(), 0o600)

	var out, errOut bytes.Buffer
	importCalls(ctx, []string{"--db", db, "--log-level", "warn", plain, zipped}, strings.NewReader(""), &out, &errOut)
	if _, err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(line("AF3")+"\n"), &out, &errOut); err != nil {
		t.Fatalf("import-calls - = %v (%s)", err, errOut.String())
	}
	if want := plain + `:2: timestamp "XXXXXXXX0552": unknown format`; !strings.Contains(errOut.String(), want) {
		t.Errorf("import-calls stderr %q, want %q", errOut.String(), want)
	}
	var shown bytes.Buffer
	for _, ref := range []string{"AF1", "AF2", "AF3"} {
		var o, e bytes.Buffer
		if err := run(ctx, []string{"calls", "show", "--db", db, ref}, &o, &e); err != nil {
			t.Fatalf("calls show %s = %v (%s)", ref, err, e.String())
		}
		if !strings.Contains(o.String(), `"status":"Aadhaar XXXXXXXX0552 verified"`) || !strings.Contains(o.String(), `"remarks":"uid XXXXXXXX3773"`) {
			t.Errorf("calls show %s = %s; want both numbers masked to their last four", ref, o.String())
		}
		shown.Write(o.Bytes())
	}
	stored := strings.Join(queryStrings(t, db, `SELECT reason FROM import_errors`), "\n")
	for _, n := range []string{aadhaarA, aadhaarB} {
		for where, text := range map[string]string{"import-calls": out.String() + errOut.String(), "calls show": shown.String(), "import_errors": stored} {
			if strings.Contains(text, n) {
				t.Errorf("%s shows the Aadhaar number %s: %s", where, n, text)
			}
		}
	}
}
