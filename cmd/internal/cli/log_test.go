package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
)

// istTime matches a log time in IST with its offset, in either format.
var istTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+05:30$`)

// TestLoggerFormatsAndZone: --log-format and --log-level in any case;
// times in IST with the offset, in text and in JSON; a bad value is a
// usage error.
func TestLoggerFormatsAndZone(t *testing.T) {
	for _, format := range []string{"json", "JSON", "Json"} {
		var b bytes.Buffer
		log, err := (&Common{LogFormat: format, LogLevel: "INFO"}).Logger(context.Background(), &b)
		if err != nil {
			t.Fatalf("--log-format %s: %v", format, err)
		}
		log.Info("hello", "n", 1)
		recs := clitest.JSONLines(t, b.String())
		if len(recs) != 1 || recs[0]["msg"] != "hello" || !istTime.MatchString(recs[0]["time"].(string)) {
			t.Errorf("--log-format %s wrote %q, want one JSON line with an IST time", format, b.String())
		}
	}
	var b bytes.Buffer
	log, err := (&Common{LogFormat: "Text", LogLevel: "Warn"}).Logger(context.Background(), &b)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("quiet")
	log.Warn("loud")
	m := regexp.MustCompile(`^time=(\S+) level=WARN msg=loud\n$`).FindStringSubmatch(b.String())
	if m == nil || !istTime.MatchString(m[1]) {
		t.Errorf("--log-format Text --log-level Warn wrote %q, want one WARN line with an IST time", b.String())
	}
	for _, c := range []Common{{LogFormat: "xml", LogLevel: "info"}, {LogFormat: "json", LogLevel: "loud"}} {
		var ue *UsageError
		if _, err := c.Logger(context.Background(), io.Discard); !errors.As(err, &ue) {
			t.Errorf("Logger(%+v) = %v, want a usage error", c, err)
		}
	}
}

// TestLinesAndProgress: with text a command's lines for a person are plain
// and its progress bar may be drawn; with json, or under the scheduler's
// labels, each line is a log line (whatever --log-level) and the bar is
// never drawn (progress is logged).
func TestLinesAndProgress(t *testing.T) {
	ctx := context.Background()
	job := WithLogAttrs(ctx, "job", "nightly", "jobRun", 7)
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		format    string
		wantPlain bool
	}{
		{"text", ctx, "text", true},
		{"json", ctx, "JSON", false},
		{"text under the scheduler", job, "text", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Common{LogFormat: tc.format, LogLevel: "error"}
			var b bytes.Buffer
			log, err := c.Logger(tc.ctx, &b)
			if err != nil {
				t.Fatal(err)
			}
			w := c.Lines(tc.ctx, &b, log, slog.LevelWarn)
			io.WriteString(w, "calls.jsonl:12: not JSON\nnotice: ")
			io.WriteString(w, "two parts\n")
			got := b.String()
			switch {
			case tc.wantPlain && got != "calls.jsonl:12: not JSON\nnotice: two parts\n":
				t.Errorf("lines = %q, want them plain", got)
			case !tc.wantPlain && tc.format != "text":
				recs := clitest.JSONLines(t, got)
				if len(recs) != 2 || recs[0]["msg"] != "calls.jsonl:12: not JSON" || recs[0]["level"] != "WARN" || recs[1]["msg"] != "notice: two parts" {
					t.Errorf("lines = %q, want two WARN log lines (--log-level error does not hide them)", got)
				}
			case !tc.wantPlain && !strings.Contains(got, `level=WARN msg="calls.jsonl:12: not JSON" job=nightly jobRun=7`):
				t.Errorf("lines = %q, want log lines labelled with the job", got)
			}
			if _, plain := c.Progress(tc.ctx, os.Stderr).(*os.File); plain != tc.wantPlain {
				t.Errorf("Progress(os.Stderr) is the terminal: %v, want %v", plain, tc.wantPlain)
			}
		})
	}
}

// TestLineLoggerCloseLogsTheRest: a last line without a newline is logged
// by Close; blank lines are not logged.
func TestLineLoggerCloseLogsTheRest(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(newHandler(&b, FormatJSON, slog.LevelInfo))
	w := LineLogger(context.Background(), log, slog.LevelInfo, "stream", "stdout")
	io.WriteString(w, "first\n\n   \nlast")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := clitest.JSONLines(t, b.String())
	if len(recs) != 2 || recs[0]["msg"] != "first" || recs[1]["msg"] != "last" || recs[1]["stream"] != "stdout" {
		t.Errorf("logged %q, want first and last with stream=stdout", b.String())
	}
}

func TestFormatOf(t *testing.T) {
	for args, want := range map[string]string{
		"check --from x":                            "text",
		"check --log-format json":                   "json",
		"check -log-format=JSON --from x":           "json",
		"check --log-format json --log-format text": "text",
		"check --log-format xml":                    "text",
		"check -- --log-format json":                "text",
		"check --log-format":                        "text",
	} {
		if got := FormatOf(strings.Fields(args)); got != want {
			t.Errorf("FormatOf(%s) = %s, want %s", args, got, want)
		}
	}
}

// TestExitPrintsTheFormatAsked: the error a program ends with is one line:
// "error: …", or with --log-format json one JSON log line with its exit
// status; -h is exit 0 and prints nothing.
func TestExitPrintsTheFormatAsked(t *testing.T) {
	var b bytes.Buffer
	if code := Exit(Usagef("check: no database typo.db"), &b, "check", "--log-format", "json"); code != ExitUsage {
		t.Errorf("Exit = %d, want %d", code, ExitUsage)
	}
	recs := clitest.JSONLines(t, b.String())
	if len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["msg"] != "check: no database typo.db" || recs[0]["exit"] != float64(ExitUsage) ||
		!istTime.MatchString(recs[0]["time"].(string)) {
		t.Errorf("Exit wrote %q, want one JSON line: level ERROR, the error, exit 2, an IST time", b.String())
	}
	b.Reset()
	if code := Exit(&ExitError{Code: ExitFindings, Err: errors.New("breaks")}, &b, "check"); code != ExitFindings || b.String() != "error: breaks\n" {
		t.Errorf("Exit = %d, %q; want 3 and the plain line", code, b.String())
	}
	b.Reset()
	if code := Exit(flag.ErrHelp, &b, "--log-format", "json"); code != ExitOK || b.Len() != 0 {
		t.Errorf("Exit(ErrHelp) = %d, %q; want 0 and nothing", code, b.String())
	}
}

// TestNoticeTime: a notice in JSON carries the time, like the log's.
func TestNoticeTime(t *testing.T) {
	var b bytes.Buffer
	before := time.Now()
	Notice(&b, []string{"--log-format=json"}, slog.LevelWarn, "stopping", "signal", "interrupt")
	recs := clitest.JSONLines(t, b.String())
	if len(recs) != 1 || recs[0]["signal"] != "interrupt" || recs[0]["level"] != "WARN" {
		t.Fatalf("Notice wrote %q", b.String())
	}
	at, err := time.Parse(time.RFC3339Nano, recs[0]["time"].(string))
	if err != nil || at.Before(before.Truncate(time.Millisecond)) || !strings.HasSuffix(recs[0]["time"].(string), "+05:30") {
		t.Errorf("notice time %v (%v), want now in IST", recs[0]["time"], err)
	}
}
