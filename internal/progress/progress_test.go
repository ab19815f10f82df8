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

func TestBytesShowMiBAndLines(t *testing.T) {
	b := &Bar{label: "import-calls", start: time.Unix(0, 0), now: func() time.Time { return time.Unix(4, 0) }, quit: make(chan struct{})}
	b.SetUnit(Bytes)
	b.CountItems("lines")
	b.total.Store(40 << 20)
	b.Add(10 << 20)
	b.AddItems(12345)
	got := b.Line()
	for _, want := range []string{"import-calls", "10.0/40.0 MiB", "25%", "12345 lines", "2.5 MiB/s", "ETA 12s"} {
		if !strings.Contains(got, want) {
			t.Errorf("Line() = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "10485760") {
		t.Errorf("Line() = %q shows bytes, want MiB", got)
	}
	// With no total: the count so far, still in MiB.
	b.total.Store(0)
	if got := b.Line(); !strings.Contains(got, " 10.0 MiB, 12345 lines") {
		t.Errorf("Line() with no total = %q, want \"10.0 MiB, 12345 lines\"", got)
	}
}

func TestBytesLogLineNamesUnitAndLines(t *testing.T) {
	var logs bytes.Buffer
	b := New(nil, "import-calls", 2048, slog.New(slog.NewTextHandler(&logs, nil)))
	b.SetUnit(Bytes)
	b.CountItems("lines")
	b.Add(2048)
	b.AddItems(7)
	b.Done()
	for _, want := range []string{"done=2048", "unit=bytes", "lines=7", "final=true"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log = %q, want %q", logs.String(), want)
		}
	}
}
