package ledger

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// fakePeriod is a PeriodReader over fixed answers; fail makes the step of
// that name fail.
type fakePeriod struct {
	named, recAccts, openRefs []string
	resent                    []int64
	lookups                   []Lookup
	fail                      string
	warn                      error // CheckStats's warning
}

var errFake = errors.New("boom")

func (f *fakePeriod) err(step string) error {
	if f.fail == step {
		return errFake
	}
	return nil
}

func (f *fakePeriod) CheckStats(context.Context) error {
	if f.warn != nil {
		return f.warn
	}
	return f.err("stats")
}
func (f *fakePeriod) CheckPoolAccounts(context.Context, Window) ([]string, error) {
	return f.named, f.err("pool")
}
func (f *fakePeriod) CheckRecordAccounts(context.Context, Window) ([]string, error) {
	return f.recAccts, f.err("records")
}
func (f *fakePeriod) CheckResentPending(context.Context, Window) ([]int64, error) {
	return f.resent, f.err("resent")
}
func (f *fakePeriod) CheckLookups(context.Context, Window, string) iter.Seq2[Lookup, error] {
	return func(yield func(Lookup, error) bool) {
		for _, l := range f.lookups {
			if !yield(l, nil) {
				return
			}
		}
		if err := f.err("lookups"); err != nil {
			yield(Lookup{}, err)
		}
	}
}
func (f *fakePeriod) CheckOpenRefs(context.Context, Window) ([]string, error) {
	return f.openRefs, f.err("open")
}

func (f *fakePeriod) CheckEdges(context.Context, Window) (Edges, error) {
	return Edges{RecordsAfter: true}, f.err("edges")
}

func TestLoadPeriod(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	f := &fakePeriod{named: []string{"P1"}, recAccts: []string{"A", "B"}, openRefs: []string{"R1"}, resent: []int64{9},
		lookups: []Lookup{answer(t, 4, "TXN")}}
	w := Window{From: memFrom, To: memTo}
	p, err := loadPeriod(context.Background(), f, w, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.named, []string{"P1"}) || !maps.Equal(p.recAccts, map[string]bool{"A": true, "B": true}) ||
		!maps.Equal(p.openRefs, map[string]bool{"R1": true}) || p.window.From != memFrom || !p.edges.RecordsAfter {
		t.Errorf("period = %+v", p)
	}
	if p.resolved[9].state != recon.CallFailed || !p.resolved[9].resent || p.resolved[4].state != recon.CallSuccess {
		t.Errorf("resolved = %+v, want 9 re-sent (failed) and 4 looked up executed", p.resolved)
	}
	if !maps.Equal(p.resolvedOrders, map[string]bool{"OTXN": true}) {
		t.Errorf("resolvedOrders = %v, want the look-up's orderid", p.resolvedOrders)
	}
	var logged strings.Builder
	f.warn = fmt.Errorf("refresh: %w", &Warning{Err: errors.New("statistics of calls are stale")})
	if _, err := loadPeriod(context.Background(), f, w, slog.New(slog.NewTextHandler(&logged, nil))); err != nil ||
		!strings.Contains(logged.String(), `level=WARN msg="statistics of calls are stale"`) {
		t.Errorf("a warning of CheckStats: %v, logged %q; want it logged, and the period read", err, logged.String())
	}
	f.warn = nil
	for step, name := range map[string]string{"stats": "refresh statistics", "pool": "read pool accounts",
		"records": "read record accounts", "resent": "resolve pending calls", "lookups": "resolve pending calls",
		"open": "read open externalRefs", "edges": "read the period's edges"} {
		f.fail = step
		if _, err := loadPeriod(context.Background(), f, w, quiet); !errors.Is(err, errFake) || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s failing: %v, want an error naming %q", step, err, name)
		}
	}
}
