package bulk

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// DefaultPoll is Runner.Poll's default.
const DefaultPoll = 100 * time.Millisecond

// claimBatch bounds the rows a worker of a shared run claims at once: a
// small batch, so that rows are spread over the workers and few wait in
// one worker's hands.
const claimBatch = 16

// A worker holds at most Concurrency rows in flight and as many claimed
// and waiting their turn; it claims again once half a batch (half its
// concurrency, at most claimBatch) is free, or at once when none waits:
// one claim per few rows, not one per row.

// executeShared is Execute for one of the workers of a shared run.
func (r *Runner) executeShared(ctx context.Context, run *Run, rows []Row, log *slog.Logger) (Summary, error) {
	var sum Summary
	l := r.Lease
	var err error
	if sum.Recovered, err = l.reap(ctx, log); err != nil {
		return sum, err
	}
	if err := seed(ctx, r.DB, run, rows); err != nil {
		return sum, err
	}
	before, err := r.start(ctx, run)
	if err != nil {
		return sum, err
	}
	byLine := make(map[int]Row, len(rows))
	for _, row := range rows {
		byLine[row.Line] = row
	}
	ex := r.newExecution(run, log, before.Debit, len(rows), before.Journaled())
	ex.worker = l.Worker()

	conc := max(r.Concurrency, 1)
	type job struct {
		row     Row
		attempt int
	}
	jobs := make(chan job, conc)         // claimed rows waiting their turn
	slots := make(chan struct{}, 2*conc) // one per claimed row, in flight or waiting
	ended := make(chan struct{}, 1)      // a call of this worker ended
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				// A claimed row is 'sending': it is called whatever
				// happens to ctx (the client's time-out bounds it).
				ex.call(context.WithoutCancel(ctx), j.row, j.attempt)
				<-slots
				select {
				case ended <- struct{}{}:
				default:
				}
			}
		}()
	}
	ex.claimLoop(ctx, byLine, slots, ended, func() int { return len(jobs) }, func(row Row, attempt int) { jobs <- job{row, attempt} })
	close(jobs)
	wg.Wait()
	ex.bar.Done()

	// The journal is written whatever happened to ctx. Workers gone
	// meanwhile leave their rows pending, so that the last worker's state
	// counts them.
	jctx := context.WithoutCancel(ctx)
	if n, err := l.reap(jctx, log); err != nil {
		ex.stop(StopError, err)
	} else {
		sum.Recovered += n
	}
	state, others, err := l.ls.DB.EndBulkWorker(jctx, run.ID, ex.worker, r.now())
	if err != nil {
		ex.stop(StopError, err)
	}
	after, err := CountRows(jctx, r.DB, run)
	if err != nil {
		return sum, err
	}
	sum.Counts, sum.Sent, sum.Workers = after, ex.sent, others
	sum.Stop = ex.stopped()
	switch {
	case state != "":
		run.State = state
		if sum.Stop == "" && state != RunDone {
			sum.Stop = StopInterrupted // rows were given back by a worker that stopped
		}
	default:
		run.State = RunRunning
	}
	return sum, ex.err
}

