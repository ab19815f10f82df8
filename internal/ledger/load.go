package ledger

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The load stage reads, before the first call, what the later stages must
// know of the period as a whole: the pool accounts its calls name, the
// accounts its statement records name, what became of its pending calls
// (resolve.go), the externalRefs of its unsuccessful calls that
// statement records carry, and what is stored beyond its edges
// (timing.go). Each is a small set (findings, not the month).

// period is what the load stage read.
type period struct {
	window Window
	// named are the pool accounts the window's calls name (two at most):
	// a debit that names none is the only one's, when there is one.
	named []string
	// recAccts are the accounts the window's statement records name.
	recAccts map[string]bool
	// resolved is what became of pending calls, by call id, and
	// resolvedOrders the orderids they were resolved to.
	resolved       map[int64]resolution
	resolvedOrders map[string]bool
	// openRefs are the externalRefs of unsuccessful calls that records
	// carry: only those calls may be linked to a record by externalRef.
	openRefs map[string]bool
	// edges say what is stored beyond the period (the timing stage's).
	edges Edges
}

// PeriodReader is what the load stage reads (a part of CheckStore).
type PeriodReader interface {
	// CheckStats brings the planner's statistics of the tables the check
	// reads up to date; a *Warning says it could not, and the check goes
	// on.
	CheckStats(ctx context.Context) error
	// CheckPoolAccounts lists the pool accounts the window's calls name (two at most).
	CheckPoolAccounts(ctx context.Context, w Window) ([]string, error)
	// CheckRecordAccounts lists the accounts the window's statement records name.
	CheckRecordAccounts(ctx context.Context, w Window) ([]string, error)
	// CheckResentPending lists the window's pending calls re-sent and executed.
	CheckResentPending(ctx context.Context, w Window) ([]int64, error)
	// CheckLookups yields the look-ups (operation op) of the window's pending calls.
	CheckLookups(ctx context.Context, w Window, op string) iter.Seq2[Lookup, error]
	// CheckOpenRefs lists the externalRefs of unsuccessful calls that some record carries.
	CheckOpenRefs(ctx context.Context, w Window) ([]string, error)
	// CheckEdges says whether statement records after the window and
	// calls (but Skip's) before it are stored.
	CheckEdges(ctx context.Context, w Window) (Edges, error)
}

// loadPeriod reads the period of window w, step by step (each step's time
// is logged at debug level).
func loadPeriod(ctx context.Context, db PeriodReader, w Window, log *slog.Logger) (period, error) {
	p := period{window: w}
	var err error
	step := func(name string, fn func() error) {
		if err == nil {
			t := time.Now()
			if err = fn(); err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
			log.Debug("check step done", "step", name, "seconds", time.Since(t).Seconds())
		}
	}
	step("refresh statistics", func() error {
		err := db.CheckStats(ctx)
		if warn := (*Warning)(nil); errors.As(err, &warn) {
			log.Warn(warn.Error()) // the check goes on, planned without them
			return nil
		}
		return err
	})
	step("read pool accounts", func() (err error) {
		p.named, err = db.CheckPoolAccounts(ctx, w)
		return err
	})
	step("read record accounts", func() error {
		accts, err := db.CheckRecordAccounts(ctx, w)
		p.recAccts = setOf(accts)
		return err
	})
	step("resolve pending calls", func() error {
		resent, err := db.CheckResentPending(ctx, w)
		if err != nil {
			return err
		}
		p.resolved, err = resolvePending(resent, db.CheckLookups(ctx, w, svcapi.OpTxnStatus))
		return err
	})
	step("read open externalRefs", func() error {
		refs, err := db.CheckOpenRefs(ctx, w)
		p.openRefs = setOf(refs)
		return err
	})
	step("read the period's edges", func() (err error) {
		p.edges, err = db.CheckEdges(ctx, w)
		return err
	})
	p.resolvedOrders = resolvedOrders(p.resolved)
	return p, err
}

// setOf is the set of the strings of list.
func setOf(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, s := range list {
		set[s] = true
	}
	return set
}
