package ledger

import (
	"github.com/shopspring/decimal"
)

// chainItem is one pool debit as the chain sees it.
type chainItem struct {
	call                     int32 // index of the call in its second's calls
	id                       int64 // calls.id
	ts                       int64
	ref, orderID             string
	acct                     uint16
	opening, amount, closing decimal.Decimal
}

// chainState is the chain of one pool account so far.
type chainState struct {
	have             bool
	prev             chainItem
	opening, closing decimal.Decimal
	calls            int
	debited          decimal.Decimal
}

// gapCand is a link of a chain that does not hold: the previous debit's
// closing is not this debit's opening.
type gapCand struct {
	acct             uint16
	account          string // the pool account's name (poolStage.endSecond)
	prevID, curID    int64
	ref              string // the current debit's externalRef
	from, to         int64  // the previous and the current debit's times
	expected, actual decimal.Decimal
	delta            decimal.Decimal
}

// chain follows the balance of each pool account over the debits given in
// time order (add): each debit's opening should be the previous debit's
// closing. Within one second the debits are ordered so that the chain
// links. The same debit logged twice in one second (same orderid and
// account) is counted once: its call is listed in skipped.
type chain struct {
	states  map[uint16]*chainState
	group   []chainItem
	groupTS int64
	gaps    []gapCand
	skipped []int32
}

func newChain() *chain { return &chain{states: map[uint16]*chainState{}, groupTS: -1} }

// add takes the next debit; debits come in time order.
func (c *chain) add(it chainItem) {
	if it.ts != c.groupTS {
		c.flush()
		c.groupTS = it.ts
	}
	c.group = append(c.group, it)
}

func (c *chain) state(a uint16) *chainState {
	st := c.states[a]
	if st == nil {
		st = &chainState{}
		c.states[a] = st
	}
	return st
}

// flush chains the debits of one second, per pool account, ordered so
// that the chain links: greedily the first debit whose opening is the
// running closing; when none is, the debit whose opening is no other
// remaining debit's closing (the head of the second's own chain), else the
// first.
func (c *chain) flush() {
	group := c.group
	c.group = c.group[:0]
	if len(group) == 0 {
		return
	}
	// The same debit logged twice (svcrecon's own record and a client's line).
	items := make([]chainItem, 0, len(group))
	for _, it := range group {
		dup := false
		for _, p := range items {
			if it.orderID != "" && p.orderID == it.orderID && p.acct == it.acct {
				dup = true
				break
			}
		}
		if dup {
			c.skipped = append(c.skipped, it.call)
			continue
		}
		items = append(items, it)
	}
	byAcct := map[uint16][]chainItem{}
	var order []uint16
	for _, it := range items {
		if _, ok := byAcct[it.acct]; !ok {
			order = append(order, it.acct)
		}
		byAcct[it.acct] = append(byAcct[it.acct], it)
	}
	for _, a := range order {
		st := c.state(a)
		rest := byAcct[a]
		for len(rest) > 0 {
			pick := -1
			if st.have {
				for i, it := range rest {
					if it.opening.Equal(st.prev.closing) {
						pick = i
						break
					}
				}
			}
			if pick < 0 {
				// Nothing links (a gap before this second): start with
				// the debit that no other debit of the second leads to.
				pick = chainHead(rest)
			}
			it := rest[pick]
			rest = append(rest[:pick:pick], rest[pick+1:]...)
			c.link(a, st, it)
		}
	}
}

// chainHead picks the first debit of a chain inside one second: the one
// whose opening is no other debit's closing (the first on a tie).
func chainHead(items []chainItem) int {
	for i, it := range items {
		head := true
		for j, o := range items {
			if i != j && o.closing.Equal(it.opening) {
				head = false
				break
			}
		}
		if head {
			return i
		}
	}
	return 0
}

func (c *chain) link(a uint16, st *chainState, it chainItem) {
	if !st.have {
		st.have, st.opening = true, it.opening
	} else if d := st.prev.closing.Sub(it.opening); !d.IsZero() {
		c.gaps = append(c.gaps, gapCand{acct: a, prevID: st.prev.id, curID: it.id, ref: it.ref,
			from: st.prev.ts, to: it.ts, expected: st.prev.closing, actual: it.opening, delta: d})
	}
	st.prev, st.closing = it, it.closing
	st.calls++
	st.debited = st.debited.Add(it.amount)
}
