package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is an httptest webhook: it answers the statuses given in turn
// (then 200) and keeps every body it was sent.
type receiver struct {
	mu       sync.Mutex
	statuses []int
	bodies   [][]byte
	srv      *httptest.Server
}

func newReceiver(tb testing.TB, statuses ...int) *receiver {
	tb.Helper()
	rc := &receiver{statuses: statuses}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		rc.bodies = append(rc.bodies, b)
		if len(rc.statuses) > 0 {
			w.WriteHeader(rc.statuses[0])
			rc.statuses = rc.statuses[1:]
		}
	}))
	tb.Cleanup(rc.srv.Close)
	return rc
}

// url is the receiver's URL with a token in its path, as chat webhooks have.
func (rc *receiver) url() string { return rc.srv.URL + "/hooks/T0K3N" }

func (rc *receiver) notices(tb testing.TB) []Notice {
	tb.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []Notice
	for _, b := range rc.bodies {
		var n Notice
		if err := json.Unmarshal(b, &n); err != nil {
			tb.Fatalf("notice %s is not JSON: %v", b, err)
		}
		out = append(out, n)
	}
	return out
}

// sleeps records the waits of a Notifier without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

const secret = "sandbox-secret-MARKER"

func scrub(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") }

// TestNotifierRetriesWithBackoff: a receiver that answers 503 twice gets
// the notice on the third attempt, after waits of Backoff and 2×Backoff;
// the notice is JSON with a chat-readable text and no secret.
func TestNotifierRetriesWithBackoff(t *testing.T) {
	rc := newReceiver(t, 503, 503)
	var sl sleeps
	nt := &Notifier{Backoff: time.Second, Sleep: sl.sleep, Scrub: scrub}
	start := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
	n := NoticeFor("nightly", "run", TriggerSchedule, 12, OutcomeBreaks, start, start.Add(95*time.Second),
		"sync statement …\nrun 2026-11-21..2026-11-21: findings: 1 gap, 2 duplicateDebit",
		"run 2026-11-21..2026-11-21: findings: 1 gap, 2 duplicateDebit (client "+secret+")")
	if err := nt.Send(context.Background(), rc.url(), n); err != nil {
		t.Fatalf("Send: %v", err)
	}
	got := rc.notices(t)
	if len(got) != 3 {
		t.Fatalf("receiver got %d posts, want 3 (two 503, then 200)", len(got))
	}
	if fmt.Sprint(sl.d) != "[1s 2s]" {
		t.Errorf("waits = %v, want [1s 2s]", sl.d)
	}
	last := got[2]
	wantText := "svcrecon job nightly (run 12) ended with breaks: run 2026-11-21..2026-11-21: findings: 1 gap, 2 duplicateDebit (took 1m35s"
	if !strings.HasPrefix(last.Text, wantText) || last.Outcome != OutcomeBreaks || last.Job != "nightly" || last.JobRun != 12 ||
		last.Command != "run" || last.Source != "svcrecon" || last.Started != "2026-11-22T21:00:00Z" {
		t.Errorf("notice = %+v\nwant text %q…", last, wantText)
	}
	for _, b := range rc.bodies {
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("T0K3N")) {
			t.Errorf("a notice carries the secret or the URL: %s", b)
		}
	}
}

// TestNotifierGivesUp: a receiver that always fails is tried Attempts
// times; a 4xx answer is final; an address that refuses connections is
// retried. The error names the host, never the URL's token.
func TestNotifierGivesUp(t *testing.T) {
	n := NoticeFor("", "run", "", 0, OutcomeFailed, time.Now(), time.Now(), "", "sync: statement: refused")
	for _, tc := range []struct {
		name     string
		statuses []int
		posts    int
	}{
		{"always 500", []int{500, 500, 500, 500, 500}, 3},
		{"429 then 404", []int{429, 404}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(t, tc.statuses...)
			var sl sleeps
			nt := &Notifier{Attempts: 3, Sleep: sl.sleep}
			err := nt.Send(context.Background(), rc.url(), n)
			if err == nil || strings.Contains(err.Error(), "T0K3N") || !strings.Contains(err.Error(), rc.srv.Listener.Addr().String()) {
				t.Errorf("Send = %v, want an error naming the host and not the token", err)
			}
			if got := len(rc.notices(t)); got != tc.posts {
				t.Errorf("%d posts, want %d", got, tc.posts)
			}
		})
	}
	// Nothing listens there any more.
	rc := newReceiver(t)
	url := rc.url()
	rc.srv.Close()
	var sl sleeps
	err := (&Notifier{Attempts: 2, Sleep: sl.sleep}).Send(context.Background(), url, n)
	if err == nil || strings.Contains(err.Error(), "T0K3N") || len(sl.d) != 1 {
		t.Errorf("refused connection: %v after %d waits; want an error without the token, after one retry", err, len(sl.d))
	}
}

