package bulk

import (
	"context"
	"fmt"
	"time"
)

// Settler brings a run to rest: it repeats Execute (sending the rows still
// unsent, recovering rows a dead process left 'sending') and Recheck
// (resolving the pending rows) until no row is pending or unsent, or the
// rounds run out. Set Runner and Rechecker.
type Settler struct {
	Runner    *Runner
	Rechecker *Rechecker
	// Rounds is the most rounds of resume and recheck; default 5.
	Rounds int
	// Wait is the pause before another round while rows are still
	// pending (the service needs time to finish them).
	Wait time.Duration
	// Sleep pauses for d or until ctx ends; default a timer. Tests pass
	// one that moves their clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// AfterRound, when set, is called after each round with its number and
	// the run's counts (bulkrun rewrites the results there).
	AfterRound func(round int, c Counts)
}

// SettleSummary is what Settle did.
type SettleSummary struct {
	Rounds  int            // rounds made
	Sent    int            // rows sent (again) by the rounds' Execute
	Recheck RecheckSummary // the rechecks' counts, added up (Pending: the first's)
	Counts                 // the run's counts at the end
	// Stop is why an Execute stopped early (Summary.Stop): the run cannot
	// be settled until that is dealt with.
	Stop string
}

// Settled reports whether no row is pending or unsent.
func (s SettleSummary) Settled() bool { return s.Pending == 0 && s.Unsent == 0 }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Settle runs rounds over run, whose rows are rows: each round sends what
// is unsent (Execute; skipped when nothing is), then looks the pending rows
// up (Recheck). It stops when nothing is pending or unsent (Settled), after
// Rounds rounds, when an Execute stops early (Stop: --max-debit, an error,
// Ctrl-C) or ctx ends. Between rounds it waits Wait, unless the last
// recheck returned rows to unsent (they are sent at once).
func (st *Settler) Settle(ctx context.Context, run *Run, rows []Row) (SettleSummary, error) {
	var s SettleSummary
	rounds := st.Rounds
	if rounds <= 0 {
		rounds = 5
	}
	pause := st.Sleep
	if pause == nil {
		pause = sleep
	}
	for round := 1; ; round++ {
		s.Rounds = round
		c, err := CountRows(ctx, st.Runner.DB, run)
		if err != nil {
			return s, err
		}
		if c.Unsent > 0 || c.Sending > 0 {
			sum, err := st.Runner.Execute(ctx, run, rows)
			s.Sent += sum.Sent
			if err != nil {
				return s, err
			}
			if sum.Stop != "" {
				s.Counts, s.Stop = sum.Counts, sum.Stop
				return s, nil
			}
		}
		rs, err := st.Rechecker.Recheck(ctx, run)
		s.Recheck.add(rs, round == 1)
		if err != nil {
			return s, err
		}
		if s.Counts, err = CountRows(context.WithoutCancel(ctx), st.Runner.DB, run); err != nil {
			return s, err
		}
		if st.AfterRound != nil {
			st.AfterRound(round, s.Counts)
		}
		if s.Settled() || round >= rounds {
			return s, nil
		}
		if rs.NotExecuted > 0 && s.Pending == 0 {
			continue // rows to send again, nothing to wait for
		}
		if err := pause(ctx, st.Wait); err != nil {
			return s, fmt.Errorf("settle run %s: %w", run.ID, err)
		}
	}
}

// add adds r's counts to s; first keeps r's Pending (the pending rows
// before any recheck).
func (s *RecheckSummary) add(r RecheckSummary, first bool) {
	if first {
		s.Pending = r.Pending
	}
	s.Checked += r.Checked
	s.Success += r.Success
	s.Failed += r.Failed
	s.NotExecuted += r.NotExecuted
	s.StillPending += r.StillPending
	s.LookupErrors += r.LookupErrors
	s.NoRef += r.NoRef
	s.TooYoung, s.InFlight = r.TooYoung, r.InFlight // the last round's
}
