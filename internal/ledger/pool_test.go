package ledger

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

func pool(opening, amount, closing string) recon.PoolEntry {
	return recon.PoolEntry{Shape: "A", Opening: opening, Amount: amount, Closing: closing}
}

func TestArithmeticPass(t *testing.T) {
	for _, tt := range []struct {
		name    string
		pool    recon.PoolEntry
		delta   string // "" = no break
		wantErr bool
	}{
		{"adds up exactly", pool("0.3", "0.1", "0.2"), "", false},
		{"zero amount", pool("100.00", "0.00", "100.00"), "", false},
		{"a credit", pool("100", "-5.50", "105.50"), "", false},
		{"off by a rupee", pool("100.00", "10.00", "89.00"), "1.00", false},
		{"off by a paisa the other way", pool("0.30", "0.10", "0.21"), "-0.01", false},
		{"not a number", pool("100", "ten", "90"), "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := recon.Call{ID: 7, TS: "2026-11-21 10:00:00", ExternalRef: "R", Pool: tt.pool, Outcome: recon.CallSuccess}
			_, _, _, brk, err := arithmetic(&c, "P1")
			if (err != nil) != tt.wantErr {
				t.Fatalf("arithmetic(%+v) error = %v, want error %v", tt.pool, err, tt.wantErr)
			}
			switch {
			case tt.delta == "" && brk != nil:
				t.Errorf("arithmetic(%+v) = %+v, want no break", tt.pool, brk)
			case tt.delta != "" && (brk == nil || recon.Money(brk.Delta) != tt.delta || brk.Kind != recon.BreakArithmetic || brk.CallID != 7):
				t.Errorf("arithmetic(%+v) = %+v, want an arithmetic break of delta %s", tt.pool, brk, tt.delta)
			}
		})
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// debit is a chain item of call i at second ts of account acct.
func debit(i int32, ts int64, acct uint16, orderID, opening, amount, closing string) chainItem {
	return chainItem{call: i, id: int64(i) + 1, ts: ts, acct: acct, orderID: orderID, ref: "R" + orderID,
		opening: dec(opening), amount: dec(amount), closing: dec(closing)}
}

func TestChainPass(t *testing.T) {
	type gap struct {
		prev, cur int64
		delta     string
	}
	for _, tt := range []struct {
		name    string
		items   []chainItem
		gaps    []gap
		skipped []int32
		calls   map[uint16]int
	}{
		{name: "links", items: []chainItem{debit(0, 1, 0, "A", "100", "10", "90"), debit(1, 5, 0, "B", "90", "10", "80")},
			calls: map[uint16]int{0: 2}},
		{name: "same second out of order links", items: []chainItem{
			debit(0, 1, 0, "A", "100", "10", "90"), debit(1, 2, 0, "C", "80", "5", "75"),
			debit(2, 2, 0, "B", "90", "10", "80"), debit(3, 3, 0, "D", "75", "5", "70")},
			calls: map[uint16]int{0: 4}},
		{name: "same second at the start: the head goes first", items: []chainItem{
			debit(0, 1, 0, "B", "90", "10", "80"), debit(1, 1, 0, "A", "100", "10", "90")},
			calls: map[uint16]int{0: 2}},
		{name: "a gap", items: []chainItem{debit(0, 1, 0, "A", "100", "10", "90"), debit(1, 9, 0, "B", "87", "10", "77")},
			gaps: []gap{{1, 2, "3.00"}}, calls: map[uint16]int{0: 2}},
		{name: "accounts chain apart", items: []chainItem{
			debit(0, 1, 1, "A", "100", "10", "90"), debit(1, 2, 2, "B", "500", "10", "490"), debit(2, 3, 1, "C", "90", "10", "80")},
			calls: map[uint16]int{1: 2, 2: 1}},
		{name: "the same debit twice in a second counts once", items: []chainItem{
			debit(0, 1, 0, "A", "100", "10", "90"), debit(1, 1, 0, "A", "100", "10", "90"), debit(2, 4, 0, "B", "90", "10", "80")},
			skipped: []int32{1}, calls: map[uint16]int{0: 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newChain()
			for _, it := range tt.items {
				c.add(it)
			}
			c.flush()
			var got []gap
			for _, g := range c.gaps {
				got = append(got, gap{g.prevID, g.curID, recon.Money(g.delta)})
			}
			if !slices.Equal(got, tt.gaps) {
				t.Errorf("gaps = %v, want %v", got, tt.gaps)
			}
			if !slices.Equal(c.skipped, tt.skipped) {
				t.Errorf("skipped = %v, want %v", c.skipped, tt.skipped)
			}
			for a, n := range tt.calls {
				if st := c.states[a]; st == nil || st.calls != n {
					t.Errorf("account %d: chain %+v, want %d calls", a, st, n)
				}
			}
		})
	}
}

// TestPoolStage: the calls are counted; a debit and a pending call are
// handed on, a failed call is not; a debit that names no pool account is
// the only named one's; the same debit logged twice in a second is
// counted once; a gap names its account; the summary has each account's
// chain.
func TestPoolStage(t *testing.T) {
	s := newPoolStage([]string{"P1"})
	named := func(acct string, p recon.PoolEntry) recon.PoolEntry { p.Account = acct; return p }
	calls := []recon.Call{
		{ID: 1, TS: "2026-11-21 10:00:00", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")},
		{ID: 2, TS: "2026-11-21 10:00:00", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")},
		{ID: 3, TS: "2026-11-21 10:00:00", ExternalRef: "P", Outcome: recon.CallPending},
		{ID: 4, TS: "2026-11-21 10:00:00", ExternalRef: "F", Outcome: recon.CallFailed},
		{ID: 5, TS: "2026-11-21 10:00:05", ExternalRef: "B", OrderID: "OB", Outcome: recon.CallSuccess, Pool: named("P1", pool("88", "10", "77"))},
	}
	var ks []kcall
	var breaks []*Break
	var skipped []int32
	var gaps []gapCand
	var floors []int64
	for i, c := range calls {
		t0, _ := parseTS(c.TS)
		if i == 4 {
			sk, g := s.endSecond()
			skipped, gaps = append(skipped, sk...), append(gaps, g...)
			floors = append(floors, s.floor(t0))
		}
		k, ok, brk, err := s.take(&c, t0)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			ks = append(ks, k)
		}
		breaks = append(breaks, brk)
	}
	sk, g := s.endSecond()
	skipped, gaps = append(skipped, sk...), append(gaps, g...)
	var got []string
	for _, k := range ks {
		got = append(got, k.account+"|"+k.money+"|"+k.op+"|"+k.ref)
	}
	if want := []string{"P1|10.00||A", "P1|10.00||A", "|||P", "P1|10.00||B"}; !slices.Equal(got, want) {
		t.Errorf("handed on %q, want %q", got, want)
	}
	if !slices.Equal(skipped, []int32{1}) || len(gaps) != 1 || gaps[0].account != "P1" || recon.Money(gaps[0].delta) != "2.00" {
		t.Errorf("skipped %v, gaps %+v; want the second call, and a gap of 2.00 on P1", skipped, gaps)
	}
	if breaks[4] == nil || recon.Money(breaks[4].Delta) != "1.00" || breaks[4].PoolAccount != "P1" {
		t.Errorf("breaks %v, want call 5's arithmetic break of 1.00", breaks)
	}
	start, _ := parseTS("2026-11-21 10:00:00")
	if !slices.Equal(floors, []int64{start}) {
		t.Errorf("floor before the second second = %v, want the first debit's time %d", floors, start)
	}
	var sm recon.Summary
	s.fill(&sm)
	wantPools := []recon.PoolSummary{{Account: "P1", Opening: "100.00", Closing: "77.00", Calls: 2, Debited: "20.00"}}
	if sm.Calls != 4 || sm.CallsPending != 1 || sm.CallsFailed != 1 || sm.CallsWithDebit != 2 || sm.Debited != "20.00" ||
		!slices.Equal(sm.Pools, wantPools) {
		t.Errorf("summary %+v, want 4 calls (one counted once), 1 pending, 1 failed, 2 debits of 20.00 in pools %+v", sm, wantPools)
	}
	if _, _, _, err := s.take(&recon.Call{ID: 6, Outcome: recon.CallSuccess, Pool: pool("1", "x", "1")}, start); err == nil {
		t.Error("a pool amount that is no decimal: no error")
	}
}

// TestBusySecond: a busy second (more than busySecond debits of one
// account) is ordered through indexes as the pairwise comparison orders
// it: the same debits, in the same order, on random seconds whose balances
// repeat, loop back and fail to link (with or without a chain before,
// linking or not).
func TestBusySecond(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bal := []string{"100", "100.0", "90", "80", "70.00", "60", "50", "40", "30"}
	for n := range 400 {
		size := 1 + rng.IntN(60)
		var rest []chainItem
		for i := range size {
			o, c := bal[rng.IntN(len(bal))], bal[rng.IntN(len(bal))]
			if rng.IntN(3) == 0 && i > 0 { // a debit linking to the one before
				o = rest[i-1].closing.String()
			}
			rest = append(rest, debit(int32(i), 1, 0, fmt.Sprint(i), o, "10", c))
		}
		var st chainState
		if n%3 != 0 {
			st.have, st.prev.closing = true, dec(bal[rng.IntN(len(bal))])
		}
		order := func(picks func([]chainItem, *chainState, func(chainItem))) []int32 {
			s := st
			var got []int32
			picks(slices.Clone(rest), &s, func(it chainItem) {
				got = append(got, it.call)
				s.have, s.prev = true, it
			})
			return got
		}
		want, got := order(secondOrder), order(busyOrder)
		if !slices.Equal(got, want) {
			t.Fatalf("second %d (%d debits): busyOrder %v, secondOrder %v", n, size, got, want)
		}
	}
}

// TestBusySecondLinear: a second of 50,000 debits that do not link (each
// pick then looks for the head of the rest) is ordered at once.
func TestBusySecondLinear(t *testing.T) {
	c := newChain()
	for i := range 50_000 {
		v := fmt.Sprint(1_000_000 - 2*i)
		c.add(debit(int32(i), 7, 0, fmt.Sprint(i), v, "1", v))
	}
	c.flush()
	if st := c.states[0]; st.calls != 50_000 || len(c.gaps) != 49_999 {
		t.Fatalf("calls %d, gaps %d", st.calls, len(c.gaps))
	}
}
