package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
)

// Everything a command writes to standard error goes through this file, so
// that --log-format holds on every path: with json, every line on stderr is
// one JSON object (log lines, the lines a command writes for a person, the
// error it ends with); with text, log lines are slog's text and the other
// lines are plain. Log times are IST with their offset, like every report.

// Log formats of --log-format (any case).
const (
	FormatText = "text"
	FormatJSON = "json"
)

// logZone is the time zone of the log's times: IST, the zone of every
// report.
var logZone = recon.IST

type logAttrsKey struct{}

// WithLogAttrs returns a context whose commands log these attributes on every
// line (the scheduler adds the job name and run id).
func WithLogAttrs(ctx context.Context, args ...any) context.Context {
	prev, _ := ctx.Value(logAttrsKey{}).([]any)
	return context.WithValue(ctx, logAttrsKey{}, append(append([]any{}, prev...), args...))
}

// labelled reports whether ctx carries WithLogAttrs attributes: the command
// runs as one of several (a job of the scheduler), and its lines must say
// whose they are.
func labelled(ctx context.Context) bool {
	attrs, _ := ctx.Value(logAttrsKey{}).([]any)
	return len(attrs) > 0
}

// Logger builds the slog logger the flags ask for, writing to w, with the
// attributes of WithLogAttrs. Every line goes through the command's
// Scrubber: secrets removed, numbers and URL passwords masked, control
// characters escaped. A bad --log-level or --log-format is a
// *UsageError.
func (c *Common) Logger(ctx context.Context, w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, Usagef("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	format, ok := logFormat(c.LogFormat)
	if !ok {
		return nil, Usagef("--log-format %q: want text or json", c.LogFormat)
	}
	log := slog.New(c.Scrubber().Handler(newHandler(w, format, lvl)))
	if attrs, _ := ctx.Value(logAttrsKey{}).([]any); len(attrs) > 0 {
		log = log.With(attrs...)
	}
	return log, nil
}

// logFormat is the format --log-format names, in any case.
func logFormat(s string) (string, bool) {
	switch f := strings.ToLower(strings.TrimSpace(s)); f {
	case FormatText, FormatJSON:
		return f, true
	}
	return "", false
}

// newHandler is the handler of every log line: text or json, times in
// logZone.
func newHandler(w io.Writer, format string, level slog.Leveler) slog.Handler {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 && a.Value.Kind() == slog.KindTime {
			a.Value = slog.TimeValue(a.Value.Time().In(logZone))
		}
		return a
	}}
	if format == FormatJSON {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// Lines returns where a command writes the lines it has for a person on
// standard error (a file's bad lines, a notice, which call is shown): w
// itself, plain, with --log-format text; else (json, or a command run by
// the scheduler, whose lines carry its job and run id) a writer that turns
// each line into a log line of log at level, whatever --log-level says.
func (c *Common) Lines(ctx context.Context, w io.Writer, log *slog.Logger, level slog.Level) io.Writer {
	if f, _ := logFormat(c.LogFormat); f != FormatJSON && !labelled(ctx) {
		return w
	}
	return LineLogger(ctx, log, level)
}

// Progress returns where a progress bar may be drawn: w with --log-format
// text; else (json, or a command run by the scheduler) a writer that is no
// terminal, so that progress is logged, every progress.LogEvery, instead of
// drawn.
func (c *Common) Progress(ctx context.Context, w io.Writer) io.Writer {
	if f, _ := logFormat(c.LogFormat); f != FormatJSON && !labelled(ctx) {
		return w
	}
	return struct{ io.Writer }{io.Discard}
}

// LineLogger returns a writer that logs each line written to it (without
// its newline; blank lines are dropped) as one log line of log at level,
// with attrs, whatever the logger's level: what is written is output, not
// chatter. A last line without a newline is logged by Close. Safe for
// concurrent use.
func LineLogger(ctx context.Context, log *slog.Logger, level slog.Level, attrs ...any) io.WriteCloser {
	return &lineLogger{ctx: ctx, log: log.With(attrs...), level: level}
}

type lineLogger struct {
	ctx   context.Context
	log   *slog.Logger
	level slog.Level
	mu    sync.Mutex
	buf   []byte
}

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := l.emit(string(l.buf[:i])); err != nil {
			return len(p), err
		}
		l.buf = l.buf[i+1:]
	}
}

// Close logs what is left after the last newline.
func (l *lineLogger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	rest := string(l.buf)
	l.buf = nil
	return l.emit(rest)
}

func (l *lineLogger) emit(line string) error {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return nil
	}
	r := slog.NewRecord(time.Now(), l.level, line, 0)
	return l.log.Handler().Handle(l.ctx, r)
}

// FormatOf is the --log-format that args (a command line after the program
// name) give, text unless they say json: the format of what a program
// writes on standard error before its flags are parsed, or after they
// failed to parse (Exit, Notice).
func FormatOf(args []string) string {
	format := FormatText
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "log-format" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		if f, ok := logFormat(value); ok {
			format = f
		}
	}
	return format
}

// Notice writes msg on w as one line: plain, or with --log-format json in
// args one JSON log line at level, with attrs. It is for what a program
// says outside a command's logger: its last error, a signal received. Like
// the logger's lines, msg is masked (card and Aadhaar numbers, URL
// passwords) and its control characters escaped (redact.Text).
func Notice(w io.Writer, args []string, level slog.Level, msg string, attrs ...any) {
	msg = redact.Text(msg)
	if FormatOf(args) != FormatJSON {
		fmt.Fprintln(w, msg)
		return
	}
	r := slog.NewRecord(time.Now(), level, msg, 0)
	r.Add(attrs...)
	newHandler(w, FormatJSON, slog.LevelDebug).Handle(context.Background(), r) //nolint:errcheck // stderr: nowhere else to say so
}