// TestRunnerOutcomesAndNotices: a job that found breaks is recorded as
// breaks (a warning, not an error), one that failed as failed, a clean one
// as ok; the two first are notified, the clean one not. A notification
// that cannot be delivered is logged and changes no outcome.
func TestRunnerOutcomesAndNotices(t *testing.T) {
	rc := newReceiver(t)
	db := openDB(t, filepath.Join(t.TempDir(), "j.db"))
	f, err := Parse("s.yaml", []byte(fmt.Sprintf(`notify: %s
jobs:
  breaks: {cron: '@daily', command: breaks}
  failed: {cron: '@daily', command: fail}
  clean: {cron: '@daily', command: ok}
  unheard: {cron: '@daily', command: fail, notify: 'http://127.0.0.1:1/nobody'}
`, rc.url())), []string{"breaks", "fail", "ok"})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	var sl sleeps
	r := &Runner{DB: db, File: f, Now: func() time.Time { return t0 },
		Log:      slog.New(slog.NewJSONHandler(&logs, nil)),
		Notifier: &Notifier{Sleep: sl.sleep, Scrub: scrub},
		Funcs: map[string]JobFunc{
			"breaks": func(ctx context.Context, r Run) (string, error) {
				return "sync ok\nrun 2026-11-21..2026-11-21: findings: 1 gap", fmt.Errorf("run 2026-11-21..2026-11-21: findings: 1 gap: %w", ErrBreaks)
			},
			"fail": func(ctx context.Context, r Run) (string, error) {
				return "", fmt.Errorf("sync: statement: credentials %s refused", secret)
			},
			"ok": func(ctx context.Context, r Run) (string, error) {
				return "run 2026-11-21..2026-11-21: no findings", nil
			},
		}}
	for _, tc := range []struct{ job, want string }{
		{"breaks", OutcomeBreaks}, {"failed", OutcomeFailed}, {"clean", OutcomeOK}, {"unheard", OutcomeFailed},
	} {
		if res := trigger(t, r, context.Background(), tc.job); res.Outcome != tc.want {
			t.Errorf("job %s: outcome %s, want %s (%v)", tc.job, res.Outcome, tc.want, res.Err)
		}
	}
	recs, err := History(context.Background(), db, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, rec := range recs {
		got[rec.Job] = rec.Outcome + ": " + lastLine(rec.Summary) + rec.Error
	}
	want := map[string]string{
		"breaks":  "breaks: run 2026-11-21..2026-11-21: findings: 1 gaprun 2026-11-21..2026-11-21: findings: 1 gap: breaks found",
		"failed":  "failed: sync: statement: credentials " + secret + " refused",
		"clean":   "ok: run 2026-11-21..2026-11-21: no findings",
		"unheard": "failed: sync: statement: credentials " + secret + " refused",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history = %v\nwant      %v", got, want)
	}
	notices := rc.notices(t)
	if len(notices) != 2 || notices[0].Job != "breaks" || notices[0].Outcome != OutcomeBreaks ||
		notices[0].Headline != "run 2026-11-21..2026-11-21: findings: 1 gap" ||
		notices[1].Job != "failed" || notices[1].Outcome != OutcomeFailed || !strings.Contains(notices[1].Text, "failed: sync: statement: credentials [redacted] refused") {
		t.Errorf("notices = %+v; want breaks then failed, scrubbed", notices)
	}
	// The breaks run is a warning in the log; the unheard notice an error.
	var sawBreaks, sawUnsent bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		if m["job"] == "breaks" && m["msg"] == "job finished" {
			sawBreaks = m["level"] == "WARN" && m["outcome"] == OutcomeBreaks
		}
		if m["job"] == "unheard" && m["msg"] == "notification not sent; the run's outcome stands" {
			sawUnsent = m["level"] == "ERROR" && !strings.Contains(line, "nobody")
		}
	}
	if !sawBreaks || !sawUnsent {
		t.Errorf("logs: breaks finished as a warning %v, unsent notice logged without its URL path %v\n%s", sawBreaks, sawUnsent, logs.String())
	}
}