// claimLoop claims rows for the free slots (at least half a batch while
// rows wait their turn, each row having waited its turn of the rate) and
// hands each to dispatch, until none is left to claim or the execution
// stops. waiting says how many claimed rows wait for a call; ended
// receives when one of this worker's calls ends.
func (ex *execution) claimLoop(ctx context.Context, byLine map[int]Row, slots chan struct{}, ended <-chan struct{},
	waiting func() int, dispatch func(Row, int)) {
	batch := min(cap(slots)/2, claimBatch)
	low := max(batch/2, 1)
	free := func(n int) {
		for range n {
			<-slots
		}
	}
	take := func() bool { // one slot, waiting for it
		select {
		case slots <- struct{}{}:
			return true
		case <-ctx.Done():
			ex.stop(StopInterrupted, nil)
			return false
		}
	}
	for ex.stopped() == "" {
		if !take() {
			return
		}
		n := 1
	more:
		for n < batch {
			select {
			case slots <- struct{}{}:
				n++
			default:
				if n >= low || waiting() == 0 {
					break more
				}
				if !take() {
					free(n)
					return
				}
				n++
			}
		}
		for range n {
			if err := ex.limiter.Wait(ctx); err != nil {
				ex.stop(StopInterrupted, nil)
				free(n)
				return
			}
		}
		if !ex.mayStart(ctx) {
			free(n)
			return
		}
		claimed, hold, err := ex.DB.ClaimBulkRows(context.WithoutCancel(ctx),
			store.BulkClaim{Worker: ex.Lease.worker(), N: n, At: ex.now(), MaxDebit: ex.MaxDebit})
		if err != nil {
			free(n)
			ex.stop(StopError, err)
			return
		}
		free(n - len(claimed))
		for i, c := range claimed {
			row, ok := byLine[c.Line]
			if !ok || row.Ref != c.Ref {
				// Cannot happen: the input's SHA-256 is the run's.
				var back []int
				for _, o := range claimed[i:] {
					back = append(back, o.Line)
				}
				free(len(back))
				err := fmt.Errorf("line %d: the run's journal has externalRef %s, not the input's", c.Line, c.Ref)
				if rerr := ex.DB.ReturnBulkRows(context.WithoutCancel(ctx), ex.run.ID, ex.worker, back); rerr != nil {
					err = fmt.Errorf("%w; and the rows could not be given back: %w", err, rerr)
				}
				ex.stop(StopError, err)
				return
			}
			dispatch(row, c.Attempt)
		}
		switch {
		case len(claimed) > 0:
			continue
		case hold == "":
			return // nothing left to claim
		case hold == store.BulkHoldMaxDebit:
			ex.log.Warn("pool debits of the run's workers reached --max-debit; no new calls", "maxDebit", ex.MaxDebit.String())
			ex.stop(StopMaxDebit, nil)
			return
		}
		// What is left of --max-debit is reserved by rows in flight: claim
		// again when one of ours ends, or after a while (other workers'
		// rows end unseen).
		t := time.NewTimer(ex.poll())
		select {
		case <-ctx.Done():
			t.Stop()
			ex.stop(StopInterrupted, nil)
			return
		case <-ended:
			t.Stop()
		case <-t.C:
		}
	}
}

func (r *Runner) poll() time.Duration {
	if r.Poll > 0 {
		return r.Poll
	}
	return DefaultPoll
}

// seed journals the run's rows as queued, unless every row is journaled.
func seed(ctx context.Context, db Journal, run *Run, rows []Row) error {
	n, err := db.BulkRowsJournaled(ctx, run.ID)
	if err != nil || n >= len(rows) {
		return err
	}
	seeds := make([]store.BulkSeed, len(rows))
	for i, row := range rows {
		seeds[i] = store.BulkSeed{Line: row.Line, Ref: row.Ref}
	}
	_, err = db.SeedBulkRows(ctx, run.ID, seeds)
	return err
}

// reap turns the 'sending' rows of the run's workers found gone (Stale)
// into pending, and returns how many there were. Each is logged.
func (l *Lease) reap(ctx context.Context, log *slog.Logger) (int, error) {
	ws, err := l.ls.DB.BulkWorkers(ctx, l.RunID)
	if err != nil {
		return 0, err
	}
	var dead []store.BulkLease
	for _, w := range ws {
		if w.Holder != l.ls.Holder.ID && l.ls.Stale(w) {
			dead = append(dead, w)
			log.Warn("a worker of this run is gone: its rows in flight become pending, for bulkrun recheck",
				"host", w.Host, "pid", w.PID, "heartbeat", w.Heartbeat.In(recon.IST).Format(time.DateTime))
		}
	}
	n, err := l.ls.DB.ReapBulkWorkers(ctx, l.RunID, dead, ReasonDiedSending)
	if err != nil {
		return 0, err
	}
	if n > 0 {
		log.Warn("rows were being sent by workers now gone; they are pending, not sent: recheck resolves them", "rows", n)
	}
	return n, nil
}

// WorkerRows are the rows one worker of a run claimed, per state.
type WorkerRows struct {
	Worker  string // host:pid:random ("" for rows of a run held by one process)
	Success int
	Failed  int
	Pending int // 'sending' rows included
	Sending int
	Unsent  int // returned to unsent by recheck
}

// Total is every row the worker claimed.
func (w WorkerRows) Total() int { return w.Success + w.Failed + w.Pending + w.Unsent }

// RowsPerWorker returns the rows of a run per worker that claimed them,
// ordered by worker.
func RowsPerWorker(ctx context.Context, db Journal, runID string) ([]WorkerRows, error) {
	var out []WorkerRows
	err := db.BulkWorkerRows(ctx, runID, func(worker, state string, n int) error {
		if len(out) == 0 || out[len(out)-1].Worker != worker {
			out = append(out, WorkerRows{Worker: worker})
		}
		w := &out[len(out)-1]
		switch state {
		case StateSuccess:
			w.Success += n
		case StateFailed:
			w.Failed += n
		case StatePending:
			w.Pending += n
		case StateSending:
			w.Pending += n
			w.Sending += n
		case StateUnsent:
			w.Unsent += n
		}
		return nil
	})
	return out, err
}
