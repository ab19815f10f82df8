package ledger

import (
	"cmp"
	"context"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// memStore runs the check's stages with no database: it is their load
// stage's store and their look-ups (over the calls and records it holds),
// and their writer (it keeps what they write).
type memStore struct {
	calls   []recon.Call  // the window's calls
	recs    []Record      // the period's statement records
	outside []Record      // records outside the period
	fail    error         // returned by every look-up when set
	timing  time.Duration // the timing window (0: none)

	matches   []Match
	breaks    []Break
	reversals []Reversal
	unsettled []Unsettled
	diffs     []Difference
	fees      []Fee
}

const memFrom, memTo = "2026-11-21 00:00:00", "2026-11-21 23:59:59"

func newMemStore(calls []recon.Call, recs, outside []Record) *memStore {
	m := &memStore{calls: slices.Clone(calls), recs: slices.Clone(recs), outside: outside}
	slices.SortStableFunc(m.calls, func(a, b recon.Call) int { return cmp.Or(strings.Compare(a.TS, b.TS), cmp.Compare(a.ID, b.ID)) })
	slices.SortStableFunc(m.recs, func(a, b Record) int {
		return cmp.Or(strings.Compare(a.TxnDateTime, b.TxnDateTime), strings.Compare(a.SvcOrderID, b.SvcOrderID))
	})
	for i := range m.recs {
		m.recs[i].ID = int64(i + 1)
	}
	return m
}

// runPass runs the stages over calls and records (and records outside
// the period) and returns what they stored.
func runPass(tb testing.TB, calls []recon.Call, recs, outside []Record) *memStore {
	tb.Helper()
	m := newMemStore(calls, recs, outside)
	if _, err := m.run(); err != nil {
		tb.Fatal(err)
	}
	return m
}

func (m *memStore) run() (*Report, error) {
	ctx := context.Background()
	per, err := loadPeriod(ctx, m, Window{From: memFrom, To: memTo}, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	p, err := runStages(ctx, &per, stageOptions{tol: Tolerances{PairWindow: DefaultPairWindow, Timing: m.timing}}, m, m,
		slices2(m.calls), slices2(m.recs))
	if err != nil {
		return nil, err
	}
	return summarize(Run{From: "2026-11-21", To: "2026-11-21", AsOf: "2026-11-21", Started: time.Now()},
		p.pool, p.match, p.pairs, p.tally), nil
}

// The load stage's reads (PeriodReader).

func (m *memStore) CheckStats(context.Context) error { return nil }

func (m *memStore) CheckPoolAccounts(context.Context, Window) ([]string, error) {
	var named []string
	for _, c := range m.calls {
		if c.Pool.Shape != "" && c.Pool.Account != "" && !slices.Contains(named, c.Pool.Account) {
			named = append(named, c.Pool.Account)
		}
	}
	return named, nil
}

func (m *memStore) CheckRecordAccounts(context.Context, Window) ([]string, error) {
	var accts []string
	for _, r := range m.recs {
		if !slices.Contains(accts, r.Account) {
			accts = append(accts, r.Account)
		}
	}
	return accts, nil
}

func (m *memStore) CheckResentPending(context.Context, Window) ([]int64, error) { return nil, nil }

func (m *memStore) CheckLookups(context.Context, Window, string) iter.Seq2[Lookup, error] {
	return slices2[Lookup](nil)
}

func (m *memStore) CheckOpenRefs(context.Context, Window) ([]string, error) {
	var refs []string
	for _, c := range m.calls {
		if c.Outcome != recon.CallSuccess && c.ExternalRef != "" && len(m.byClient(c.ExternalRef)) > 0 {
			refs = append(refs, c.ExternalRef)
		}
	}
	return refs, nil
}

func slices2[T any](s []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, v := range s {
			if !yield(v, nil) {
				return
			}
		}
	}
}

// inOrder returns the matching rows by time, calls before records.
func (m *memStore) inOrder() []Match {
	out := slices.Clone(m.matches)
	slices.SortStableFunc(out, func(a, b Match) int {
		return cmp.Or(strings.Compare(a.TS, b.TS), cmpBool(a.CallID == 0, b.CallID == 0))
	})
	return out
}

func (m *memStore) byClient(client string) []Record {
	var out []Record
	for _, r := range m.recs {
		if r.ClientOrderID == client {
			out = append(out, r)
		}
	}
	return out
}

func (m *memStore) PeriodRecord(_ context.Context, svc string) (Record, bool, error) {
	for i := len(m.recs) - 1; i >= 0; i-- {
		if m.recs[i].SvcOrderID == svc {
			return m.recs[i], true, m.fail
		}
	}
	return Record{}, false, m.fail
}

func (m *memStore) PeriodRecordsByClient(_ context.Context, client string) ([]Record, error) {
	return m.byClient(client), m.fail
}

func (m *memStore) LaterCalls(_ context.Context, svc, client, from string) (string, bool, error) {
	last, found := "", false
	for _, c := range m.calls {
		if c.TS >= from && (c.OrderID == svc || (client != "" && c.ExternalRef == client)) && c.TS > last {
			last, found = c.TS, true
		}
	}
	return last, found, m.fail
}

func (m *memStore) OutsideCall(context.Context, string, string) (bool, bool, error) {
	return false, false, m.fail
}

func (m *memStore) all() []Record { return append(slices.Clone(m.recs), m.outside...) }

func (m *memStore) DebitBySvc(_ context.Context, svc string) (Record, bool, error) {
	for _, r := range m.all() {
		if r.SvcOrderID == svc && strings.ToUpper(r.TxnMode) != "CR" {
			return r, true, m.fail
		}
	}
	return Record{}, false, m.fail
}

func (m *memStore) DebitByClient(_ context.Context, client string) (Record, bool, error) {
	for _, r := range m.all() {
		if r.ClientOrderID == client && strings.ToUpper(r.TxnMode) != "CR" {
			return r, true, m.fail
		}
	}
	return Record{}, false, m.fail
}

func (m *memStore) Record(_ context.Context, svc string) (Record, bool, error) {
	for _, r := range m.all() {
		if r.SvcOrderID == svc {
			return r, true, m.fail
		}
	}
	return Record{}, false, m.fail
}

func (m *memStore) RefCalls(_ context.Context, ref string) ([]RefCall, error) {
	var out []RefCall
	for _, c := range m.calls {
		if c.ExternalRef == ref {
			out = append(out, RefCall{ID: c.ID, TS: c.TS, Outcome: string(c.Outcome), Shape: c.Pool.Shape, OrderID: c.OrderID})
		}
	}
	return out, m.fail
}

func (m *memStore) RepeatedRefs(context.Context) iter.Seq2[string, error] {
	n := map[string]int{}
	for _, c := range m.calls {
		n[c.ExternalRef]++
	}
	return repeatedKeys(n)
}

func (m *memStore) RepeatedClients(context.Context) iter.Seq2[string, error] {
	n := map[string]int{}
	for _, r := range m.all() {
		n[r.ClientOrderID]++
	}
	return repeatedKeys(n)
}

func (m *memStore) Break(b Break)           { m.breaks = append(m.breaks, b) }
func (m *memStore) Match(x Match)           { m.matches = append(m.matches, x) }
func (m *memStore) Difference(d Difference) { m.diffs = append(m.diffs, d) }
func (m *memStore) Reversal(r Reversal)     { m.reversals = append(m.reversals, r) }
func (m *memStore) Unsettled(u Unsettled)   { m.unsettled = append(m.unsettled, u) }
func (m *memStore) Fee(f Fee)               { m.fees = append(m.fees, f) }
func (m *memStore) Err() error              { return nil }

func (m *memStore) RewriteMatches(refs []string, rewrite func(Match) (Match, bool)) error {
	for i := range m.matches {
		x := &m.matches[i]
		mine := x.CallID == 0 && slices.Contains(refs, x.ExternalRef) // a record's row
		for _, c := range m.calls {
			mine = mine || x.CallID != 0 && c.ID == x.CallID && slices.Contains(refs, c.ExternalRef)
		}
		if !mine {
			continue
		}
		if fixed, ok := rewrite(*x); ok {
			*x = fixed
		}
	}
	return nil
}

func (m *memStore) CheckEdges(_ context.Context, w Window) (Edges, error) {
	var e Edges
	for _, r := range m.outside {
		e.RecordsAfter = e.RecordsAfter || r.TxnDateTime > w.To
	}
	for _, c := range m.calls {
		e.CallsBefore = e.CallsBefore || c.TS < w.From
	}
	return e, nil
}
