package ledger

import (
	"sort"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The pool stage (design: arithmetic, chain) takes the period's calls in
// (ts, id) order, resolved (load stage): each pool object is checked
// (opening − amount = closing, arithmetic.go), and the balances of each
// pool account are chained over the period second by second, the debits
// of one second ordered so that the chain links (chain.go). It counts the
// calls and hands on, for each call that will have a row (a debit, or a
// pending call), what the later stages need of it.

// kcall is a call the results need: one carrying a pool debit, or pending.
// It lives until its second ends.
type kcall struct {
	id      int64
	ts      int64
	ref     string
	orderID string
	op      string
	account string          // the pool account's name
	amount  decimal.Decimal // pool amount; zero for pending calls
	money   string          // amount as recon.Money writes it
	rec     *wrec           // its record (the matching stage's), nil for none
	pending bool
	skip    bool // the same debit logged twice (same orderid, same second)
}

// poolStage is the pool stage.
type poolStage struct {
	accts       *accounts
	defaultAcct uint16 // the account of a debit that names none
	chain       *chain
	ops         map[string]string // operation names, interned
	n           int32             // calls of the current second taken

	calls, failed, pending int
}

// newPoolStage starts the pool stage; named are the pool accounts the
// period's calls name (the load stage's): a debit that names none is the
// only one's, when there is one.
func newPoolStage(named []string) *poolStage {
	s := &poolStage{accts: newAccounts(), chain: newChain(), ops: map[string]string{}}
	s.defaultAcct = s.accts.id("")
	if len(named) == 1 {
		s.defaultAcct = s.accts.id(named[0])
	}
	return s
}

// take takes the next call, at second t (resolved, in (ts, id) order, the
// seconds ended by endSecond). ok is false for a call no row needs (no
// debit, not pending); brk is the call's arithmetic break. The error is
// for a pool balance that is no exact decimal.
func (s *poolStage) take(c *recon.Call, t int64) (k kcall, ok bool, brk *Break, err error) {
	s.calls++
	debit := c.Debit()
	switch c.Outcome {
	case recon.CallFailed:
		s.failed++
	case recon.CallPending:
		s.pending++
	}
	if !debit && c.Outcome != recon.CallPending {
		return kcall{}, false, nil, nil
	}
	op, seen := s.ops[c.Operation]
	if !seen {
		op = c.Operation
		s.ops[op] = op
	}
	k = kcall{id: c.ID, ts: t, ref: c.ExternalRef, orderID: c.OrderID, op: op, pending: !debit}
	if debit {
		acct := s.defaultAcct
		if c.Pool.Account != "" {
			acct = s.accts.id(c.Pool.Account)
		}
		k.account = s.accts.names[acct]
		var opening, closing decimal.Decimal
		if opening, k.amount, closing, brk, err = arithmetic(c, k.account); err != nil {
			return kcall{}, false, nil, err
		}
		k.money = moneyText(c.Pool.Amount, k.amount)
		s.chain.add(chainItem{call: s.n, id: c.ID, ts: t, ref: k.ref, orderID: k.orderID,
			acct: acct, opening: opening, amount: k.amount, closing: closing})
	}
	s.n++
	return k, true, brk, nil
}

// endSecond ends the current second: its debits are chained. It returns
// the calls that are a debit logged twice (by their place among the calls
// take returned ok for in the second), not counted, and the links of the
// chain that do not hold. Both are valid until the next call.
func (s *poolStage) endSecond() (skipped []int32, gaps []gapCand) {
	c := s.chain
	c.skipped, c.gaps = c.skipped[:0], c.gaps[:0]
	c.flush()
	s.calls -= len(c.skipped)
	for i := range c.gaps {
		c.gaps[i].account = s.accts.names[c.gaps[i].acct]
	}
	s.n = 0
	return c.skipped, c.gaps
}

// floor is the earliest time a link of the chain found from now on may
// start, when the next second is t (math.MaxInt64: none): a gap starts at
// a debit at least as late as each account's last one.
func (s *poolStage) floor(t int64) int64 {
	for _, st := range s.chain.states {
		if st.have {
			t = min(t, st.prev.ts)
		}
	}
	return t
}

// fill puts the stage's counts in sm: the calls, and each pool account's
// chain, by account.
func (s *poolStage) fill(sm *recon.Summary) {
	sm.Calls, sm.CallsFailed, sm.CallsPending = s.calls, s.failed, s.pending
	debited := decimal.Zero
	sm.Pools = []recon.PoolSummary{}
	for _, st := range s.chain.states {
		sm.CallsWithDebit += st.calls
		debited = debited.Add(st.debited)
	}
	sm.Debited = recon.Money(debited)
	accts := make([]uint16, 0, len(s.chain.states))
	for a := range s.chain.states {
		accts = append(accts, a)
	}
	sort.Slice(accts, func(i, j int) bool { return s.accts.names[accts[i]] < s.accts.names[accts[j]] })
	for _, a := range accts {
		st := s.chain.states[a]
		sm.Pools = append(sm.Pools, recon.PoolSummary{Account: s.accts.names[a], Opening: recon.Money(st.opening),
			Closing: recon.Money(st.closing), Calls: st.calls, Debited: recon.Money(st.debited)})
	}
}

// accounts numbers the pool accounts a check meets, in order of meeting.
type accounts struct {
	names []string
	idx   map[string]uint16
}

func newAccounts() *accounts { return &accounts{idx: map[string]uint16{}} }

// id returns the number of account name, numbering it when it is new.
func (a *accounts) id(name string) uint16 {
	if i, ok := a.idx[name]; ok {
		return i
	}
	a.names = append(a.names, name)
	i := uint16(len(a.names) - 1)
	a.idx[name] = i
	return i
}
