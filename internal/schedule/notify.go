package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults of a Notifier.
const (
	DefaultNotifyAttempts = 4
	DefaultNotifyBackoff  = 2 * time.Second
	DefaultNotifyTimeout  = 10 * time.Second
)

// Notice is what a notification POSTs, as JSON: a run that ended with
// breaks or failed. Text makes it readable as a chat webhook's message
// (Slack, Mattermost, Google Chat and Teams incoming webhooks show it); the
// other fields are for machines. It carries no secret: Notifier.Scrub is
// applied to every text, and neither the job's args nor the URL are in it.
type Notice struct {
	Text     string `json:"text"`
	Source   string `json:"source"`            // "svcrecon"
	Job      string `json:"job,omitempty"`     // the job's name ("" for a command run by hand)
	JobRun   int64  `json:"jobRun,omitempty"`  // job_runs.id
	Command  string `json:"command"`           // the subcommand: run, sync, …
	Trigger  string `json:"trigger,omitempty"` // schedule, manual
	Outcome  string `json:"outcome"`           // OutcomeBreaks, OutcomeFailed, OutcomePanic or OutcomeMissed
	Started  string `json:"started"`           // RFC 3339
	Finished string `json:"finished"`          // RFC 3339
	Headline string `json:"headline"`          // one line: the findings, or the error
	Summary  string `json:"summary,omitempty"` // the run's own summary, a few lines
	Error    string `json:"error,omitempty"`
	Host     string `json:"host,omitempty"`
	// Findings are the counts per finding, when the sender knows them
	// (the nightly run does; the scheduler does not look inside a job).
	Findings map[string]int `json:"findings,omitempty"`
}

// NoticeFor builds the notice of a run that ended: Text and Headline say
// what ended how, from the summary's last line for breaks and the error
// otherwise.
func NoticeFor(job, command, trigger string, runID int64, outcome string, started, finished time.Time, summary, errText string) Notice {
	host, _ := os.Hostname()
	n := Notice{Source: "svcrecon", Job: job, JobRun: runID, Command: command, Trigger: trigger, Outcome: outcome,
		Started: started.Format(time.RFC3339), Finished: finished.Format(time.RFC3339),
		Summary: strings.TrimSpace(summary), Error: errText, Host: host}
	n.Headline = lastLine(n.Summary)
	if outcome != OutcomeBreaks || n.Headline == "" {
		n.Headline = strings.ReplaceAll(strings.TrimSpace(errText), "\n", " ")
	}
	who := "reconcile " + command
	if job != "" {
		who = "job " + job
		if runID != 0 {
			who += fmt.Sprintf(" (run %d)", runID)
		}
	}
	verb := "ended with breaks"
	if outcome != OutcomeBreaks {
		verb = outcome
	}
	if outcome == OutcomeMissed {
		n.Text = fmt.Sprintf("svcrecon %s missed: %s (recorded %s", who, n.Headline, finished.Format(time.RFC3339))
	} else {
		n.Text = fmt.Sprintf("svcrecon %s %s: %s (took %s", who, verb, n.Headline,
			finished.Sub(started).Round(time.Second))
	}
	if host != "" {
		n.Text += ", on " + host
	}
	n.Text += ")"
	return n
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Notifier POSTs notices to a URL, retrying with back-off. Its zero value
// works. A notice that cannot be delivered is an error of Send: the caller
// logs it and never lets it change a run's outcome.
type Notifier struct {
	Client   *http.Client  // default: a client with DefaultNotifyTimeout
	Attempts int           // default DefaultNotifyAttempts
	Backoff  time.Duration // wait before the second attempt, doubled each time; default DefaultNotifyBackoff
	// Sleep waits d or until ctx is done (tests inject one that does not
	// wait); default a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Scrub removes secrets from every text of a notice (the client
	// secret, card and Aadhaar numbers); default none.
	Scrub func(string) string
	Log   *slog.Logger // default discard
}

// CheckURL checks a notification URL: absolute, http or https, with a
// host. Its error never quotes the URL (a webhook's URL is a secret).
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("want an http or https URL, not %q", u.Scheme)
	case u.Host == "":
		return errors.New("the URL has no host")
	}
	return nil
}

// Where is a URL as it may be logged: scheme and host (the path and query
// of a webhook carry its token).
func Where(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(bad URL)"
	}
	return u.Scheme + "://" + u.Host
}

// Send POSTs n as JSON to target. It retries a connection error, HTTP 429
// and 5xx, waiting Backoff, 2×Backoff, … between attempts; any other
// answer but 2xx is final. The error names the host, the attempts and the
// last answer, never the URL's path or query.
func (nt *Notifier) Send(ctx context.Context, target string, n Notice) error {
	if err := CheckURL(target); err != nil {
		return fmt.Errorf("notify %s: %w", Where(target), err)
	}
	if nt.Scrub != nil {
		n.Text, n.Headline, n.Summary, n.Error = nt.Scrub(n.Text), nt.Scrub(n.Headline), nt.Scrub(n.Summary), nt.Scrub(n.Error)
	}
	body, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("notify %s: %w", Where(target), err)
	}
	client := nt.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultNotifyTimeout}
	}
	attempts := nt.Attempts
	if attempts <= 0 {
		attempts = DefaultNotifyAttempts
	}
	wait := nt.Backoff
	if wait <= 0 {
		wait = DefaultNotifyBackoff
	}
	sleep := nt.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	log := nt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var last error
	for i := 1; i <= attempts; i++ {
		retry, err := post(ctx, client, target, body)
		if err == nil {
			log.Info("notification sent", "to", Where(target), "outcome", n.Outcome, "attempts", i)
			return nil
		}
		last = err
		if !retry || i == attempts {
			break
		}
		log.Warn("notification not delivered, retrying", "to", Where(target), "attempt", i, "wait", wait.String(), "error", err.Error())
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("notify %s: %w (after %d attempts: %v)", Where(target), err, i, last)
		}
		wait *= 2
	}
	return fmt.Errorf("notify %s: %w", Where(target), last)
}

// post makes one attempt; retry says whether another may succeed.
func post(ctx context.Context, client *http.Client, target string, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return false, errors.New("cannot build the request")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		// *url.Error quotes the whole URL: keep only what went wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return true, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) //nolint:errcheck
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return true, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return false, fmt.Errorf("HTTP %d (not retried)", resp.StatusCode)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
