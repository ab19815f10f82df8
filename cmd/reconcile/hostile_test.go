package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// pageRequest is what the hostile services read of a page request.
type pageRequest struct {
	IsOrder    bool `json:"isOrder"`
	Pagination struct {
		PageNumber string `json:"pageNumber"`
	} `json:"pagination"`
	Filters struct {
		TxnDateFrom string `json:"txnDateFrom"`
	} `json:"filters"`
}

func readPageRequest(r io.Reader) pageRequest {
	var req pageRequest
	json.NewDecoder(r).Decode(&req)
	return req
}

// hostileProxy stands between the commands and the sandbox: it passes
// every request on, except that it may answer one statement page itself.
type hostileProxy struct {
	mu      sync.Mutex
	badPage string // "day page" of the statement answered with badBody
	badBody string
}

func startHostileProxy(t *testing.T, srv *sandbox.Server) (*hostileProxy, string) {
	t.Helper()
	target, err := url.Parse(srv.Config().BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	hp := &hostileProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	px := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		req := readPageRequest(bytes.NewReader(body))
		hp.mu.Lock()
		bad, badBody := hp.badPage, hp.badBody
		hp.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/statement") && !req.IsOrder && bad != "" && req.Filters.TxnDateFrom+" "+req.Pagination.PageNumber == bad {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, badBody)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(px.Close)
	return hp, px.URL
}

// TestSyncMalformedMidDayPageExit1: the service answers a mid-day
// statement page TXN with no page. reconcile sync exits 1 naming the day
// and page; once the page is answered, the next sync stores exactly what a
// clean sync stores.
func TestSyncMalformedMidDayPageExit1(t *testing.T) {
	srv, err := sandbox.Start(sandbox.Options{Seed: 5, Days: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	hp, proxyURL := startHostileProxy(t, srv)
	cfg := srv.Config()
	t.Setenv("SVC_BASE_URL", proxyURL)
	t.Setenv("SVC_CLIENT_ID", cfg.ClientID)
	t.Setenv("SVC_CLIENT_SECRET", cfg.ClientSecret)
	t.Setenv("SVC_ENDPOINT_IP", cfg.EndpointIP)
	t.Setenv("SVC_ACCOUNT", srv.Credentials().Account)
	from, to := srv.Period()
	day := to.Format(time.DateOnly)
	sync := func(db string) (int, string, string) {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"sync", "--db", db, "--from", from.Format(time.DateOnly),
			"--to", day, "--page-size", "7", "--log-level", "error"}, &out, &errb)
		return cli.Exit(err, &errb), out.String(), errb.String()
	}
	dir := t.TempDir()
	cleanDB, db := filepath.Join(dir, "clean.db"), filepath.Join(dir, "hostile.db")
	if code, _, stderr := sync(cleanDB); code != cli.ExitOK {
		t.Fatalf("clean sync: exit %d\n%s", code, stderr)
	}
	clean, _ := recordsDump(t, cleanDB)

	hp.badPage, hp.badBody = day+" 2", `{"statuscode":"TXN","status":"Statement fetched","data":null}`
	code, stdout, stderr := sync(db)
	if code != cli.ExitFailure {
		t.Fatalf("sync with a page answered without data: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if want := "statement window " + day + " failed at page 2"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if got, _ := recordsDump(t, db); len(got) >= len(clean) {
		t.Errorf("%d records stored with a page missing, a clean sync stores %d", len(got), len(clean))
	}
	hp.mu.Lock()
	hp.badPage = ""
	hp.mu.Unlock()
	if code, _, stderr := sync(db); code != cli.ExitOK {
		t.Fatalf("healthy re-run: exit %d\n%s", code, stderr)
	}
	if got, _ := recordsDump(t, db); !slices.Equal(got, clean) {
		t.Errorf("after the healthy re-run %d records, a clean sync stores %d (or they differ)", len(got), len(clean))
	}
}

// The markers a hostile service quotes back: the client secret, and the
// database password (given in PGPASSWORD, so learnt even with SQLite).
const (
	markerSecret = "Hq7MarkerSecretZ9x"
	markerDBPass = "Pw4MarkerDbPass8k"
)

// markerSpellings are the spellings of a marker a hostile service uses:
// upper and lower case, JSON \u escapes, URL-encoded (query and every
// byte), split by a line break, base64 (both alphabets, padded or not,
// inside a longer base64 text).
func markerSpellings(m string) []string {
	var pct, js strings.Builder
	for i := 0; i < len(m); i++ {
		fmt.Fprintf(&pct, "%%%02x", m[i])
		fmt.Fprintf(&js, `\u%04X`, m[i])
	}
	return []string{m, strings.ToUpper(m), strings.ToLower(m), js.String(), url.QueryEscape(m), pct.String(),
		m[:5] + "\n" + m[5:], m[:7] + "\r\n" + strings.ToUpper(m[7:]),
		base64.StdEncoding.EncodeToString([]byte(m)), base64.RawURLEncoding.EncodeToString([]byte(m)),
		base64.StdEncoding.EncodeToString([]byte("Basic user:" + m)),
		url.QueryEscape(base64.StdEncoding.EncodeToString([]byte("xy:" + m + "?>")))}
}

// hostileText is every spelling of both markers, an Aadhaar number, a
// forged log line and terminal escapes, in one text.
func hostileText() string {
	parts := append(markerSpellings(markerSecret), markerSpellings(markerDBPass)...)
	return "uid 234567890124 " + strings.Join(parts, " ~ ") + "\n level=ERROR msg=forged \x1b[31mred\x1b[0m"
}

// jsonText encodes s as a JSON string, keeping the \u escapes it spells
// (s holds JSON escapes already: only quotes, control characters and
// escapes other than \u are encoded).
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b), `\\u`, `\u`)
}

