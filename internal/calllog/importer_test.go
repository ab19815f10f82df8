package calllog

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

const ts1 = "2026-11-21 10:00:00"

func goodLine(ref, orderID, ts string) string {
	return line(svcapi.OpVerifyPanPlusV2, ref, ts, orderID, map[string]any{"externalRef": ref, "pool": poolA("100.00", "10.00", "90.00")})
}

func writeFile(tb testing.TB, name, content string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

func countRows(tb testing.TB, db interface {
	QueryRow(string, ...any) *sql.Row
}, q string, args ...any) int {
	tb.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

func TestImportDedup(t *testing.T) {
	db := openDB(t)
	p := writeFile(t, "calls.jsonl", lines(goodLine("A", "OA", ts1), goodLine("B", "OB", "2026-11-21 10:00:01"), "", "  "+goodLine("A", "OA", ts1)+"\r"))
	sum, err := ImportFiles(context.Background(), db, []string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 1 || sum.Lines != 3 || sum.Imported != 2 || sum.Duplicates != 1 || sum.Bad != 0 {
		t.Errorf("first import = %+v, want 3 lines, 2 imported, 1 duplicate (same bytes after trimming)", sum)
	}
	sum, err = ImportFiles(context.Background(), db, []string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != 0 || sum.Duplicates != 3 {
		t.Errorf("re-import = %+v, want nothing imported", sum)
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls`); n != 2 {
		t.Errorf("calls = %d, want 2", n)
	}
}

func TestImportGzipAndGlob(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(lines(goodLine("A", "OA", ts1), goodLine("B", "OB", ts1))))
	zw.Close()
	// The name does not say gzip: the magic bytes do.
	os.WriteFile(filepath.Join(dir, "calls-1.log"), buf.Bytes(), 0o600)
	os.WriteFile(filepath.Join(dir, "calls-2.log"), []byte(lines(goodLine("C", "OC", ts1))), 0o600)
	sum, err := ImportFiles(context.Background(), db, []string{filepath.Join(dir, "calls-*.log")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 2 || sum.Imported != 3 || sum.Bad != 0 {
		t.Errorf("import = %+v, want 2 files, 3 imported", sum)
	}
	if _, err := ImportFiles(context.Background(), db, []string{filepath.Join(dir, "nothing-*.log")}, Options{}); err == nil {
		t.Error("a pattern matching nothing: no error")
	}
	if _, err := ImportFiles(context.Background(), db, []string{filepath.Join(dir, "missing.log")}, Options{}); err == nil {
		t.Error("a missing file: no error")
	}
}

func TestImportBareEnvelope(t *testing.T) {
	db := openDB(t)
	env := `{"statuscode":"TXN","actcode":null,"status":"ok","timestamp":"2026-11-21 10:00:00","svc_uuid":"U1","orderid":"OA",` +
		`"data":{"externalRef":"REF-A","pool":{"openingBal":100,"amount":"2.5","closingBal":"97.5"}}}`
	tup := `{"statuscode":"TUP","status":"pending","timestamp":"2026-11-21 10:00:02","orderid":null,"data":{"externalRef":"REF-P"}}`
	sum, err := Import(context.Background(), db, "-", strings.NewReader(lines(env, tup)), Options{})
	if err != nil || sum.Imported != 2 {
		t.Fatalf("Import = %+v, %v", sum, err)
	}
	var op, ref, outcome, shape, amount, source, orderID string
	db.QueryRow(`SELECT operation, external_ref, outcome, pool_shape, pool_amount, source, orderid FROM calls WHERE orderid = 'OA'`).
		Scan(&op, &ref, &outcome, &shape, &amount, &source, &orderID)
	if op != "" || ref != "REF-A" || outcome != recon.CallSuccess || shape != "A" || amount != "2.50" || source != "-" || orderID != "OA" {
		t.Errorf("bare envelope row = op %q ref %q outcome %q shape %q amount %q source %q orderid %q", op, ref, outcome, shape, amount, source, orderID)
	}
	db.QueryRow(`SELECT outcome, orderid FROM calls WHERE external_ref = 'REF-P'`).Scan(&outcome, &orderID)
	if outcome != recon.CallPending || orderID != "" {
		t.Errorf("TUP envelope: outcome %q orderid %q, want pending and no orderid", outcome, orderID)
	}
}

func TestImportOutcomesAndTime(t *testing.T) {
	rec := func(op string, env any, errText, at string) string {
		m := map[string]any{"at": at, "operation": op, "method": "POST", "externalRef": "R-" + op + errText,
			"httpStatus": 200, "latencyMs": 1, "error": errText}
		if env != nil {
			m["response"] = env
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	failedEnv := map[string]any{"statuscode": "ERR", "status": "bad", "timestamp": "2026-11-21 10:00:00"}
	tests := []struct {
		name, line, outcome, ts string
	}{
		{"ERR answer", rec(svcapi.OpLitigation, failedEnv, "litigation: ERR: bad", "2026-11-21T04:30:00Z"), recon.CallFailed, "2026-11-21 10:00:00"},
		{"no answer, billable", rec(svcapi.OpFundTransfer, nil, "fundTransfer: pending: no answer", "2026-11-21T04:30:00Z"), recon.CallPending, "2026-11-21 10:00:00"},
		{"no answer, read-only", rec(svcapi.OpStatement, nil, "statement: timeout", "2026-11-21T10:00:07.5+05:30"), recon.CallFailed, "2026-11-21 10:00:07"},
		{"no answer, unknown operation", rec("someNewOp", nil, "timeout", "2026-11-21T10:00:00+05:30"), recon.CallPending, "2026-11-21 10:00:00"},
		{"body not JSON, logged as a string", rec(svcapi.OpPanDin, "<html>502</html>", "panDin: pending: unreadable answer", "2026-11-21T10:00:00+05:30"), recon.CallPending, "2026-11-21 10:00:00"},
		{"envelope timestamp wins over at", rec(svcapi.OpLitigation, map[string]any{"statuscode": "TUP", "timestamp": "2026-11-21 10:00:09"}, "", "2026-11-21T09:00:00+05:30"), recon.CallPending, "2026-11-21 10:00:09"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			sum, err := Import(context.Background(), db, "x", strings.NewReader(tt.line), Options{})
			if err != nil || sum.Imported != 1 {
				t.Fatalf("Import = %+v, %v", sum, err)
			}
			var outcome, ts string
			db.QueryRow(`SELECT outcome, ts FROM calls`).Scan(&outcome, &ts)
			if outcome != tt.outcome || ts != tt.ts {
				t.Errorf("outcome %q ts %q, want %q %q", outcome, ts, tt.outcome, tt.ts)
			}
		})
	}
}

func TestImportBadLines(t *testing.T) {
	db := openDB(t)
	withPool := func(pool map[string]any) string {
		return line(svcapi.OpVerifyPanPlusV2, "X", ts1, "OX", map[string]any{"pool": pool})
	}
	secretish := `{"statuscode":"TXN","timestamp":"21/11/2026 10:00","data":{"cardPin":"9876"}}`
	bad := []struct {
		line   string
		reason string
	}{
		{"this is not json", "not JSON"},
		{`[{"statuscode":"TXN"}]`, "JSON array"},
		{`{"statuscode":"TXN","timestamp":"2026-11-21 10:00:00","data":{"pool":{"openingBal":"1"`, "truncated"},
		{`{"status":"ok","timestamp":"2026-11-21 10:00:00"}`, "no statuscode"},
		{`{"operation":"litigation","at":"2026-11-21T10:00:00+05:30","response":{"status":"ok"},"error":""}`, "no statuscode"},
		{withPool(poolA("100", "abc", "90")), `pool.amount "abc" is not an amount`},
		{withPool(poolA("100", true, "90")), "amount"},
		{secretish, "timestamp"},
		{`{"operation":"litigation","at":"yesterday","error":"timeout"}`, "unknown timestamp format"},
		{line(svcapi.OpVerifyPanPlusV2, "X", ts1, "OX", map[string]any{"externalRef": "X"}), "envelope without pool"},
		{`{"operation":"litigation","at":"2026-11-21T10:00:00+05:30","httpStatus":{}}`, "httpStatus"},
		// Impossible pool values.
		{withPool(poolA("100", "-1.50", "101.50")), "pool amount -1.50 is negative on a DR (debit) pool object"},
		{withPool(poolB("100", "-1.50", "101.50")), "pool paymentAmount -1.50 is negative"},
		{withPool(poolA("1000000000000000", "1", "999999999999999")), "pool openingBal has more than 15 integer digits"},
		{withPool(poolA("1"+strings.Repeat("0", 399), "1", "1")), "pool openingBal has more than 15 integer digits"},
		{withPool(poolA("100", "1.00001", "98.99999")), "pool amount 1.00001 has more than 4 decimals"},
		{line(svcapi.OpNameAbbreviations, "X", ts1, "OX", map[string]any{"openingBalance": "50.00", "payableValue": "1.18",
			"closingBalance": "-1234567890123456.5"}), "pool closingBalance has more than 15 integer digits"},
	}
	var content []string
	content = append(content, "\ufeff"+goodLine("G1", "OG1", ts1)) // a byte-order mark is no error
	for _, b := range bad {
		content = append(content, b.line)
	}
	content = append(content, goodLine("G2", "OG2", "2026-11-21 10:00:01"))
	p := writeFile(t, "mixed.jsonl", lines(content...))
	sum, err := ImportFiles(context.Background(), db, []string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != 2 || sum.Bad != len(bad) || len(sum.Errors) != len(bad) {
		t.Fatalf("import = %+v, want 2 imported and %d bad", sum, len(bad))
	}
	for i, b := range bad {
		e := sum.Errors[i]
		if e.File != p || e.Line != i+2 || !strings.Contains(e.Reason, b.reason) {
			t.Errorf("error %d = %q, want %s:%d: …%s…", i, e.Error(), p, i+2, b.reason)
		}
		if !strings.HasPrefix(e.Error(), p+":") {
			t.Errorf("error %q does not start with file:line", e.Error())
		}
	}
	if n := countRows(t, db, `SELECT count(*) FROM import_errors WHERE source = ?`, p); n != len(bad) {
		t.Errorf("import_errors = %d, want %d", n, len(bad))
	}
	if n := countRows(t, db, `SELECT count(*) FROM import_errors WHERE reason LIKE '%9876%' OR reason LIKE '%this is not%'`); n != 0 {
		t.Errorf("import_errors quote the line: %d rows", n)
	}
	// Importing again neither adds calls nor repeats the errors.
	if _, err := ImportFiles(context.Background(), db, []string{p}, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM import_errors`); n != len(bad) {
		t.Errorf("import_errors after re-import = %d, want %d", n, len(bad))
	}
}

func TestImportEmptyFile(t *testing.T) {
	db := openDB(t)
	for _, content := range []string{"", "\n\n  \n"} {
		p := writeFile(t, "empty.jsonl", content)
		sum, err := ImportFiles(context.Background(), db, []string{p}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Bad != 1 || len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Error(), p+":0: empty file") {
			t.Errorf("import of %q = %+v, want one empty-file error", content, sum)
		}
	}
}

func TestImportLongLine(t *testing.T) {
	db := openDB(t)
	big := strings.Repeat("x", 3<<20)
	l := line(svcapi.OpLitigation, "L", ts1, "OL", map[string]any{"pool": poolA("10", "1", "9"), "blob": big})
	sum, err := Import(context.Background(), db, "big", strings.NewReader(lines(l, goodLine("A", "OA", ts1))), Options{})
	if err != nil || sum.Imported != 2 || sum.Bad != 0 {
		t.Fatalf("Import = %+v, %v", sum, err)
	}
}

// TestImportTooLongLine: a line longer than MaxLineBytes is a bad line,
// skipped without being held whole; the lines around it are imported, and
// numbered right.
func TestImportTooLongLine(t *testing.T) {
	db := openDB(t)
	huge := `{"operation":"litigation","note":"` + strings.Repeat("x", MaxLineBytes+1<<20) + `"}`
	p := writeFile(t, "huge.jsonl", lines(goodLine("A", "OA", ts1), huge, "", goodLine("B", "OB", ts1)))
	sum, err := ImportFiles(context.Background(), db, []string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != 2 || sum.Bad != 1 || len(sum.Errors) != 1 || sum.Errors[0].Line != 2 ||
		!strings.Contains(sum.Errors[0].Reason, "longer than 16 MiB") {
		t.Fatalf("Import = %+v (errors %+v), want 2 imported and line 2 bad (too long)", sum, sum.Errors)
	}
	var line int
	db.QueryRow(`SELECT source_line FROM calls WHERE external_ref = 'B'`).Scan(&line)
	if line != 4 {
		t.Errorf("the line after the long one is stored as line %d, want 4", line)
	}
	if shown, err := Show(context.Background(), db, "B", nil); err != nil || len(shown) != 1 ||
		!strings.Contains(string(shown[0].Line), `"externalRef":"B"`) {
		t.Errorf("Show(B) after the long line = %+v, %v; want its line, read back at the right offset", shown, err)
	}
	// From a stream read a little at a time (a pipe), the long line is
	// skipped as it comes, never held whole.
	content := lines(goodLine("C", "OC", ts1), huge, goodLine("D", "OD", ts1))
	sum, err = Import(context.Background(), db, "-", smallReads{strings.NewReader(content)}, Options{})
	if err != nil || sum.Imported != 2 || sum.Bad != 1 || sum.Errors[0].Line != 2 {
		t.Fatalf("Import from a stream = %+v (%v), want 2 imported and line 2 bad", sum, err)
	}
}

// smallReads returns at most 32 KiB a Read, as a pipe does.
type smallReads struct{ r io.Reader }

func (s smallReads) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 32<<10)]) }

func TestImportTruncatedGzip(t *testing.T) {
	db := openDB(t)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := range 2000 {
		zw.Write([]byte(goodLine("R"+string(rune('a'+i%26))+time.Duration(i).String(), "", ts1) + "\n"))
	}
	zw.Close()
	cut := buf.Bytes()[:buf.Len()*2/3]
	sum, err := Import(context.Background(), db, "cut.gz", bytes.NewReader(cut), Options{})
	if err == nil {
		t.Fatal("truncated gzip: no error")
	}
	if !strings.Contains(err.Error(), "cut.gz") {
		t.Errorf("error %q does not name the file", err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls`); n != sum.Imported || n == 0 {
		t.Errorf("calls = %d, summary imported %d: the lines before the damage must be kept", n, sum.Imported)
	}
}

// storedLines returns the line kept for each call (Show).
func storedLines(tb testing.TB, db *store.DB) []string {
	tb.Helper()
	rows, err := db.Query(`SELECT id FROM calls ORDER BY id`)
	if err != nil {
		tb.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	var out []string
	for _, id := range ids {
		shown, err := Show(context.Background(), db, id, nil)
		if err != nil {
			tb.Fatal(err)
		}
		for _, s := range shown {
			out = append(out, string(s.Line))
		}
	}
	return out
}

func TestImportRedacts(t *testing.T) {
	db := openDB(t)
	secrets := []string{"ENC-AADHAAR-SECRET", "PID-DATA-SECRET", "SESSION-KEY-SECRET", "HMAC-SECRET", "4321PIN", "123456789012", "4111111111111111"}
	req := map[string]any{"externalRef": "B1", "biometricData": map[string]any{"encryptedAadhaar": secrets[0], "pidData": secrets[1],
		"sessionKey": secrets[2], "hmac": secrets[3]}, "aadhaarNumber": secrets[5]}
	env := map[string]any{"statuscode": "TXN", "timestamp": ts1, "orderid": "OB1",
		"data": map[string]any{"externalRef": "B1", "pool": poolA("100", "10", "90"),
			"receiver": map[string]any{"cardNumber": secrets[6], "cardPin": secrets[4]}}}
	b, _ := json.Marshal(map[string]any{"at": "2026-11-21T10:00:00+05:30", "operation": svcapi.OpBrandOrder,
		"externalRef": "B1", "request": req, "response": env, "error": ""})
	bare, _ := json.Marshal(env)
	sum, err := Import(context.Background(), db, "s", strings.NewReader(lines(string(b), string(bare))), Options{})
	if err != nil || sum.Imported != 2 {
		t.Fatalf("Import = %+v, %v", sum, err)
	}
	kept := storedLines(t, db)
	for _, l := range kept {
		for _, s := range secrets {
			if strings.Contains(l, s) {
				t.Errorf("stored line holds %q: %s", s, l)
			}
		}
		if !strings.Contains(l, "XXXXXXXXXXXX1111") {
			t.Errorf("card number not masked to its last four: %s", l)
		}
	}
	if len(kept) != 2 {
		t.Errorf("%d lines kept", len(kept))
	}
}

// TestImportScrubsClientSecret: the configured client secret, wherever a
// client's log carries it (an error, a status quoted back, a request
// header copied into the body, an escaped form, a key), is in no stored
// text of calls or import_errors, nor anywhere in the database file; a
// key spelt Aadhaar_Number is masked.
func TestImportScrubsClientSecret(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "svcrecon.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "S3cr3t-MARKER-7f1c"
	const aadhaar = "234567890124"
	escaped := `\u0053` + secret[1:] // S3cr3t… with its S escaped
	failed := map[string]any{"statuscode": "UAD", "status": "client secret " + secret + " is wrong", "timestamp": ts1}
	rec := func(m map[string]any) string {
		b, _ := json.Marshal(m)
		return string(b)
	}
	content := lines(
		rec(map[string]any{"at": "2026-11-21T10:00:00+05:30", "operation": svcapi.OpLitigation, "externalRef": "E1",
			"request":  map[string]any{"X-Svc-Client-Secret": secret, "Aadhaar_Number": aadhaar, secret: "as a key"},
			"response": failed, "error": "litigation: UAD: client secret " + secret + " is wrong"}),
		rec(failed), // a bare envelope
		`{"at":"2026-11-21T10:00:01+05:30","operation":"litigation","externalRef":"E2","request":{"note":"`+escaped+`"},"error":"timeout"}`,
		rec(map[string]any{"at": "2026-11-21T10:00:02+05:30", "operation": svcapi.OpLitigation, "externalRef": secret,
			"response": map[string]any{"statuscode": "TXN", "timestamp": "when " + secret}}), // a bad line quoting it
	)
	sum, err := Import(context.Background(), db, "client.jsonl", strings.NewReader(content), Options{Secrets: []string{secret}})
	if err != nil || sum.Imported != 3 || sum.Bad != 1 {
		t.Fatalf("Import = %+v, %v; want 3 imported, 1 bad", sum, err)
	}
	for _, e := range sum.Errors {
		if strings.Contains(e.Error(), secret) {
			t.Errorf("bad line reported as %q: holds the secret", e.Error())
		}
	}
	var texts []string
	rows, err := db.Query(`SELECT at || operation || path || external_ref || error || statuscode || status || svc_uuid ||
		orderid || coalesce(request, '') || coalesce(response, '') FROM calls`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		texts = append(texts, s)
	}
	rows.Close()
	texts = append(texts, storedLines(t, db)...)
	var reasons string
	db.QueryRow(`SELECT group_concat(reason) FROM import_errors`).Scan(&reasons)
	for _, s := range append(texts, reasons) {
		if strings.Contains(s, secret) || strings.Contains(s, aadhaar) {
			t.Errorf("stored text holds the secret or the Aadhaar number: %s", s)
		}
	}
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "client secret [REDACTED] is wrong") || !strings.Contains(all, "XXXXXXXX0124") {
		t.Errorf("stored calls %s: want the secret replaced by [REDACTED] and the Aadhaar number masked", all)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	dbFilesHoldNone(t, path, "the secret", secret)
}

func TestRecorderMatchesJSONLImport(t *testing.T) {
	db := openDB(t)
	r := NewRecorder(db, nil)
	ctx := context.Background()
	at := time.Date(2026, 11, 21, 4, 30, 0, 123e6, time.UTC)
	env, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "orderid": "O1",
		"data": map[string]any{"externalRef": "R1", "pool": poolA("100", "10", "90")}})
	page, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "orderid": nil,
		"data": map[string]any{"meta": map[string]any{"totalPages": 1}, "records": []any{map[string]any{"svcOrderId": "S1"}}}})
	recs := []*svcapi.CallRecord{
		{At: at, Operation: svcapi.OpVerifyPanPlusV2, Method: "POST", Path: "/identity/verifyPanPlusV2", ExternalRef: "R1",
			Request: json.RawMessage(`{"externalRef":"R1","pan":"ABCDE1234F"}`), HTTPStatus: 200, LatencyMs: 50, Response: env},
		{At: at, Operation: svcapi.OpStatement, Method: "POST", Path: "/reports/statement", ExternalRef: "S-1",
			Request: json.RawMessage(`{"externalRef":"S-1"}`), HTTPStatus: 200, LatencyMs: 80, Response: page},
		{At: at, Operation: svcapi.OpFundTransfer, Method: "POST", Path: "/x", ExternalRef: "F1",
			Request: json.RawMessage(`{"externalRef":"F1"}`), Error: "fundTransfer: pending: no answer"},
	}
	var log bytes.Buffer
	jl := svcapi.NewJSONLRecorder(&log)
	for _, rec := range recs {
		if err := r.Record(ctx, rec); err != nil {
			t.Fatalf("Record: %v", err)
		}
		jl.Record(ctx, rec)
	}
	sum, err := Import(ctx, db, "own.jsonl", &log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != 0 || sum.Duplicates != 3 {
		t.Errorf("importing svcrecon's own call log = %+v, want 3 duplicates and nothing new", sum)
	}
	var source, outcome, shape, resp string
	db.QueryRow(`SELECT source, outcome, pool_shape FROM calls WHERE external_ref = 'R1'`).Scan(&source, &outcome, &shape)
	if source != SourceSvcrecon || outcome != recon.CallSuccess || shape != "A" {
		t.Errorf("recorded call: source %q outcome %q shape %q", source, outcome, shape)
	}
	if shown, err := Show(ctx, db, "S-1", nil); err != nil || len(shown) != 1 {
		t.Fatalf("Show(S-1) = %+v, %v", shown, err)
	} else {
		resp = string(shown[0].Line)
	}
	if strings.Contains(resp, "records") || !strings.Contains(resp, `"statuscode":"TXN"`) {
		t.Errorf("statement page stored with its data: %s", resp)
	}
	db.QueryRow(`SELECT outcome FROM calls WHERE external_ref = 'F1'`).Scan(&outcome)
	if outcome != recon.CallPending {
		t.Errorf("unanswered fund transfer outcome = %q, want pending", outcome)
	}
}

// TestRecorderCancelledContext: a call answered while the run is being
// interrupted is still recorded.
func TestRecorderCancelledContext(t *testing.T) {
	db := openDB(t)
	r := NewRecorder(db, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "orderid": "O1",
		"data": map[string]any{"externalRef": "R1", "pool": poolA("100", "10", "90")}})
	if err := r.Record(ctx, &svcapi.CallRecord{At: time.Now(), Operation: svcapi.OpLitigation, ExternalRef: "R1", Response: env}); err != nil {
		t.Fatalf("Record with a cancelled context: %v", err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls WHERE external_ref = 'R1' AND pool_amount = '10.00'`); n != 1 {
		t.Errorf("calls = %d, want the call recorded", n)
	}
}

func TestRecorderBadRecord(t *testing.T) {
	db := openDB(t)
	r := NewRecorder(db, nil)
	env, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "data": map[string]any{"externalRef": "R1"}})
	err := r.Record(context.Background(), &svcapi.CallRecord{At: time.Now(), Operation: svcapi.OpLitigation, ExternalRef: "R1", Response: env})
	if err == nil {
		t.Fatal("a pool operation's answer without pool: no error")
	}
	if n := countRows(t, db, `SELECT count(*) FROM import_errors WHERE source = 'svcrecon' AND reason LIKE '%envelope without pool%'`); n != 1 {
		t.Errorf("import_errors rows = %d, want 1", n)
	}
}

func TestNeedsRedact(t *testing.T) {
	for _, tt := range []struct {
		doc     string
		secrets []string
		want    bool
	}{
		{`{"a":"b","pool":{"amount":"1"}}`, nil, false},
		{`{"svc_uuid":"u","uidx":"1"}`, nil, false},
		{`{"uid":"123412341234"}`, nil, true},
		{`{"x":{"CardPin":"1"}}`, nil, true},
		{`{"biometricData":{"PIDDATA":"x"}}`, nil, true},
		{`{"encryptedAadhaar":null}`, nil, true},
		{`{"\u0063ardPin":"1"}`, nil, true},
		{`{"x":"cardNumber"}`, nil, true}, // a value spelled like a key: redacted to be safe
		{`"`, nil, false},
		{`{"Aadhaar_Number":"234567890124"}`, nil, true},
		{`{"pid-data":"x"}`, nil, true},
		{`{"note":"a \"quoted\" word","uid":"1"}`, nil, true}, // an escaped quote does not hide the next key
		{`{"note":"tab\there"}`, nil, false},
		{`{"status":"bad secret S3KR1T"}`, []string{"S3KR1T"}, true},
		{`{"status":"fine"}`, []string{"S3KR1T"}, false},
		{`{"status":"\/S3KR1T"}`, []string{"S3KR1T"}, true},
		{`{"status":"esc\/aped"}`, []string{"S3KR1T"}, true}, // an escape could spell the secret
	} {
		if got := needsRedact([]byte(tt.doc), tt.secrets); got != tt.want {
			t.Errorf("needsRedact(%s) = %v, want %v", tt.doc, got, tt.want)
		}
	}
}

// insertLog is a RecordWriter that notes which of its methods stored each
// call, "report R" or "calls R" (the call's externalRef), before storing it.
type insertLog struct {
	RecordWriter
	got []string
}

func (l *insertLog) InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error) {
	l.got = append(l.got, "calls "+calls[0].ExternalRef)
	return l.RecordWriter.InsertCalls(ctx, at, calls, bad)
}

func (l *insertLog) InsertReportCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error) {
	l.got = append(l.got, "report "+calls[0].ExternalRef)
	return l.RecordWriter.InsertReportCalls(ctx, at, calls, bad)
}

// TestRecorderRelaxesOnlyReadOnlyCalls: a statement page's and a status
// check's calls are stored by InsertReportCalls (a commit that need not
// wait for the disk), a billable call's and an unknown operation's by
// InsertCalls; every one is stored.
func TestRecorderRelaxesOnlyReadOnlyCalls(t *testing.T) {
	db := openDB(t)
	w := &insertLog{RecordWriter: db}
	r := NewRecorder(w, nil)
	env, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "orderid": "O1",
		"data": map[string]any{"externalRef": "R1", "pool": poolA("100", "10", "90")}})
	page, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "data": map[string]any{"records": []any{}}})
	for _, rec := range []*svcapi.CallRecord{
		{At: time.Now(), Operation: svcapi.OpStatement, ExternalRef: "S1", Response: page},
		{At: time.Now(), Operation: svcapi.OpLitigation, ExternalRef: "R1", Response: env},
		{At: time.Now(), Operation: svcapi.OpTxnStatus, ExternalRef: "T1", Error: "txnStatus: timeout"},
		{At: time.Now(), Operation: "notAnOperation", ExternalRef: "U1", Error: "no such operation"},
	} {
		if err := r.Record(context.Background(), rec); err != nil {
			t.Fatalf("Record %s: %v", rec.Operation, err)
		}
	}
	if want := []string{"report S1", "calls R1", "report T1", "calls U1"}; !slices.Equal(w.got, want) {
		t.Errorf("stored by %q, want %q", w.got, want)
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls WHERE external_ref IN ('S1', 'R1', 'T1', 'U1')`); n != 4 {
		t.Errorf("calls stored = %d, want 4", n)
	}
}

// TestRecorderDeferred: under store.DeferCalls a call's record is only
// kept; the journal write that carries it (store.DB.StepBulkRows) makes
// and stores exactly the row a direct Record stores, and a record that
// cannot be read becomes its import error then, logged.
func TestRecorderDeferred(t *testing.T) {
	ctx := context.Background()
	env, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "orderid": "O1",
		"data": map[string]any{"externalRef": "R1", "pool": poolA("100", "10", "90")}})
	noPool, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "data": map[string]any{"externalRef": "R2"}})
	at := time.Date(2026, 11, 21, 4, 30, 0, 0, time.UTC)
	good := &svcapi.CallRecord{At: at, Operation: svcapi.OpLitigation, ExternalRef: "R1", HTTPStatus: 200, Response: env}
	bad := &svcapi.CallRecord{At: at, Operation: svcapi.OpLitigation, ExternalRef: "R2", HTTPStatus: 200, Response: noPool}
	stamp := func() time.Time { return at }

	direct := openDB(t)
	dr := NewRecorder(direct, nil)
	dr.Now = stamp
	if err := dr.Record(ctx, good); err != nil {
		t.Fatal(err)
	}

	db := openDB(t)
	var logged bytes.Buffer
	r := NewRecorder(db, slog.New(slog.NewTextHandler(&logged, nil)))
	r.Now = stamp
	dctx, kept := store.DeferCalls(ctx)
	for _, rec := range []*svcapi.CallRecord{good, bad} {
		if err := r.Record(dctx, rec); err != nil {
			t.Fatalf("Record under DeferCalls: %v", err)
		}
	}
	if n := countRows(t, db, `SELECT count(*) FROM calls`) + countRows(t, db, `SELECT count(*) FROM import_errors`); n != 0 || logged.Len() > 0 {
		t.Fatalf("under DeferCalls Record stored %d rows and logged %q before the journal write", n, logged.String())
	}
	if _, _, err := db.StepBulkRows(ctx, "RUN", store.BulkStep{Calls: kept, At: at}); err != nil {
		t.Fatal(err)
	}
	row := `SELECT hex(line_hash), source, outcome, pool_amount, imported_at FROM calls WHERE external_ref = 'R1'`
	var want, got [5]string
	if err := direct.QueryRow(row).Scan(&want[0], &want[1], &want[2], &want[3], &want[4]); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(row).Scan(&got[0], &got[1], &got[2], &got[3], &got[4]); err != nil || got != want {
		t.Errorf("deferred call = %q, %v; a direct Record stores %q", got, err, want)
	}
	if n := countRows(t, db, `SELECT count(*) FROM import_errors WHERE source = 'svcrecon' AND reason LIKE '%envelope without pool%'`); n != 1 ||
		!strings.Contains(logged.String(), "call not stored in the ledger") {
		t.Errorf("unreadable deferred record: %d import errors, log %q; want 1 and the error logged", n, logged.String())
	}
}
