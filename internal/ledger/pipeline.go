package ledger

import (
	"context"
	"fmt"
	"iter"
	"math"

	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// The pipeline wires the stages of a check, each in its file: the load
// stage's period (load.go) is known to all; the calls flow, second by
// second, through the pool stage (pool.go) and the matching stage
// (match.go), which streams the statement records alongside; each call
// with a row is checked against the duplicates stage (duplicates.go) and
// either written or held by the suggested-pairs stage (suggest.go); the
// records the matching stage finishes flow to the suggested-pairs,
// reversals (reversals.go) and gap (gaps.go) stages; every finding flows
// through the summary stage's tally (summary.go) to the run's writer.
// With a rate card, the fees stage (fees.go) then reads the period's
// debit records as a stream of their own (runFees), its findings through
// the tally too. A stage knows no other: it reads what earlier stages
// produced (values, the stream handed on, or a question answered for it,
// such as the duplicates stage's verdict on an externalRef), and what it
// finds goes where the pipeline sends it. Only the pipeline knows them all.

// stageOptions are the options of the stages.
type stageOptions struct {
	tol        Tolerances // the suggested pairs' and the timing window (PairWindow set)
	maxOrphans int        // MaxOrphans unless set
}

// lookups are the point look-ups the stages make (Finder).
type lookups interface {
	matchFinder
	reversalFinder
	dupFinder
}

// runWriter is where the findings go (RunWriter).
type runWriter interface {
	findingWriter
	rewriter
}

// pipeline is one check's stages, wired.
type pipeline struct {
	per   *period
	pool  *poolStage
	match *matcher
	dups  *duplicates
	pairs *suggester
	grps  *groups
	diffs *differ
	revs  *reversals
	gaps  *gapLog
	tally *tally
	out   runWriter

	group    []kcall // the calls of the current second with a row
	second   int64   // the current second; -1 before the first call
	draining bool    // the calls are done: the last records leave
}

// runStages runs the stages over the period's calls and statement records
// (two streams in time order) and returns them, done, for the summary.
func runStages(ctx context.Context, per *period, o stageOptions, find lookups, out runWriter,
	calls iter.Seq2[recon.Call, error], records iter.Seq2[Record, error]) (*pipeline, error) {
	next, stop := iter.Pull2(records)
	defer stop()
	dups, err := newDuplicates(ctx, find, per.resolved)
	if err != nil {
		return nil, err
	}
	p := &pipeline{per: per, pool: newPoolStage(per.named), dups: dups,
		revs: &reversals{ctx: ctx, find: find}, tally: newTally(out), out: out, second: -1}
	p.match = newMatcher(ctx, per, find, next, p)
	p.gaps = &gapLog{recAccts: per.recAccts, emit: p.tally.brk}
	p.pairs = &suggester{max: o.maxOrphans, tol: o.tol, isDup: p.dups.isDup, emit: p.tally.match,
		timing: newTimingRule(per.window, o.tol.Timing, per.edges)}
	p.diffs = newDiffer(o.tol.PairWindow, p.tally.difference)
	p.grps = &groups{max: o.maxOrphans, isDup: p.dups.isDup, emit: p.tally.match, compare: p.diffs.pair}
	live := newLiveness(ctx)
	p.match.win.live = live
	for c, err := range calls {
		if err != nil {
			return nil, fmt.Errorf("read calls: %w", err)
		}
		if err := live.check(); err != nil {
			return nil, err
		}
		if err := p.call(c); err != nil {
			return nil, err
		}
	}
	return p, p.end()
}

// liveness stops the stages' loops when their context is done (SIGTERM,
// Ctrl-C, a job's timeout): a stream that goes on regardless, or a long
// stretch of work on what was read, ends within liveEvery steps.
type liveness struct {
	done <-chan struct{}
	ctx  context.Context
	n    int
}

// liveEvery is how many steps pass between two looks at the context.
const liveEvery = 256

func newLiveness(ctx context.Context) *liveness { return &liveness{done: ctx.Done(), ctx: ctx} }

// check counts a step; every liveEvery steps it returns the context's
// error when it is done.
func (l *liveness) check() error {
	if l == nil {
		return nil
	}
	if l.n++; l.n < liveEvery {
		return nil
	}
	l.n = 0
	select {
	case <-l.done:
		return l.ctx.Err()
	default:
		return nil
	}
}

// call takes the next call, in (ts, id) order. The error is for a bad
// timestamp or pool balance, or a failed look-up.
func (p *pipeline) call(c recon.Call) error {
	t, err := parseTS(c.TS)
	if err != nil {
		return fmt.Errorf("call %d: %w", c.ID, err)
	}
	if t != p.second {
		if err := p.endSecond(); err != nil {
			return err
		}
		p.second = t
		if err := p.match.advance(t, c.TS); err != nil {
			return err
		}
		p.gaps.resolve(p.match.settled, p.floor(), false)
	}
	stored := p.per.resolve(&c)
	rec, err := p.match.link(&c, stored)
	if err != nil {
		return fmt.Errorf("call %d: %w", c.ID, err)
	}
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

// endSecond ends the current second: its debits are chained (a debit
// logged twice counts once), the gaps go to the gap stage, and each call
// gets its row.
func (p *pipeline) endSecond() error {
	skipped, gaps := p.pool.endSecond()
	for _, i := range skipped {
		p.group[i].skip = true
	}
	for _, g := range gaps {
		p.gaps.add(g)
	}
	for i := range p.group {
		if k := &p.group[i]; !k.skip {
			if err := p.row(k); err != nil {
				return err
			}
		}
	}
	p.group = p.group[:0]
	return p.out.Err()
}

// row gives a call its row: its record is looked for beyond the period
// when it has none in it, a debit is noted by the duplicates stage, and
// the row is held for the suggested pairs when it has no record (and its
// externalRef is not known twice), held for the groups when it may be a
// part of one, a duplicateDebit when its externalRef is known twice, and
// is written otherwise, compared field by field with its record by the
// differences stage.
func (p *pipeline) row(k *kcall) error {
	if k.rec == nil {
		if err := p.match.linkOutside(k); err != nil {
			return err
		}
	}
	if !k.pending && k.ref != "" {
		if err := p.dups.seeDebit(k.ref); err != nil {
			return err
		}
	}
	m, amount, orphan := p.match.callRow(k)
	dup := !k.pending && p.dups.isDup(k.ref)
	switch {
	case orphan && !dup:
		p.pairs.holdCall(*k)
		return nil
	case p.grps.hold(k, m, amount):
		return nil
	case dup:
		asDuplicate(&m, k.delta())
	}
	p.diffs.pair(k, &m)
	p.tally.match(m, amount, k.ts, nil)
	return nil
}

// end ends the stages: the last second, the records after the last call,
// the gaps left, the duplicates found late, the groups, the product
// differences, and the suggested pairs.
func (p *pipeline) end() error {
	if err := p.endSecond(); err != nil {
		return err
	}
	p.draining = true
	if err := p.match.drain(); err != nil {
		return err
	}
	p.gaps.resolve(nil, p.floor(), true)
	fixes, err := p.dups.fixLate(p.out)
	if err != nil {
		return err
	}
	for _, f := range fixes {
		p.tally.replace(f.old, f.fixed, f.amount)
	}
	p.pairs.filterRecords(p.grps.end)
	p.diffs.end()
	p.pairs.end(p.match.products, p.per.recAccts)
	return p.out.Err()
}

// runFees runs the fees stage (fees.go) over the period's debit records
// with the rate card, its findings through the summary stage's tally.
func runFees(card *rates.Card, debits iter.Seq2[Debit, error], t *tally) error {
	s := newFeeStage(card, t.fee)
	t.fees = &feeTally{card: card, stage: s, kinds: newCounts()}
	for d, err := range debits {
		if err != nil {
			return fmt.Errorf("read debits: %w", err)
		}
		if err := s.debit(&d); err != nil {
			return err
		}
	}
	s.end()
	return t.out.Err()
}

// floor is the earliest a gap the pool stage finds from now on may start.
func (p *pipeline) floor() int64 {
	if p.second < 0 {
		return p.pool.floor(math.MaxInt64)
	}
	return p.pool.floor(p.second)
}

// debitRecord hands a debit record the matching stage loaded to the
// duplicates stage (recordOut).
func (p *pipeline) debitRecord(client string) error { return p.dups.seeRecord(client) }

// finished hands a record the matching stage finished on (recordOut): a
// debit no call links to the suggested pairs, a reversed one to the
// reversals stage, one not linked to a debit to the gap stage.
func (p *pipeline) finished(r, rev *wrec) error {
	if !r.cr() && !r.linked() {
		p.pairs.holdRecord(r)
	}
	if r.reversal != "" {
		row, err := p.revs.row(r, rev)
		if err != nil {
			return err
		}
		p.tally.reversal(row, r.amount)
	}
	if !r.linkedDebit() {
		p.gaps.log(r)
		if p.draining {
			// No call is to come: the gap stage keeps only what a gap found
			// already, or the chain's last debit, may still cover.
			p.gaps.trim(p.floor())
		}
	}
	return nil
}
