package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler returns a slog handler that hands every record to h with its
// message and every text attribute (strings, errors, Stringers, anything
// whose printed form holds a secret) passed through s.Text: secrets
// removed, passwords and numbers masked, control characters escaped. Text
// handlers and JSON handlers alike then write only what may be shown.
func (s *Scrubber) Handler(h slog.Handler) slog.Handler { return &handler{h: h, s: s} }

type handler struct {
	h slog.Handler
	s *Scrubber
}

func (x *handler) Enabled(ctx context.Context, l slog.Level) bool { return x.h.Enabled(ctx, l) }

func (x *handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, x.s.Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(x.attr(a))
		return true
	})
	return x.h.Handle(ctx, out)
}

func (x *handler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = x.attr(a)
	}
	return &handler{h: x.h.WithAttrs(out), s: x.s}
}

func (x *handler) WithGroup(name string) slog.Handler {
	return &handler{h: x.h.WithGroup(name), s: x.s}
}

// attr is a with its text scrubbed.
func (x *handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, x.s.Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]slog.Attr, len(g))
		for i, ga := range g {
			out[i] = x.attr(ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		switch t := v.Any().(type) {
		case error:
			return slog.String(a.Key, x.s.Text(t.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, x.s.Text(t.String()))
		}
		// Other values keep their form unless what it prints needs a change.
		if txt := fmt.Sprintf("%+v", v.Any()); x.s.Text(txt) != txt {
			return slog.String(a.Key, x.s.Text(txt))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
