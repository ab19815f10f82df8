package bulk

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store"
)

// TestSenderCallsWhileItJournals: a sender of a run held alone calls the
// row it claimed ahead while the outcome of its last call is journaled
// with the claim of the row after (one transaction), not after it.
func TestSenderCallsWhileItJournals(t *testing.T) {
	reqs := make(chan string, 8)
	claimed := make(chan struct{}) // line 2 claimed
	var firstCall sync.Once
	fx := newFixture(t, 3, bulktest.Options{Before: func(ref string, _ map[string]any) {
		// The first call lasts until the sender has claimed the row after
		// it: a call answered before the feeder hands over that row (a
		// busy machine) leaves nothing to call ahead.
		firstCall.Do(func() {
			select {
			case <-claimed:
			case <-time.After(time.Minute):
			}
		})
		reqs <- ref
	}})
	r := fx.runner(1)
	seen := &claimJournal{Journal: r.DB, claims: make(chan int, 8)}
	go func() {
		for line := range seen.claims {
			if line == fx.rows[1].Line {
				close(claimed)
				return
			}
		}
	}()
	j := &holdJournal{Journal: seen, held: make(chan int, 1), hold: make(chan struct{})}
	r.DB = j
	done := make(chan error, 1)
	go func() {
		_, err := r.Execute(context.Background(), fx.run, fx.rows)
		done <- err
	}()
	awaitCallWhileJournaling(t, reqs, j, done)
	close(j.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, row := range fx.rows {
		if e := fx.entries(t)[row.Line]; e.State != StateSuccess || fx.srv.CallCount(row.Ref) != 1 {
			t.Errorf("line %d: %s, called %d times; want success, called once", row.Line, e.State, fx.srv.CallCount(row.Ref))
		}
	}
}

// claimJournal tells claims the line of each row it journals 'sending'
// (a run held alone) or claims (a worker of a shared run).
type claimJournal struct {
	Journal
	claims chan int
}

func (j *claimJournal) ClaimBulkRows(ctx context.Context, c store.BulkClaim) ([]store.BulkClaimed, string, error) {
	got, hold, err := j.Journal.ClaimBulkRows(ctx, c)
	for _, g := range got {
		j.claims <- g.Line
	}
	return got, hold, err
}

// executed is what Execute returned.
type executed struct {
	sum Summary
	err error
}

// executing runs r.Execute(ctx, run, rows) on a goroutine of its own and
// hands what it returned on the channel.
func executing(ctx context.Context, r *Runner, run *Run, rows []Row) <-chan executed {
	done := make(chan executed, 1)
	go func() {
		sum, err := r.Execute(ctx, run, rows)
		done <- executed{sum, err}
	}()
	return done
}

func (j *claimJournal) StepBulkRows(ctx context.Context, runID string, s store.BulkStep) (bool, int, error) {
	mine, attempt, err := j.Journal.StepBulkRows(ctx, runID, s)
	if s.Next != nil && attempt > 0 {
		j.claims <- s.Next.Line
	}
	return mine, attempt, err
}

// TestCtrlCUnclaimsTheRowClaimedAhead: Ctrl-C while a call is in flight
// and the sender's next row is claimed already: the call finishes and is
// journaled, the claimed row is not called but unclaimed (unsent, for the
// next resume), and nothing is left 'sending'.
func TestCtrlCUnclaimsTheRowClaimedAhead(t *testing.T) {
	gate := make(chan struct{})
	fx := newFixture(t, 3, bulktest.Options{Before: func(string, map[string]any) { <-gate }})
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()
	r := fx.runner(1)
	j := &claimJournal{Journal: r.DB, claims: make(chan int, 8)}
	r.DB = j
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := executing(ctx, r, fx.run, fx.rows)
	for range 2 { // the row in flight, held at the gate, and the one claimed ahead
		select {
		case <-j.claims:
		case <-time.After(time.Minute):
			t.Fatal("no row claimed ahead in a minute while a call is in flight")
		}
	}
	cancel()
	close(gate)
	res := <-done
	if res.err != nil || res.sum.Stop != StopInterrupted {
		t.Fatalf("Execute = %+v, %v; want interrupted", res.sum, res.err)
	}
	es := fx.entries(t)
	if fx.srv.Requests() != 1 || len(es) != 1 || es[fx.rows[0].Line].State != StateSuccess {
		t.Errorf("after Ctrl-C: %d requests, journal %+v; want the call in flight alone, journaled success", fx.srv.Requests(), es)
	}
	c, err := CountRows(context.Background(), fx.db, fx.run)
	if err != nil || c.Sending != 0 || c.Unsent != 2 {
		t.Errorf("counts %s, %v; want nothing sending, two rows unsent", c, err)
	}
}

// TestRefusedClaimJournalsTheLastOutcome: a sender hands the outcome of
// its last call to the claim of its next row; when that claim is refused
// (Ctrl-C came first, the run stopped, with or without a rate to wait
// for) the outcome is journaled all the same, alone, and the row not
// claimed stays unsent: nothing is left 'sending', no reservation held.
// Ctrl-C without a rate once lost the outcome (the row stayed 'sending'
// after an interrupted run).
func TestRefusedClaimJournalsTheLastOutcome(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate float64
		stop func(cancel context.CancelFunc, ex *execution)
	}{
		{"ctrl-c", 0, func(cancel context.CancelFunc, _ *execution) { cancel() }},
		{"ctrl-c with a rate", 1000, func(cancel context.CancelFunc, _ *execution) { cancel() }},
		{"stopped", 0, func(_ context.CancelFunc, ex *execution) { ex.stop(StopMaxDebit, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, 2, bulktest.Options{})
			r := fx.runner(1)
			r.Rate = tc.rate
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ex := r.newExecution(fx.run, quietLog(), Counts{}, len(fx.rows), 0)
			first, second := fx.rows[0], fx.rows[1]
			if !ex.reserve(ctx) {
				t.Fatal("no reservation for the first row")
			}
			c := ex.claim(ctx, first, nil)
			if c == nil {
				t.Fatal("first row not claimed")
			}
			last := ex.call(context.WithoutCancel(ctx), c.row, c.attempt)
			if last == nil || last.res.State != StateSuccess {
				t.Fatalf("first call = %+v; want success", last)
			}
			if !ex.reserve(ctx) {
				t.Fatal("no reservation for the second row")
			}
			tc.stop(cancel, ex)
			if got := ex.claim(ctx, second, last); got != nil {
				t.Fatalf("claim after the stop = %+v; want refused", got)
			}
			es := fx.entries(t)
			if e, ok := es[first.Line]; !ok || e.State != StateSuccess || e.StatusCode != "TXN" {
				t.Errorf("first row's journal = %+v (%v); want its outcome, success", e, ok)
			}
			if e, ok := es[second.Line]; ok {
				t.Errorf("second row journaled %+v; want none (unsent)", e)
			}
			if ex.account.InFlight != 0 || ex.sent != 1 || ex.stopped() == "" {
				t.Errorf("in flight %d, sent %d, stop %q; want 0, 1 and a reason", ex.account.InFlight, ex.sent, ex.stopped())
			}
			if fx.srv.Requests() != 1 {
				t.Errorf("%d requests; want the first row's alone", fx.srv.Requests())
			}
		})
	}
}
