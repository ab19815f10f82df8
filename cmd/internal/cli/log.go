package cli

import (
	"context"
	"io"
	"log/slog"
)

type logAttrsKey struct{}

// WithLogAttrs returns a context whose commands log these attributes on every
// line (the scheduler adds the job name and run id).
func WithLogAttrs(ctx context.Context, args ...any) context.Context {
	prev, _ := ctx.Value(logAttrsKey{}).([]any)
	return context.WithValue(ctx, logAttrsKey{}, append(append([]any{}, prev...), args...))
}

// Logger builds the slog logger the flags ask for, writing to w, with the
// attributes of WithLogAttrs. A bad --log-level or --log-format is a
// *UsageError.
func (c *Common) Logger(ctx context.Context, w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, Usagef("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler
	switch c.LogFormat {
	case "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, Usagef("--log-format %q: want text or json", c.LogFormat)
	}
	log := slog.New(h)
	if attrs, _ := ctx.Value(logAttrsKey{}).([]any); len(attrs) > 0 {
		log = log.With(attrs...)
	}
	return log, nil
}
