package bulk

import (
	"context"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// todayAt is today (IST, by the real clock: the fake dates transactions by
// it) at hh:mm IST.
func todayAt(hh, mm int) time.Time {
	y, m, d := time.Now().In(recon.IST).Date()
	return time.Date(y, m, d, hh, mm, 0, 0, recon.IST)
}

// Settle repeats resume and recheck: rows answered TUP or dropped are
// found executed once old enough, a row a dead process left 'sending' and
// never sent is found not executed and sent again, and the run ends with
// every row successful and called once, after one pause of Wait on the
// injected sleeper (no real waiting).
func TestSettleBringsARunToRest(t *testing.T) {
	fx := newFixture(t, 40, bulktest.Options{Pending: 0.25, Drop: 0.1})
	ctx := context.Background()
	clock := todayAt(10, 0)
	now := func() time.Time { return clock }
	// A process journaled this row at the clock's time and died before its
	// request left (a row without a fault, so its re-send is answered).
	var orphan Row
	for _, r := range fx.rows {
		if fx.srv.Fault(r.Ref) == bulktest.FaultNone {
			orphan = r
			break
		}
	}
	fx.journalSendingAt(t, orphan, clock)
	var slept []time.Duration
	var rounds []Counts
	runner := fx.runner(4)
	runner.Now = now
	st := &Settler{
		Runner:    runner,
		Rechecker: &Rechecker{DB: fx.db, Client: fx.client, Log: quietLog(), MinWait: 2 * time.Minute, Now: now},
		Rounds:    5, Wait: 3 * time.Minute,
		Sleep: func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			clock = clock.Add(d)
			return nil
		},
		AfterRound: func(_ int, c Counts) { rounds = append(rounds, c) },
	}
	s, err := st.Settle(ctx, fx.run, fx.rows)
	if err != nil || !s.Settled() || s.Success != 40 || s.Stop != "" {
		t.Fatalf("Settle = %+v, %v; want every row success", s, err)
	}
	// Round 1 sends everything and finds the pending rows too young; after
	// one pause round 2 resolves them and finds the orphan not executed;
	// round 3 sends it at once.
	if s.Rounds != 3 || len(slept) != 1 || slept[0] != 3*time.Minute || len(rounds) != 3 {
		t.Errorf("rounds %d, pauses %v, AfterRound %d times; want 3 rounds, one pause of 3m", s.Rounds, slept, len(rounds))
	}
	if rounds[0].Pending == 0 || rounds[1].Unsent != 1 || rounds[1].Pending != 0 {
		t.Errorf("round counts = %+v; want pending after round 1, the orphan unsent after round 2", rounds)
	}
	for _, r := range fx.rows {
		if n := fx.srv.CallCount(r.Ref); n != 1 {
			t.Errorf("line %d: CallCount = %d, want 1", r.Line, n)
		}
	}
	if e := fx.entries(t)[orphan.Line]; e.Attempts != 2 || e.State != StateSuccess {
		t.Errorf("orphan = %+v; want success on its second attempt", e)
	}
}

// Rows the service keeps answering TUP leave the run unsettled after the
// rounds, with the pending rows counted as every view counts them.
func TestSettleGivesUpAfterTheRounds(t *testing.T) {
	fx := newFixture(t, 10, bulktest.Options{Pending: 1, StillPending: 1})
	clock := todayAt(11, 0)
	now := func() time.Time { return clock }
	runner := fx.runner(2)
	runner.Now = now
	pauses := 0
	st := &Settler{Runner: runner, Rechecker: &Rechecker{DB: fx.db, Client: fx.client, Log: quietLog(), Now: now},
		Rounds: 3, Wait: time.Minute,
		Sleep: func(_ context.Context, d time.Duration) error { pauses++; clock = clock.Add(d); return nil }}
	s, err := st.Settle(context.Background(), fx.run, fx.rows)
	c, cerr := CountRows(context.Background(), fx.db, fx.run)
	if err != nil || cerr != nil || s.Settled() || s.Rounds != 3 || pauses != 2 || s.Pending != 10 || c != s.Counts {
		t.Errorf("Settle = %+v, %v (pauses %d); want 3 rounds, 2 pauses, 10 pending as CountRows says (%+v)", s, err, pauses, c)
	}
}
