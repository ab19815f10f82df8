package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestLineShowsCountRateAndETA(t *testing.T) {
	b := &Bar{label: "pages", start: time.Unix(0, 0), now: func() time.Time { return time.Unix(10, 0) }, quit: make(chan struct{})}
	b.total.Store(200)
	b.done.Store(50)
	got := b.Line()
	for _, want := range []string{"pages", "50/200", "25%", "5/s", "ETA 30s"} {
		if !strings.Contains(got, want) {
			t.Errorf("Line() = %q, want it to contain %q", got, want)
		}
	}
}

func TestNotATerminalLogsFinalLine(t *testing.T) {
	var logs bytes.Buffer
	var out bytes.Buffer
	b := New(&out, "records", 3, slog.New(slog.NewTextHandler(&logs, nil)))
	b.Add(3)
	b.Done()
	b.Done() // idempotent
	if out.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal writer, want nothing", out.String())
	}
	if !strings.Contains(logs.String(), "done=3") || !strings.Contains(logs.String(), "final=true") {
		t.Errorf("log = %q, want a final line with done=3", logs.String())
	}
}

func TestNilBarIsSafe(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.SetTotal(2)
	b.Done()
}
