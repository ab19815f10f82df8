package ledger

import (
	"fmt"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// callPass is the one pass over the period's calls in time order: it
// resolves pending calls, counts, links each call to its statement record,
// checks each pool object's arithmetic and feeds the debits to the chain.
type callPass struct {
	book        *book
	accts       *accounts
	defaultAcct uint16 // the account of a debit that names none
	resolved    map[int64]resolution
	chain       *chain
	calls       []kcall // debits and pending calls
	arith       []Break
	ops         map[string]string // interned operation names

	nCalls, nFailed, nPending int
}

// newCallPass starts the pass. named are the pool accounts the period's
// calls name: a debit that names none belongs to the only one, if there is
// only one, else to the account "".
func newCallPass(b *book, named []string, resolved map[int64]resolution) *callPass {
	p := &callPass{book: b, accts: b.accts, resolved: resolved, chain: newChain(), ops: map[string]string{}}
	p.defaultAcct = p.accts.id("")
	if len(named) == 1 {
		p.defaultAcct = p.accts.id(named[0])
	}
	return p
}

// add takes the next call, in (ts, id) order. The error is for a bad
// timestamp or pool balance.
func (p *callPass) add(c recon.Call) error {
	t, err := parseTS(c.TS)
	if err != nil {
		return fmt.Errorf("call %d: %w", c.ID, err)
	}
	if r, ok := p.resolved[c.ID]; ok && c.Outcome == recon.CallPending {
		r.apply(&c) // resolve.go: what became of it
	}
	p.nCalls++
	debit := c.Debit()
	switch c.Outcome {
	case recon.CallFailed:
		p.nFailed++
	case recon.CallPending:
		p.nPending++
	}
	ri := p.book.link(c.OrderID, c.ExternalRef)
	p.book.mark(ri, debit, c.Outcome == recon.CallPending)
	if !debit && c.Outcome != recon.CallPending {
		return nil
	}
	op, ok := p.ops[c.Operation]
	if !ok {
		op = c.Operation
		p.ops[op] = op
	}
	k := kcall{id: c.ID, ts: t, ref: c.ExternalRef, orderID: c.OrderID, op: op, rec: ri, pending: !debit}
	if debit {
		k.acct = p.defaultAcct
		if c.Pool.Account != "" {
			k.acct = p.accts.id(c.Pool.Account)
		}
		opening, amount, closing, brk, err := arithmetic(&c, p.accts.names[k.acct])
		if err != nil {
			return err
		}
		if brk != nil {
			p.arith = append(p.arith, *brk)
		}
		k.amount = amount
		p.chain.add(chainItem{call: int32(len(p.calls)), id: c.ID, ts: t, ref: k.ref, orderID: k.orderID,
			acct: k.acct, opening: opening, amount: amount, closing: closing})
	}
	p.calls = append(p.calls, k)
	return nil
}

// close ends the pass: the last second is chained, and a debit logged
// twice counts once.
func (p *callPass) close() {
	p.chain.flush()
	for _, i := range p.chain.skipped {
		p.calls[i].skip = true
		p.nCalls--
	}
}