// hostileService answers the statement and collect orders of day1 with
// records whose every text field, and every field of whose envelopes,
// quote the markers; it answers day2's statement and the biller list with
// a failure whose every field does.
func hostileService(t *testing.T, day1, day2 string) *httptest.Server {
	h := jsonText(hostileText())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := readPageRequest(r.Body)
		w.Header().Set("Content-Type", "application/json")
		envelope := fmt.Sprintf(`"actcode":%s,"svc_uuid":%s,"orderid":%s,"internalCode":%s,"environment":%s,"timestamp":%s`, h, h, h, h, h, h)
		day := req.Filters.TxnDateFrom
		switch {
		case strings.HasSuffix(r.URL.Path, "/billers"), day == day2 && !req.IsOrder:
			fmt.Fprintf(w, `{"statuscode":%s,"status":%s,%s}`, h, h, envelope)
			return
		case day != day1 || req.Pagination.PageNumber != "1":
			fmt.Fprintf(w, `{"statuscode":"TXN","status":%s,%s,"data":{"meta":{"totalPages":1,"totalRecords":0},"records":[]}}`, h, envelope)
			return
		}
		var recs []string
		for i := range 3 {
			fields := []string{fmt.Sprintf(`"svcOrderId":"SV%d%t"`, i, req.IsOrder), fmt.Sprintf(`"txnDateTime":"%s 10:0%d:00"`, day, i),
				`"txnChargedValue":"12.50"`, `"orderValue":"12.50"`, `"txnMode":"DR"`}
			for _, f := range []string{"status", "clientOrderId", "transactionId", "productCode", "productName", "subProductCode",
				"subProductName", "narrationValue0", "narrationValue1", "narrationValue2", "narrationValue3", "narrationValue4",
				"narrationValue5", "narrationValue6", "narrationValue7", "narrationValue8", "narrationValue9", "responseCode",
				"responseMsg", "reversalSvcOrderId", "closingBalance", "settlementSvcOrderId"} {
				fields = append(fields, fmt.Sprintf(`%q:%s`, f, h))
			}
			recs = append(recs, "{"+strings.Join(fields, ",")+"}")
		}
		fmt.Fprintf(w, `{"statuscode":"TXN","status":%s,%s,"data":{"meta":{"totalPages":1,"totalRecords":3,"recordsOnCurrentPage":3},"records":[%s]}}`,
			h, envelope, strings.Join(recs, ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// markerLeak returns the spelling of a marker that text still holds: the
// marker in any case once line breaks, %XX and \uXXXX escapes are undone
// (three times over), or a part of its base64 encoding at any alignment.
func markerLeak(text []byte, marker string) (string, bool) {
	t := string(text)
	undo := regexp.MustCompile(`(?i)%[0-9a-f]{2}|\\u[0-9a-f]{4}`)
	for range 3 {
		t = strings.NewReplacer("\r", "", "\n", "", `\r`, "", `\n`, "", `\\`, `\`).Replace(t)
		t = undo.ReplaceAllStringFunc(t, func(e string) string {
			n, _ := strconv.ParseUint(strings.TrimLeft(e[1:], "uU"), 16, 32)
			if n == '\r' || n == '\n' {
				return ""
			}
			return string(rune(n))
		})
		if strings.Contains(strings.ToLower(t), strings.ToLower(marker)) {
			return "the marker", true
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := range 3 {
			full := enc.EncodeToString([]byte(strings.Repeat("\x00", k) + marker))
			core := full[[]int{0, 2, 3}[k] : 8*(k+len(marker))/6]
			if strings.Contains(t, core) {
				return "base64 " + core, true
			}
		}
	}
	return "", false
}

// filesUnder returns every file under dir by name, the entries of xlsx
// files as files of their own.
func filesUnder(t *testing.T, dir string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = b
		if strings.HasSuffix(path, ".xlsx") {
			zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				return err
			}
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					return err
				}
				x, _ := io.ReadAll(rc)
				rc.Close()
				out[path+"!"+f.Name] = x
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoMarkerLeaks: a hostile service quotes the client secret and the
// database password back in every spelling, in every field of its failure
// and success answers. After a sync (text and JSON logs, a call log), a
// biller sync, a check and an export, no spelling of either is on stdout or stderr, in
// any byte of the database files, in the call log or in any export; the
// Aadhaar number, the forged log line and the terminal escapes are not
// on the terminal either.
func TestNoMarkerLeaks(t *testing.T) {
	const day1, day2 = "2026-11-01", "2026-11-02"
	srv := hostileService(t, day1, day2)
	t.Setenv("SVC_BASE_URL", srv.URL)
	t.Setenv("SVC_CLIENT_ID", "id")
	t.Setenv("SVC_CLIENT_SECRET", markerSecret)
	t.Setenv("SVC_ENDPOINT_IP", "203.0.113.1")
	t.Setenv("SVC_ACCOUNT", "0409000123456")
	t.Setenv("SVC_OUTLET_ID", "OUT1")
	t.Setenv("PGPASSWORD", markerDBPass)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "h.db")
			var terminal bytes.Buffer
			cmd := func(want int, args ...string) {
				var out, errb bytes.Buffer
				err := run(context.Background(), append(args, "--db", db, "--log-format", format, "--log-level", "debug"), &out, &errb)
				code := cli.Exit(err, &errb)
				terminal.Write(out.Bytes())
				terminal.Write(errb.Bytes())
				if code != want {
					t.Fatalf("%s: exit %d, want %d\n%s%s", args[0], code, want, out.String(), errb.String())
				}
			}
			cmd(cli.ExitFailure, "sync", "--from", day1, "--to", day2, "--call-log", filepath.Join(dir, "calls.jsonl"))
			cmd(cli.ExitFailure, "billersync")
			cmd(cli.ExitOK, "check", "--from", day1, "--to", day2)
			cmd(cli.ExitOK, "export", "--from", day1, "--to", day2, "--out", filepath.Join(dir, "out"), "--format", "both")
			files := filesUnder(t, dir)
			files["the terminal (stdout and stderr)"] = terminal.Bytes()
			for name, b := range files {
				for _, m := range []string{markerSecret, markerDBPass} {
					if form, ok := markerLeak(b, m); ok {
						t.Errorf("%s holds %s of %s", name, form, m)
					}
				}
			}
			if !strings.Contains(terminal.String(), "[REDACTED]") || !strings.Contains(terminal.String(), "statement window "+day2+" failed at page 1") {
				t.Errorf("the terminal does not show the failure, redacted:\n%s", terminal.String())
			}
			if strings.Contains(terminal.String(), "234567890124") || !strings.Contains(terminal.String(), "XXXXXXXX0124") {
				t.Errorf("the Aadhaar number is not masked on the terminal:\n%s", terminal.String())
			}
			if strings.ContainsRune(terminal.String(), 0x1b) {
				t.Errorf("a raw escape reached the terminal")
			}
			for _, line := range strings.Split(terminal.String(), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "level=ERROR msg=forged") {
					t.Errorf("a forged log line reached the terminal: %q", line)
				}
			}
			for _, q := range []string{`SELECT error FROM sync_windows WHERE day = '` + day2 + `' AND kind = 'statement'`,
				`SELECT error FROM biller_syncs`} {
				var stored string
				if err := openStore(t, db).QueryRow(q).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(stored, "[REDACTED]") || strings.Contains(stored, "234567890124") || strings.ContainsAny(stored, "\n\x1b") {
					t.Errorf("%s: not safe text: %q", q, stored)
				}
			}
		})
	}
}

// TestSchedulePasswordsMasked: a database URL with a password in a job's
// args is shown by schedule list, and logged by schedule run, without it.
func TestSchedulePasswordsMasked(t *testing.T) {
	const pw = "Sup3rS3cretPw"
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", `jobs:
  nightly:
    cron: "30 2 * * *"
    command: check
    args: ["--from", "2026-11-01", "--to", "2026-11-01", "--db", "postgres://svc:`+pw+`@127.0.0.1:1/recon?sslmode=disable&password=`+pw+`"]
`)
	stdout, stderr, err := runCmd(t, "schedule", "list", "--file", file)
	if err != nil {
		t.Fatalf("schedule list: %v\n%s", err, stderr)
	}
	// The address stays, without its password (redact.DSN).
	if strings.Contains(stdout, pw) || !strings.Contains(stdout, "postgres://svc@127.0.0.1:1/recon") {
		t.Errorf("schedule list shows the password:\n%s", stdout)
	}
	for _, format := range []string{"text", "json"} {
		stdout, stderr, err = runCmd(t, "schedule", "run", "--file", file, "--db", filepath.Join(dir, format+".db"), "--log-format", format, "nightly")
		var errLine bytes.Buffer
		if code := cli.Exit(err, &errLine); code != cli.ExitFailure {
			t.Errorf("%s: schedule run against no database: exit %d, want 1", format, code)
		}
		all := stdout + stderr + errLine.String()
		if strings.Contains(all, pw) || !strings.Contains(all, "postgres://svc@127.0.0.1:1/recon") || !strings.Contains(all, "job started") {
			t.Errorf("%s: schedule run shows the password, or logs no args:\n%s", format, all)
		}
	}
}
