// Package progress shows how far a long job is: a redrawn bar with rate and
// ETA on a terminal, and a plain log line every LogEvery elsewhere (cron,
// files, pipes), so that both a person and a log reader can follow it.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// LogEvery is how often a Bar writes a log line when not on a terminal.
var LogEvery = 10 * time.Second

// Unit is what a Bar counts.
type Unit int32

// Units.
const (
	Count Unit = iota // things: records, rows, pages (the default)
	Bytes             // bytes, shown in MiB
)

// Bar tracks the progress of one job. Its methods are safe for concurrent
// use; a nil *Bar does nothing.
type Bar struct {
	label string
	w     io.Writer // nil: log lines only
	log   *slog.Logger
	total atomic.Int64
	done  atomic.Int64
	unit  atomic.Int32
	items atomic.Int64 // a second count (lines of a file read by bytes)
	what  atomic.Pointer[string]
	start time.Time
	now   func() time.Time

	mu      sync.Mutex
	stopped bool
	tick    *time.Ticker
	quit    chan struct{}
}

// New starts a bar. When w is a terminal the bar is redrawn on it about four
// times a second; otherwise (or when w is nil) a line is logged to log every
// LogEvery. total may be 0 when unknown (SetTotal later).
func New(w io.Writer, label string, total int64, log *slog.Logger) *Bar {
	b := &Bar{label: label, log: log, start: time.Now(), now: time.Now, quit: make(chan struct{})}
	b.total.Store(total)
	if IsTerminal(w) {
		b.w = w
	}
	every := LogEvery
	if b.w != nil {
		every = 250 * time.Millisecond
	}
	b.tick = time.NewTicker(every)
	go b.loop()
	return b
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (b *Bar) loop() {
	for {
		select {
		case <-b.quit:
			return
		case <-b.tick.C:
			b.report(false)
		}
	}
}

// Add records n more units done.
func (b *Bar) Add(n int64) {
	if b != nil {
		b.done.Add(n)
	}
}

// SetTotal sets (or corrects) the expected total.
func (b *Bar) SetTotal(n int64) {
	if b != nil {
		b.total.Store(n)
	}
}

// SetUnit says what the bar counts (Count by default).
func (b *Bar) SetUnit(u Unit) {
	if b != nil {
		b.unit.Store(int32(u))
	}
}

// CountItems makes the bar show a second count besides its own, named
// what ("lines"), advanced by AddItems.
func (b *Bar) CountItems(what string) {
	if b != nil {
		b.what.Store(&what)
	}
}

// AddItems records n more items of the second count (CountItems).
func (b *Bar) AddItems(n int64) {
	if b != nil {
		b.items.Add(n)
	}
}

// Done stops the bar and writes its final state.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	b.stopped = true
	b.mu.Unlock()
	b.tick.Stop()
	close(b.quit)
	b.report(true)
}

// Line renders the bar's state as text: label, count (MiB for Bytes),
// percentage, the second count, rate, ETA and time spent.
func (b *Bar) Line() string {
	done, total := b.done.Load(), b.total.Load()
	el := b.now().Sub(b.start)
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	amount, unit := func(n int64) string { return fmt.Sprint(n) }, ""
	if Unit(b.unit.Load()) == Bytes {
		amount, unit = mib, " MiB"
	}
	var sb strings.Builder
	sb.WriteString(b.label)
	if total > 0 {
		pct := float64(done) / float64(total)
		pct = min(pct, 1)
		const width = 24
		fill := int(pct * width)
		fmt.Fprintf(&sb, " [%s%s] %s/%s%s %3.0f%%", strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
			amount(done), amount(total), unit, pct*100)
	} else {
		fmt.Fprintf(&sb, " %s%s", amount(done), unit)
	}
	if what := b.what.Load(); what != nil {
		fmt.Fprintf(&sb, ", %d %s", b.items.Load(), *what)
	}
	if unit != "" {
		fmt.Fprintf(&sb, " %s%s/s", mib(int64(rate)), unit)
	} else {
		fmt.Fprintf(&sb, " %.0f/s", rate)
	}
	if total > 0 && rate > 0 && done < total {
		eta := time.Duration(float64(total-done) / rate * float64(time.Second))
		fmt.Fprintf(&sb, " ETA %s", eta.Round(time.Second))
	}
	fmt.Fprintf(&sb, " (%s)", el.Round(time.Second))
	return sb.String()
}

// mib renders a byte count in MiB with one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }

func (b *Bar) report(final bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w != nil {
		end := ""
		if final {
			end = "\n"
		}
		fmt.Fprintf(b.w, "\r\033[K%s%s", b.Line(), end)
		return
	}
	if b.log != nil && (final || b.done.Load() > 0) {
		args := []any{"task", b.label, "done", b.done.Load(), "total", b.total.Load()}
		if Unit(b.unit.Load()) == Bytes {
			args = append(args, "unit", "bytes")
		}
		if what := b.what.Load(); what != nil {
			args = append(args, *what, b.items.Load())
		}
		b.log.Info("progress", append(args, "elapsed", b.now().Sub(b.start).Round(time.Second).String(), "final", final)...)
	}
}
