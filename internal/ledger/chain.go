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
	items   []chainItem // flush's, kept from second to second
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
// first. A second of a few debits is ordered by comparing them pairwise
// (secondOrder); a busy one (a bulk run, a burst: thousands of debits in
// one second) through indexes of the balances (busyOrder), which picks the
// same order in time linear in the debits.
func (c *chain) flush() {
	group := c.group
	c.group = c.group[:0]
	if len(group) == 0 {
		return
	}
	items := c.distinct(group)
	if oneAccount(items) { // nearly every second: no map
		c.chainSecond(items[0].acct, items)
		return
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
		c.chainSecond(a, byAcct[a])
	}
}

// oneAccount reports whether items (at least one) are all of one account.
func oneAccount(items []chainItem) bool {
	for _, it := range items[1:] {
		if it.acct != items[0].acct {
			return false
		}
	}
	return true
}

// chainSecond links the debits rest of account a in one second (flush),
// reordering rest in place.
func (c *chain) chainSecond(a uint16, rest []chainItem) {
	st := c.state(a)
	picks := secondOrder
	if len(rest) > busySecond {
		picks = busyOrder
	}
	picks(rest, st, func(it chainItem) { c.link(a, st, it) })
}

// busySecond is how many debits of one account in one second are ordered
// pairwise (secondOrder); more go through indexes (busyOrder).
const busySecond = 16

// distinct returns the debits of group but the same debit logged twice
// (svcrecon's own record and a client's line: the same orderid and
// account), whose calls it lists in c.skipped. What it returns is c.items,
// valid until the next call.
func (c *chain) distinct(group []chainItem) []chainItem {
	type key struct {
		acct    uint16
		orderID string
	}
	var seen map[key]bool
	if len(group) > busySecond {
		seen = make(map[key]bool, len(group))
	}
	items := c.items[:0]
	for _, it := range group {
		dup := false
		switch {
		case it.orderID == "":
		case seen != nil:
			k := key{it.acct, it.orderID}
			dup = seen[k]
			seen[k] = true
		default:
			for _, p := range items {
				if p.orderID == it.orderID && p.acct == it.acct {
					dup = true
					break
				}
			}
		}
		if dup {
			c.skipped = append(c.skipped, it.call)
			continue
		}
		items = append(items, it)
	}
	c.items = items
	return items
}

// secondOrder hands the debits of one account in one second to link in
// chain order (see flush), comparing them pairwise.
func secondOrder(rest []chainItem, st *chainState, link func(chainItem)) {
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
		rest = append(rest[:pick], rest[pick+1:]...)
		link(it)
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

// busyOrder is secondOrder through indexes of the balances: the debits by
// opening (the first left of each, for the one the running closing links
// to), the count of those left by closing, and the heads (a debit whose
// opening no other debit left closes) by place. A debit becomes a head
// once, when the last other debit closing to its opening is picked. Each
// debit is thus indexed, found and picked a bounded number of times.
func busyOrder(rest []chainItem, st *chainState, link func(chainItem)) {
	n := len(rest)
	open, closing := make([]string, n), make([]string, n)
	byOpen := map[string][]int{}
	left := map[string]int{} // debits left by closing
	for i := range rest {
		open[i], closing[i] = rest[i].opening.String(), rest[i].closing.String()
		byOpen[open[i]] = append(byOpen[open[i]], i)
		left[closing[i]]++
	}
	picked := make([]bool, n)
	heads := &indexHeap{}
	isHead := func(i int) bool {
		self := 0
		if closing[i] == open[i] {
			self = 1
		}
		return left[open[i]]-self == 0
	}
	for i := range rest {
		if isHead(i) {
			heads.push(i)
		}
	}
	firstLeft := 0
	for range n {
		pick := -1
		if st.have {
			key := st.prev.closing.String()
			for list := byOpen[key]; len(list) > 0; list = list[1:] {
				if !picked[list[0]] {
					pick = list[0]
					byOpen[key] = list
					break
				}
			}
		}
		for pick < 0 && heads.len() > 0 {
			if i := heads.pop(); !picked[i] {
				pick = i
			}
		}
		for pick < 0 {
			if !picked[firstLeft] {
				pick = firstLeft
			}
			firstLeft++
		}
		picked[pick] = true
		// One debit fewer closes to its closing: a debit opening there may
		// now be a head (when none is left, or the one left is itself).
		v := closing[pick]
		if left[v]--; left[v] <= 1 {
			for _, j := range byOpen[v] {
				if !picked[j] && isHead(j) {
					heads.push(j)
				}
			}
		}
		link(rest[pick])
	}
}

// indexHeap is a min-heap of places in a second's debits.
type indexHeap struct{ h []int }

func (q *indexHeap) len() int { return len(q.h) }

func (q *indexHeap) push(i int) {
	q.h = append(q.h, i)
	for j := len(q.h) - 1; j > 0; {
		p := (j - 1) / 2
		if q.h[p] <= q.h[j] {
			break
		}
		q.h[p], q.h[j] = q.h[j], q.h[p]
		j = p
	}
}

func (q *indexHeap) pop() int {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	for j := 0; ; {
		l, m := 2*j+1, j
		if l < len(q.h) && q.h[l] < q.h[m] {
			m = l
		}
		if r := l + 1; r < len(q.h) && q.h[r] < q.h[m] {
			m = r
		}
		if m == j {
			break
		}
		q.h[m], q.h[j] = q.h[j], q.h[m]
		j = m
	}
	return top
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
