package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// bioInput writes a balanceInquiry input of n rows whose secret biometric
// cells hold unique markers (pidData is left to --set) and returns its path
// and the markers.
func bioInput(tb testing.TB, dir string, n int) (string, []string) {
	tb.Helper()
	op, _ := svcapi.Lookup(svcapi.OpBalanceInquiry)
	var header []string
	for _, f := range op.Fields {
		if f.Req == svcapi.Mandatory && f.Name != "externalRef" && f.Name != "biometricData.pidData" {
			header = append(header, f.Name)
		}
	}
	var sb strings.Builder
	var markers []string
	sb.WriteString(strings.Join(header, ",") + "\n")
	for i := range n {
		cells := make([]string, len(header))
		for c, h := range header {
			cells[c] = "1"
			if f, _ := op.Field(h); f.Redacted {
				cells[c] = fmt.Sprintf("ZQ%sROW%03d", strings.ToUpper(h[strings.LastIndex(h, ".")+1:]), i)
				markers = append(markers, cells[c])
			}
		}
		sb.WriteString(strings.Join(cells, ",") + "\n")
	}
	path := filepath.Join(dir, "bio.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path, markers
}

// A secret --set value is used for the calls and never stored or printed:
// status shows it redacted, a resume without it says what to type (exit 2,
// nothing sent) and a resume with it sends the real value, never the
// marker. Secrets the service quotes back (the client secret, the row's
// pidData, hmac, sessionKey, encryptedAadhaar) are not in the results (CSV
// and the unzipped workbook), the output, or the bulk tables.
func TestSecretSetValuesAreNotStoredAndResumeAsksForThem(t *testing.T) {
	const pidData = "ZQPIDDATASETVALUE77"
	var mu sync.Mutex
	received := map[string]int{} // pidData values the fake received
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	calls := 0
	srv := bulktest.Start(bulktest.Options{Echo: true, Fail: 0.3, Before: func(_ string, body map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		bio, _ := body["biometricData"].(map[string]any)
		received[fmt.Sprint(bio["pidData"])]++
		if calls++; calls == 3 {
			stop() // Ctrl-C: the call in flight finishes, nothing new starts
		}
	}})
	defer srv.Close()
	setEnv(t, srv.Environ())
	dir := t.TempDir()
	in, markers := bioInput(t, dir, 10)
	markers = append(markers, pidData, bulktest.ClientSecret)
	dbPath := filepath.Join(dir, "bulk.db")
	var output bytes.Buffer
	cmd := func(ctx context.Context, args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := cli.Exit(run(ctx, args, &out, &errOut), &errOut)
		output.WriteString(out.String() + errOut.String())
		return code, out.String() + errOut.String()
	}
	code, out := cmd(ctx, "run", "--op", "balanceInquiry", "--in", in, "--db", dbPath, "--concurrency", "1",
		"--set", "biometricData.pidData="+pidData, "--log-level", "debug")
	if code != cli.ExitFailure || !strings.Contains(out, "interrupted") {
		t.Fatalf("interrupted run: exit %d\n%s", code, out)
	}
	id := runID(t, dbPath)
	bg := context.Background()
	if code, out := cmd(bg, "status", id, "--db", dbPath); code != 0 || !strings.Contains(out, "biometricData.pidData=[REDACTED]") ||
		!strings.Contains(out, "give them again") {
		t.Errorf("status: exit %d; want the secret shown redacted and a hint to give it again:\n%s", code, out)
	}
	sent := srv.Requests()
	code, out = cmd(bg, "resume", id, "--db", dbPath)
	if code != cli.ExitUsage || strings.Count(out, "\n") != 1 || !strings.Contains(out, "bulkrun resume "+id+" --set biometricData.pidData=VALUE") {
		t.Errorf("resume without the secret: exit %d, want %d and one line saying what to type:\n%s", code, cli.ExitUsage, out)
	}
	if srv.Requests() != sent {
		t.Errorf("resume without the secret sent %d requests", srv.Requests()-sent)
	}
	if code, out = cmd(bg, "resume", id, "--db", dbPath, "--set", "biometricData.pidData="+pidData, "--xlsx"); code != 0 {
		t.Fatalf("resume with the secret: exit %d\n%s", code, out)
	}
	mu.Lock()
	if len(received) != 1 || received[pidData] != 10 {
		t.Errorf("pidData values received = %v; want the real value in all 10 requests", received)
	}
	mu.Unlock()

	check := func(name string, b []byte) {
		t.Helper()
		bulktest.NoSecrets(t, name, b, markers)
	}
	check("the output", output.Bytes())
	for _, p := range []string{in + ".results.csv"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		check(p, b)
		if !bytes.Contains(b, []byte("(echo: secret [REDACTED]")) {
			t.Errorf("%s does not show the scrubbed quote: was anything quoted back?", p)
		}
	}
	check("the workbook", bulktest.Unzip(t, in+".results.xlsx"))
	// The bulk tables, as stored (the calls table is the API client's).
	db := openDB(t, dbPath)
	r, _ := db.BulkRun(bg, id)
	check("bulk_runs.settings", []byte(r.Settings))
	for ref, e := range journalByRef(t, dbPath, id) {
		check("bulk_rows of "+ref, []byte(e.Status+e.Error+e.StatusCode+e.OrderID+string(e.Response)))
	}
	// The calls table, written by the API client's recorder: the client
	// scrubs every sensitive value of the request it made, by value, from
	// what the service quotes back.
	rows, err := db.Query(`SELECT COALESCE(CAST(request AS TEXT), '') || COALESCE(CAST(response AS TEXT), '') || error FROM calls`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var nCalls int
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			t.Fatal(err)
		}
		nCalls++
		check("calls", []byte(text))
	}
	if nCalls < 10 {
		t.Errorf("calls table holds %d rows, want every call of the run", nCalls)
	}
}
