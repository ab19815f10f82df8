package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/schedule"
	"github.com/svcrecon/svcrecon/internal/store"
)

// webhook is an httptest chat webhook: it answers status (200 when 0) and
// keeps the notices posted to it.
type webhook struct {
	mu      sync.Mutex
	status  int
	notices []schedule.Notice
	raw     []string
	srv     *httptest.Server
}

func newWebhook(tb testing.TB, status int) *webhook {
	tb.Helper()
	wh := &webhook{status: status}
	wh.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var n schedule.Notice
		if err := json.Unmarshal(b, &n); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		wh.mu.Lock()
		wh.notices = append(wh.notices, n)
		wh.raw = append(wh.raw, string(b))
		wh.mu.Unlock()
		if wh.status != 0 {
			w.WriteHeader(wh.status)
		}
	}))
	tb.Cleanup(wh.srv.Close)
	return wh
}

func (wh *webhook) url() string { return wh.srv.URL + "/hooks/T0K3N" }

func (wh *webhook) got() ([]schedule.Notice, []string) {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	return append([]schedule.Notice(nil), wh.notices...), append([]string(nil), wh.raw...)
}

// noNotifyWait makes the notifier's back-off instant for the test.
func noNotifyWait(tb testing.TB) {
	tb.Helper()
	notifySleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	tb.Cleanup(func() { notifySleep = nil })
}

