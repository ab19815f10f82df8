package evidence

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Prefetched are the inputs of a period that its check's findings do not
// change, read while the check runs (Prefetch): the digests of the
// statement's days and the imported totals, the two long reads of the
// evidence step. The collect-order days, which the unsettled findings
// extend, and the rest are read by Record, after the check.
//
// What they describe: the database as Record finds it, as when they were
// read after the check. They are read beside the check, so a sync or an
// import of another process committed meanwhile may be missing from them;
// Record therefore checks, after the check, that they still hold and reads
// again what no longer does: a statement day whose version moved since
// its digest (a sync moves a day's version in the transaction that writes
// a new or changed record of it), and the imported totals when the period
// no longer holds as many calls (calls are only ever added). A write
// committed after that check is the evidence step's race, as it was.
type Prefetched struct {
	from, to string
	cancel   context.CancelFunc
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
// on connections of their own, and returns at once. Give the result to
// Record (Check.Inputs), which waits for it; Stop it whatever happens (a
// check that failed): it ends the reads. Prefetch only reads: the digests
// it computed are kept by Record.
func Prefetch(ctx context.Context, db Store, from, to string) *Prefetched {
	ctx, cancel := context.WithCancel(ctx)
	p := &Prefetched{from: from, to: to, cancel: cancel, done: make(chan struct{})}
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
	g.Go(func() (err error) {
		e.imported, err = importedTotals(gctx, db, from, to)
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
// totals read again when the period's calls are no longer as many.
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
	n, err := db.EvidenceCallCount(ctx, p.from, p.to)
	if err != nil {
		return nil, fmt.Errorf("calls: %w", err)
	}
	if n != callsOf(e.imported) {
		if e.imported, err = importedTotals(ctx, db, p.from, p.to); err != nil {
			return nil, err
		}
	}
	return e, nil
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
