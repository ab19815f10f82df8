package ledger

import (
	"context"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// recordSpan is how far in time, in seconds, from the call at hand the
// check keeps the period's statement records in memory: a call's record
// is posted within seconds of its answer, so nearly every link is found
// there. A record whose counterpart lies further away is found by key
// (finder); one that may still be linked by a later call stays in memory,
// deferred, until that call has passed.
const recordSpan = 15 * 60

// finder is the pass's point look-ups (Finder).
type finder interface {
	PeriodRecord(ctx context.Context, svcOrderID string) (Record, bool, error)
	PeriodRecordsByClient(ctx context.Context, clientOrderID string) ([]Record, error)
	LaterCalls(ctx context.Context, svcOrderID, clientOrderID, from string) (string, bool, error)
	OutsideCall(ctx context.Context, svcOrderID, clientOrderID string) (found, debit bool, err error)
	DebitBySvc(ctx context.Context, svcOrderID string) (Record, bool, error)
	DebitByClient(ctx context.Context, clientOrderID string) (Record, bool, error)
	Record(ctx context.Context, svcOrderID string) (Record, bool, error)
	RefCalls(ctx context.Context, ref string) ([]RefCall, error)
}

// sink is where the pass puts what it finds (RunWriter).
type sink interface {
	Break(Break)
	Match(Match)
	Reversal(Reversal)
	Unsettled(Unsettled)
	RewriteMatches(refs []string, rewrite func(Match) (Match, bool)) error
	Err() error
}

// passConfig is what the pass must know before the first call.
type passConfig struct {
	period
	span       int64 // recordSpan
	pairWindow time.Duration
	maxOrphans int // MaxOrphans unless set (tests)
}

// pass is one reconciliation pass: the period's calls in (ts, id) order,
// with the period's statement records streamed alongside in time order
// (recWindow). What it finds goes to out as it is found; it keeps the
// counts of the summary, the findings for the report, and the orphans (a
// call or record with no counterpart) until the end, where they are paired.
type pass struct {
	ctx  context.Context
	cfg  passConfig
	find finder
	out  sink

	pool *poolStage

	win     *recWindow
	group   []kcall // the calls of the current second
	groupTS int64
	tsText  string // the current call's ts
	lastTS  int64  // the second last formatted by fmtTS, and its text
	lastTxt string
	gaps    *gapLog
	dups    *duplicates
	// products are the productCodes the rows linking a call to its record
	// show for each operation (the pairing rule).
	products map[string]map[string]bool
	pairs    *suggester

	sum   passSums
	tally *tally
	revs  *reversals
}

// passSums are the summary's counts and totals.
type passSums struct {
	records  int
	credited decimal.Decimal
}

func newPass(ctx context.Context, cfg passConfig, find finder, out sink) *pass {
	p := &pass{ctx: ctx, cfg: cfg, find: find, out: out, pool: newPoolStage(cfg.named),
		groupTS: -1, products: map[string]map[string]bool{}}
	if p.cfg.span <= 0 {
		p.cfg.span = recordSpan
	}
	p.tally = newTally(out)
	p.revs = &reversals{ctx: ctx, find: find}
	p.gaps = &gapLog{recAccts: cfg.recAccts, emit: p.tally.brk}
	p.dups = newDuplicates(ctx, find, cfg.resolved)
	p.pairs = &suggester{max: cfg.maxOrphans, window: cfg.pairWindow, isDup: p.dups.isDup, emit: p.tally.match}
	return p
}

// run streams the calls through the pass, with the records alongside.
func (p *pass) run(calls iter.Seq2[recon.Call, error], records iter.Seq2[Record, error]) error {
	next, stop := iter.Pull2(records)
	defer stop()
	p.win = newRecWindow(p, next)
	for c, err := range calls {
		if err != nil {
			return fmt.Errorf("read calls: %w", err)
		}
		if err := p.call(c); err != nil {
			return err
		}
	}
	return p.end()
}

// call takes the next call, in (ts, id) order. The error is for a bad
// timestamp or pool balance, or a failed look-up.
func (p *pass) call(c recon.Call) error {
	t, err := parseTS(c.TS)
	if err != nil {
		return fmt.Errorf("call %d: %w", c.ID, err)
	}
	if t != p.groupTS {
		if err := p.flush(); err != nil {
			return err
		}
		p.groupTS = t
	}
	p.tsText = c.TS
	if err := p.win.advance(t); err != nil {
		return err
	}
	stored := c.Outcome
	if r, ok := p.cfg.resolved[c.ID]; ok && c.Outcome == recon.CallPending {
		r.apply(&c) // resolve.go: what became of it
	}
	rec, err := p.win.link(c.OrderID, c.ExternalRef, stored == recon.CallSuccess)
	if err != nil {
		return fmt.Errorf("call %d: %w", c.ID, err)
	}
	p.win.mark(rec, c.Debit(), c.Outcome == recon.CallPending)
	k, ok, brk, err := p.pool.take(&c, t)
	if err != nil || !ok {
		return err
	}
	if brk != nil {
		p.tally.brk(*brk)
	}
	k.rec = rec
	p.group = append(p.group, k)
	return nil
}

// gapFloor is the earliest a link of the chain found from now on may
// start.
func (p *pass) gapFloor() int64 {
	if p.groupTS < 0 {
		return p.pool.floor(math.MaxInt64)
	}
	return p.pool.floor(p.groupTS)
}

// fmtTS formats a time of the pass (the same second, over and over).
func (p *pass) fmtTS(v int64) string {
	if v != p.lastTS || p.lastTxt == "" {
		p.lastTS, p.lastTxt = v, fmtTS(v)
	}
	return p.lastTxt
}

// flush ends the current second: its debits are chained (a debit logged
// twice counts once), and its calls linked beyond the period where they
// were not, checked for duplicate debits and given their outcome.
func (p *pass) flush() error {
	skipped, gaps := p.pool.endSecond()
	for _, i := range skipped {
		p.group[i].skip = true
	}
	for _, g := range gaps {
		p.gaps.add(g)
	}
	for i := range p.group {
		k := &p.group[i]
		if k.skip {
			continue
		}
		if k.rec == nil {
			if err := p.linkOutside(k); err != nil {
				return err
			}
		}
		if !k.pending && k.ref != "" {
			if err := p.dups.seeDebit(k.ref); err != nil {
				return err
			}
		}
		p.callRow(k)
	}
	p.group = p.group[:0]
	return p.out.Err()
}

// linkOutside looks beyond the period for the record of a call that has
// none in it: by orderid, else by externalRef.
func (p *pass) linkOutside(k *kcall) error {
	var rec Record
	var ok bool
	var err error
	if k.orderID != "" {
		if rec, ok, err = p.find.DebitBySvc(p.ctx, k.orderID); err != nil {
			return err
		}
	}
	if !ok && k.ref != "" {
		if rec, ok, err = p.find.DebitByClient(p.ctx, k.ref); err != nil {
			return err
		}
	}
	if !ok {
		return nil
	}
	r, err := p.win.outside(rec)
	if err != nil {
		return err
	}
	k.rec = r
	p.win.mark(r, !k.pending, k.pending)
	return nil
}

// end ends the pass: the last second, the records after the last call,
// the gaps left, the duplicates found late, and the orphans, paired.
func (p *pass) end() error {
	if err := p.flush(); err != nil {
		return err
	}
	if err := p.win.drain(); err != nil {
		return err
	}
	p.gaps.resolve(nil, p.gapFloor(), true)
	fixes, err := p.dups.fixLate(p.out)
	if err != nil {
		return err
	}
	for _, f := range fixes {
		p.tally.replace(f.old, f.fixed, f.amount)
	}
	p.pairs.end(p.products, p.cfg.recAccts)
	return p.out.Err()
}
