package evidence

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Prefetched are the inputs of a period that its check's findings do not
// change, read while the check runs (Prefetch): the digests of the
// statement's days, read beside the check, and the imported totals,
// counted as the check reads the period's calls (Calls: the store's
// stream of them tapped), the two long reads of the evidence step. The
// collect-order days, which the unsettled findings extend, and the rest
// are read by Record, after the check.
//
// What they describe: the database as Record finds it, as when they were
// read after the check. They are read beside the check, so a sync or an
// import of another process committed meanwhile may be missing from them;
// Record therefore checks, after the check, that they still hold and reads
// again what no longer does: a statement day whose version moved since
// its digest (a sync moves a day's version in the transaction that writes
// a new or changed record of it), and the imported totals when the period
// no longer holds as many calls (calls are only ever added), or when the
// check's read did not count them (no tap, or a read that did not come to
// its end). A write committed after that check is the evidence step's
// race, as it was.
type Prefetched struct {
	from, to string
	cancel   context.CancelFunc
	calls    *CallTally
	done     chan struct{} // closed when the reads ended; then early and err are set
	early    *early
	err      error
}

// early are the prefetched inputs.
type early struct {
	statement []DayDigest     // the period's days, in order
	fresh     []DayDigest     // those digested from their records, not kept yet
	imported  []ImportedTotal // the period's calls per pool account
}

// Prefetch starts reading the inputs of the period from..to (YYYY-MM-DD,
// the check's) that its findings do not change, in goroutines of their own
// on connections of their own, and returns at once; the imported totals
// are counted by the check's read of the calls, when the store taps it
// into Calls. Give the result to Record (Check.Inputs), which waits for
// it; Stop it whatever happens (a check that failed): it ends the reads.
// Prefetch only reads: the digests it computed are kept by Record.
func Prefetch(ctx context.Context, db Store, from, to string) *Prefetched {
	ctx, cancel := context.WithCancel(ctx)
	p := &Prefetched{from: from, to: to, cancel: cancel, done: make(chan struct{}), calls: &CallTally{from: from, to: to}}
	e := &early{}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		days, err := periodDays(from, to)
		if err != nil {
			return err
		}
		e.statement, e.fresh, err = readDays(gctx, db, recon.Statement, days, true)
		return err
	})
	go func() {
		defer close(p.done)
		if p.err = g.Wait(); p.err == nil {
			p.early = e
		}
	}()
	return p
}

// Calls is where the check's read of the period's calls counts them for
// the imported totals (nil for a nil Prefetched: none).
func (p *Prefetched) Calls() *CallTally {
	if p == nil {
		return nil
	}
	return p.calls
}

// Stop ends the reads, when they have not ended, and waits for their
// goroutines; their error, if any, is dropped. A nil Prefetched is none.
func (p *Prefetched) Stop() {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
}

// of says whether p holds the inputs of the period from..to.
func (p *Prefetched) of(from, to string) bool { return p != nil && p.from == from && p.to == to }

// current waits for the reads and returns their inputs as they hold now:
// the statement's days whose version moved since their digests digested
// again (the others' digests computed from records kept), the imported
// totals as the check counted them while the period still holds as many
// calls, else read again.
func (p *Prefetched) current(ctx context.Context, db Store) (*early, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.err != nil {
		return nil, p.err
	}
	e := p.early
	if err := e.currentDays(ctx, db, p.from, p.to); err != nil {
		return nil, err
	}
	var err error
	e.imported, err = p.calls.current(ctx, db)
	return e, err
}

// currentDays digests again the statement days whose version moved since
// their digests, and keeps the digests computed from records that hold.
func (e *early) currentDays(ctx context.Context, db Store, from, to string) error {
	versions, err := db.DayVersions(ctx, recon.Statement, from, to)
	if err != nil {
		return fmt.Errorf("%s day versions: %w", recon.Statement, err)
	}
	moved := func(d DayDigest) bool { return d.Version != versions[d.Day] }
	if fresh := slices.DeleteFunc(e.fresh, moved); len(fresh) > 0 {
		if err := db.SaveDayDigests(ctx, fresh); err != nil {
			return fmt.Errorf("keep %s digests: %w", recon.Statement, err)
		}
	}
	e.fresh = nil
	var stale []string
	for _, d := range e.statement {
		if moved(d) {
			stale = append(stale, d.Day)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	again, err := dayInputs(ctx, db, recon.Statement, stale, true)
	if err != nil {
		return err
	}
	for _, d := range again {
		e.statement[slices.IndexFunc(e.statement, func(o DayDigest) bool { return o.Day == d.Day })] = d
	}
	return nil
}

// callsOf is how many calls imported totals count.
func callsOf(ts []ImportedTotal) int {
	n := 0
	for _, t := range ts {
		n += t.Calls
	}
	return n
}

// CallTally counts the period's calls for the imported totals as another
// read yields them: the check's own read of the calls, which the store
// taps (store.DB.TallyCalls), so that the evidence step need not read
// them a second time. What it counts is what importedTotals counts,
// computed the same way (callCount). The totals of the last read that
// came to its end are used when, after the check, the period holds as
// many calls as they count; without them (nothing tapped, a read ended
// early or met an amount that is no decimal) the calls are read again.
type CallTally struct {
	from, to string
	mu       sync.Mutex
	totals   []ImportedTotal // nil: no read came to its end
}

// Period is the tally's period, from..to (YYYY-MM-DD, inclusive). A read
// counted into it must yield every call whose ts lies in [from 00:00:00,
// the day after to 00:00:00), of any operation, each once: EvidenceCalls's
// calls.
func (t *CallTally) Period() (from, to string) { return t.from, t.to }

// Count starts the count of one read (nil for a nil tally: its Add and
// End do nothing).
func (t *CallTally) Count() *CallCount {
	if t == nil {
		return nil
	}
	return &CallCount{t: t, n: newCallCount()}
}

// current returns the totals counted when the period still holds as many
// calls as they count, else reads them.
func (t *CallTally) current(ctx context.Context, db Store) ([]ImportedTotal, error) {
	t.mu.Lock()
	got := t.totals
	t.mu.Unlock()
	if got != nil {
		n, err := db.EvidenceCallCount(ctx, t.from, t.to)
		if err != nil {
			return nil, fmt.Errorf("calls: %w", err)
		}
		if n == callsOf(got) {
			return got, nil
		}
	}
	return importedTotals(ctx, db, t.from, t.to)
}

// CallCount is one read's count of a CallTally.
type CallCount struct {
	t      *CallTally
	n      *callCount
	failed bool // an amount was no decimal: the read's totals are not used
}

// Add counts one call of the read.
func (c *CallCount) Add(a CallAmount) {
	if c != nil && !c.failed {
		c.failed = c.n.add(a) != nil
	}
}

// End says that the read yielded every call of the tally's period: its
// totals become the tally's.
func (c *CallCount) End() {
	if c == nil || c.failed {
		return
	}
	totals := c.n.totals()
	c.t.mu.Lock()
	c.t.totals = totals
	c.t.mu.Unlock()
}
