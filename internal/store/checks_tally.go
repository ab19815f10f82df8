package store

import (
	"context"
	"iter"
	"slices"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// This file lets the check's one read of the period's calls serve the
// evidence step's imported totals too (evidence.CallTally), which read
// every call of the period a second time before.

// TallyCalls returns the store as a check reads it, with its read of the
// period's calls (CheckCalls) also counted into t for the imported
// totals; a nil t: db itself.
func (db *DB) TallyCalls(t *evidence.CallTally) ledger.CheckStore {
	if t == nil {
		return db
	}
	return &tallyingDB{DB: db, tally: t}
}

// tallyingDB is the DB whose CheckCalls counts into tally.
type tallyingDB struct {
	*DB
	tally *evidence.CallTally
}

// CheckCalls is DB.CheckCalls, read with the calls the check leaves out
// that the imported totals count: every operation's, and those after the
// window up to the day after the tally's last (ts < its 00:00:00). All are
// counted, in the stream's goroutine; those of the window but Skip's are
// yielded. A window that does not start with the tally's period is read
// as DB.CheckCalls reads it, and not counted.
func (s *tallyingDB) CheckCalls(ctx context.Context, w ledger.Window) iter.Seq2[recon.Call, error] {
	from, to := s.tally.Period()
	lo, hi, err := dayBounds(from, to)
	if err != nil || w.From != lo || w.To >= hi {
		return s.DB.CheckCalls(ctx, w)
	}
	calls := s.checkCallRows(ctx, `SELECT id, `+callCheckText+` FROM calls WHERE ts >= ? AND ts < ? ORDER BY ts`, lo, hi)
	return idsInSecond(prefetch(ctx, tallied(calls, s.tally, w)))
}

// tallied counts each call of calls into t, and yields those up to w.To
// but Skip's. The count ends (evidence.CallCount.End) when calls ended
// without error and every call was taken.
func tallied(calls iter.Seq2[recon.Call, error], t *evidence.CallTally, w ledger.Window) iter.Seq2[recon.Call, error] {
	return func(yield func(recon.Call, error) bool) {
		n := t.Count()
		for c, err := range calls {
			if err != nil {
				yield(c, err)
				return
			}
			n.Add(callAmount(c.Pool.Account, c.Outcome, c.Pool.Shape, c.Pool.Amount))
			if c.TS > w.To || slices.Contains(w.Skip, c.Operation) {
				continue
			}
			if !yield(c, nil) {
				return
			}
		}
		n.End()
	}
}