// TestJobOutcomesInHistory runs the nightly job three ways through
// `reconcile schedule run`: one that finds breaks (the sandbox's planted
// defects, --fail-on-breaks), one that cannot run (its --out is under a
// file) and a clean one. The history records breaks, failed and ok, shows
// the breaks run's counts per finding, and the webhook hears of the first
// two only.
func TestJobOutcomesInHistory(t *testing.T) {
	needSandbox(t)
	noNotifyWait(t)
	wh := newWebhook(t, 0)
	dir := t.TempDir()
	blocker := writeFile(t, dir, "a-file", "x")
	run3 := func(name, out string, extra ...string) string {
		args := append([]string{"--sandbox", "--sandbox-days", "3", "--db", filepath.Join(dir, name+".db"), "--out", out}, extra...)
		b, _ := json.Marshal(args)
		return fmt.Sprintf("  %s:\n    cron: '@daily'\n    command: run\n    args: %s\n", name, b)
	}
	file := writeFile(t, dir, "schedules.yaml", "notify: "+wh.url()+"\njobs:\n"+
		run3("breaking", filepath.Join(dir, "breaking"), "--fail-on-breaks")+
		run3("broken", filepath.Join(blocker, "r"))+
		run3("clean", filepath.Join(dir, "clean")))
	jobsDB := filepath.Join(dir, "jobs.db")
	for _, tc := range []struct {
		job  string
		code int
	}{{"breaking", cli.ExitFindings}, {"broken", cli.ExitFailure}, {"clean", cli.ExitOK}} {
		_, stderr, err := runCmd(t, "schedule", "run", "--file", file, "--db", jobsDB, "--log-level", "warn", tc.job)
		if code := cli.Exit(err, io.Discard); code != tc.code {
			t.Errorf("schedule run %s: exit %d (%v), want %d\n%s", tc.job, code, err, tc.code, stderr)
		}
	}
	db, err := store.Open(context.Background(), jobsDB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs, err := schedule.History(context.Background(), db, schedule.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]schedule.Record{}
	for _, r := range recs {
		outcomes[r.Job] = r
	}
	if outcomes["breaking"].Outcome != schedule.OutcomeBreaks || outcomes["broken"].Outcome != schedule.OutcomeFailed ||
		outcomes["clean"].Outcome != schedule.OutcomeOK {
		t.Errorf("outcomes: breaking %s, broken %s, clean %s; want breaks, failed, ok",
			outcomes["breaking"].Outcome, outcomes["broken"].Outcome, outcomes["clean"].Outcome)
	}
	stdout, _, err := runCmd(t, "history", "--db", jobsDB)
	if err != nil {
		t.Fatal(err)
	}
	var breakingLine, brokenLine string
	for _, l := range strings.Split(stdout, "\n") {
		switch {
		case strings.Contains(l, " breaking "):
			breakingLine = l
		case strings.Contains(l, " broken "):
			brokenLine = l
		}
	}
	// The run's own summary: the period and its counts per finding.
	if !strings.Contains(breakingLine, " breaks ") || !strings.Contains(breakingLine, ": findings: 1 arithmetic, 1 gap, 1 amountMismatch, 2 duplicateDebit") {
		t.Errorf("history line of the breaks run = %q, want breaks and its counts per finding", breakingLine)
	}
	if !strings.Contains(brokenLine, " failed ") || !strings.Contains(brokenLine, "run: --out: ") {
		t.Errorf("history line of the failed run = %q, want failed and its error", brokenLine)
	}
	notices, raw := wh.got()
	if len(notices) != 2 || notices[0].Job != "breaking" || notices[0].Outcome != schedule.OutcomeBreaks ||
		notices[1].Job != "broken" || notices[1].Outcome != schedule.OutcomeFailed {
		t.Fatalf("notices = %+v, want breaking (breaks) then broken (failed)", notices)
	}
	if !strings.HasPrefix(notices[0].Text, "svcrecon job breaking (run 1) ended with breaks: run ") ||
		!strings.Contains(notices[0].Text, "findings: 1 arithmetic") || !strings.Contains(notices[1].Text, "failed: run: --out: ") {
		t.Errorf("notice texts:\n%s\n%s", notices[0].Text, notices[1].Text)
	}
	for _, b := range raw {
		if strings.Contains(b, sandbox.DefaultCredentials.ClientSecret) || strings.Contains(b, "T0K3N") {
			t.Errorf("a notice carries a secret: %s", b)
		}
	}
}

// TestRunNotify: run --notify posts the run's summary with its counts per
// finding when it ends with breaks; a webhook that keeps failing is
// retried, logged, and leaves the exit status as it was.
func TestRunNotify(t *testing.T) {
	needSandbox(t)
	noNotifyWait(t)
	good, bad := newWebhook(t, 0), newWebhook(t, http.StatusBadGateway)
	dir := t.TempDir()
	for i, wh := range []*webhook{good, bad} {
		_, stderr, err := runCmd(t, "run", "--sandbox", "--sandbox-days", "3", "--out", filepath.Join(dir, fmt.Sprint(i)),
			"--fail-on-breaks", "--notify", wh.url(), "--log-level", "warn")
		if code := cli.Exit(err, io.Discard); code != cli.ExitFindings {
			t.Fatalf("run --notify: exit %d (%v), want 3\n%s", code, err, stderr)
		}
		if wh == bad && (!strings.Contains(stderr, "notification not sent") || strings.Contains(stderr, "T0K3N")) {
			t.Errorf("a failed notification is not logged (or its URL is):\n%s", stderr)
		}
	}
	notices, _ := good.got()
	if len(notices) != 1 {
		t.Fatalf("%d notices, want 1", len(notices))
	}
	n := notices[0]
	if n.Outcome != schedule.OutcomeBreaks || n.Command != "run" || n.Findings[recon.BreakGap] != 1 ||
		n.Findings[recon.DuplicateDebit] != 2 || !strings.HasPrefix(n.Text, "svcrecon reconcile run ended with breaks: run ") ||
		!strings.Contains(n.Summary, "sync statement ") {
		t.Errorf("notice = %+v", n)
	}
	if posts, _ := bad.got(); len(posts) != schedule.DefaultNotifyAttempts {
		t.Errorf("the failing webhook got %d posts, want %d", len(posts), schedule.DefaultNotifyAttempts)
	}
	// A URL that is not http(s) is refused before anything runs.
	_, _, err := runCmd(t, "run", "--sandbox", "--out", filepath.Join(dir, "x"), "--notify", "chat.example/hook")
	if code := cli.Exit(err, io.Discard); code != cli.ExitUsage {
		t.Errorf("--notify without a scheme: exit %d (%v), want 2", code, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s behind", filepath.Join(dir, "x"))
	}
}

// emptyService answers every statement and collect-order page with no
// record.
func emptyService(tb testing.TB) {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"statuscode":"TXN","status":"ok","timestamp":"2026-11-22 10:00:00","data":{"meta":{"totalPages":0,"currentPage":1,"totalRecords":0,"recordsOnCurrentPage":0},"records":[]}}`)
	}))
	tb.Cleanup(srv.Close)
	for k, v := range map[string]string{"SVC_BASE_URL": srv.URL, "SVC_CLIENT_ID": "c", "SVC_CLIENT_SECRET": "s3cret",
		"SVC_ENDPOINT_IP": "203.0.113.1", "SVC_ACCOUNT": "0409000123456"} {
		tb.Setenv(k, v)
	}
}

// TestRunEmptyPeriod: a night with no call and no record is an error
// under --fail-on-breaks (a misconfigured nightly must not look clean),
// accepted with --allow-empty, and only logged without --fail-on-breaks.
func TestRunEmptyPeriod(t *testing.T) {
	emptyService(t)
	dir := t.TempDir()
	base := []string{"run", "--date", "2026-11-20", "--db", filepath.Join(dir, "e.db"), "--out", filepath.Join(dir, "out")}
	_, _, err := runCmd(t, append(base, "--fail-on-breaks")...)
	if code := cli.Exit(err, io.Discard); code != cli.ExitFailure ||
		!strings.HasPrefix(err.Error(), "nothing to reconcile: no call and no record in 2026-11-20..2026-11-20") {
		t.Errorf("empty period, --fail-on-breaks: exit %d (%v), want 1 and nothing to reconcile", code, err)
	}
	if _, _, err := runCmd(t, append(base, "--fail-on-breaks", "--allow-empty")...); err != nil {
		t.Errorf("empty period, --allow-empty: %v, want exit 0", err)
	}
	_, stderr, err := runCmd(t, base...)
	if err != nil || !strings.Contains(stderr, "nothing to reconcile") {
		t.Errorf("empty period without --fail-on-breaks: %v, want exit 0 and a warning\n%s", err, stderr)
	}
	if _, _, err := runCmd(t, append(base, "--allow-empty")...); cli.Exit(err, io.Discard) != cli.ExitUsage {
		t.Errorf("--allow-empty without --fail-on-breaks: %v, want a usage error", err)
	}
}

// TestRefusalsLeaveNothing: a missing setting or a bad period is refused
// before the reports' directory or the database is created.
func TestRefusalsLeaveNothing(t *testing.T) {
	emptyService(t)
	defer func(f func() time.Time) { clock = f }(clock)
	clock = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, recon.IST) }
	for _, tc := range []struct {
		name string
		env  string // an environment variable to unset
		args []string
		want string
	}{
		{"no account", "SVC_ACCOUNT", []string{"run", "--date", "2026-11-20"}, "SVC_ACCOUNT"},
		{"no base URL", "SVC_BASE_URL", []string{"run"}, "SVC_BASE_URL"},
		{"ends after today", "", []string{"run", "--date", "2026-11-23"}, "--to 2026-11-23 is after today (2026-11-22, IST)"},
		{"too long", "", []string{"run", "--from", "2025-10-01", "--to", "2026-11-20"}, "add --allow-long-period"},
		{"sync ends after today", "", []string{"sync", "--from", "2026-11-20", "--to", "2026-11-25"}, "is after today"},
		{"sync too long", "", []string{"sync", "--from", "2024-01-01", "--to", "2026-11-20"}, "add --allow-long-period"},
		{"long allowed, no account", "SVC_ACCOUNT", []string{"sync", "--from", "2025-01-01", "--to", "2026-11-20", "--allow-long-period"}, "SVC_ACCOUNT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(tc.env, "")
			}
			dir := t.TempDir()
			args := append(tc.args, "--db", filepath.Join(dir, "svcrecon.db"))
			if tc.args[0] == "run" {
				args = append(args, "--out", filepath.Join(dir, "reports"))
			}
			_, _, err := runCmd(t, args...)
			if code := cli.Exit(err, io.Discard); code != cli.ExitUsage || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v: exit %d (%v), want 2 naming %q", args, code, err, tc.want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%v left %v behind", args, left)
			}
		})
	}
}

// TestScheduleArgsChecked: a job whose args a command would refuse is
// reported by schedule list and by the daemon before it starts, as
// schedules.yaml:LINE of its args, with the suggestion; run by hand it is
// recorded as failed.
func TestScheduleArgsChecked(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "schedules.yaml", `jobs:
  billers:
    cron: "0 3 * * *"
    command: billersync
    args: ["--full"]
  nightly:
    cron: "30 2 * * *"
    command: run
    args:
      - --fial-on-breaks
`)
	want := file + ":10: job nightly: args: run: flag provided but not defined: -fial-on-breaks; did you mean --fail-on-breaks?"
	db := filepath.Join(dir, "jobs.db")
	for _, args := range [][]string{
		{"schedule", "list", "--file", file},
		{"schedule", "--file", file, "--db", db},
	} {
		_, _, err := runCmd(t, args...)
		if code := cli.Exit(err, io.Discard); code != cli.ExitUsage || err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%v: exit %d, %v; want 2 and %q", args, code, err, want)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the refused daemon created its database")
	}
	_, _, err := runCmd(t, "schedule", "run", "--file", file, "--db", db, "nightly")
	if code := cli.Exit(err, io.Discard); code != cli.ExitUsage || !strings.Contains(err.Error(), "job nightly: failed (run 1") {
		t.Errorf("schedule run nightly: exit %d, %v; want the job failed on its args", code, err)
	}
}

// TestSyncDriftFoundBySecondSync: `svcsandbox --drift` posts records into a
// day after its first page was served (late postings). A plain second
// sync, without --refresh, finds every one and says how many it found
// late; the log names the sync's run syncRun.
func TestSyncDriftFoundBySecondSync(t *testing.T) {
	needSandbox(t)
	srv, err := sandbox.Start(sandbox.Options{Seed: 3, Days: 10, Faults: sandbox.Faults{PageDrift: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg, c := srv.Config(), srv.Credentials()
	for k, v := range map[string]string{"SVC_BASE_URL": cfg.BaseURL, "SVC_CLIENT_ID": c.ClientID, "SVC_CLIENT_SECRET": c.ClientSecret,
		"SVC_ENDPOINT_IP": c.EndpointIP, "SVC_ACCOUNT": c.Account} {
		t.Setenv(k, v)
	}
	from, to := srv.Period()
	db := filepath.Join(t.TempDir(), "d.db")
	args := []string{"sync", "--db", db, "--from", from.Format(time.DateOnly), "--to", to.Format(time.DateOnly),
		"--page-size", "1000", "--log-format", "json"}
	first, _, err := runCmd(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	second, stderr, err := runCmd(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	cnt := srv.Counts()
	want := cnt.Statement + cnt.Orders
	stored := len(queryStrings(t, db, `SELECT svc_order_id FROM records`))
	if stored != want {
		t.Errorf("after two syncs %d records stored, the sandbox has %d\nfirst:  %ssecond: %s", stored, want, first, second)
	}
	var firstNew int
	fmt.Sscanf(first[strings.Index(first, "records: "):], "records: %d new", &firstNew)
	if late := fmt.Sprintf("%d walked again, %d records found late", 20, want-firstNew); firstNew >= want || !strings.Contains(second, late) {
		t.Errorf("first sync stored %d of %d; second summary %q, want %q", firstNew, want, second, late)
	}
	sawStart := false
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if m["msg"] == "sync started" {
			_, hasRun := m["run"]
			sawStart = m[recon.LogSyncRun] != nil && !hasRun
		}
	}
	if !sawStart {
		t.Errorf("no sync started line with %s (and without run):\n%s", recon.LogSyncRun, stderr)
	}
}
