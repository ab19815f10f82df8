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
// one claim per few rows, not one per row. A row's slot is free once its
// outcome is journaled.

// executeShared is Execute for one of the workers of a shared run.
func (r *Runner) executeShared(ctx context.Context, run *Run, rows []Row, log *slog.Logger) (Summary, error) {
	var sum Summary
	var err error
	if sum.Recovered, err = r.Lease.reap(ctx, log); err != nil {
		return sum, err
	}
	if err := seed(ctx, r.DB, run, rows); err != nil {
		return sum, err
	}
	if sum.TakenOver, err = r.takeOver(ctx, run, log); err != nil {
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
	ex := r.newExecution(run, log, before, len(rows), before.Journaled())
	ex.worker = r.Lease.Worker()
	ex.work(ctx, byLine, max(r.Concurrency, 1))
	if r.takeOverGone(ctx, run, ex, &sum, log) {
		ex.work(ctx, byLine, max(r.Concurrency, 1))
	}
	ex.bar.Done()
	return r.endShared(context.WithoutCancel(ctx), run, ex, sum, log)
}

// work claims rows and calls them, conc at a time, until none is left to
// claim or the execution stops.
func (ex *execution) work(ctx context.Context, byLine map[int]Row, conc int) {
	type job struct {
		row     Row
		attempt int
	}
	jobs := make(chan job, conc)         // claimed rows waiting their turn
	slots := make(chan struct{}, 2*conc) // one per claimed row, in flight or waiting
	callEnded := make(chan struct{}, 1)  // a call of this worker ended
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A call started ends whatever happens to ctx (the client's
			// time-out bounds it); a claimed row not started yet when ctx
			// ends or the execution stops is given back (drop): Ctrl-C
			// starts nothing new. A call's outcome is journaled while the
			// sender calls its next row (that row's claim is committed
			// already), one outcome at a time.
			jctx := context.WithoutCancel(ctx)
			journaled := closed
			for j := range jobs {
				var c *ended
				if ctx.Err() != nil || ex.stopped() != "" {
					ex.drop(jctx, j.row)
				} else {
					c = ex.call(jctx, j.row, j.attempt)
				}
				<-journaled
				journaled = make(chan struct{})
				go func(done chan struct{}) {
					defer close(done)
					if c != nil {
						ex.journal(jctx, c, nil)
					}
					<-slots
					select {
					case callEnded <- struct{}{}:
					default:
					}
				}(journaled)
			}
			<-journaled
		}()
	}
	ex.claimLoop(ctx, byLine, slots, callEnded, func() int { return len(jobs) }, func(row Row, attempt int) { jobs <- job{row, attempt} })
	close(jobs)
	wg.Wait()
}

// closed is a closed channel: nothing to wait for.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// endShared ends this worker's part of the run and counts its rows: the
// last worker to end sets the run's state. Workers gone meanwhile leave
// their rows pending, so that the last worker's state counts them. The
// journal is written whatever happened to the execution's context (jctx
// is not cancelled).
func (r *Runner) endShared(jctx context.Context, run *Run, ex *execution, sum Summary, log *slog.Logger) (Summary, error) {
	if n, err := r.Lease.reap(jctx, log); err != nil {
		ex.stop(StopError, err)
	} else {
		sum.Recovered += n
	}
	state, others, err := r.Lease.ls.DB.EndBulkWorker(jctx, run.ID, ex.worker, r.now())
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
	sl := claimSlots{ctx: ctx, ex: ex, slots: slots, batch: min(cap(slots)/2, claimBatch)}
	price, known := ex.expected(ex.run.Op, Counts{}) // the rate card's; the database knows the run's debits
	for ex.stopped() == "" {
		n, ok := sl.take(waiting)
		if !ok {
			return
		}
		if !ex.turns(ctx, n) || !ex.mayStart(ctx) {
			sl.free(n)
			return
		}
		claimed, hold, err := ex.DB.ClaimBulkRows(context.WithoutCancel(ctx),
			store.BulkClaim{Worker: ex.Lease.worker(), N: n, At: ex.now(), MaxDebit: ex.MaxDebit, Expected: price, Known: known})
		if err != nil {
			sl.free(n)
			ex.stop(StopError, err)
			return
		}
		sl.free(n - len(claimed))
		if !ex.dispatchClaimed(ctx, claimed, byLine, sl.free, dispatch) {
			return
		}
		switch {
		case len(claimed) > 0:
			continue
		case hold == "":
			return // nothing left to claim
		case hold == store.BulkHoldMaxDebit:
			ex.log.Warn("pool debits of the run's workers, with the calls whose debit is unknown at the expected debit, reached --max-debit; no new calls",
				"maxDebit", ex.MaxDebit.String())
			ex.stop(StopMaxDebit, nil)
			return
		}
		if !ex.awaitRoom(ctx, ended) {
			return
		}
	}
}

// claimSlots are a worker's slots for claimed rows (one each, in flight or
// waiting their turn).
type claimSlots struct {
	ctx   context.Context
	ex    *execution
	slots chan struct{}
	batch int
}

// take takes slots for the next claim: one, waiting for it, then more
// while free, up to a batch; while rows wait their turn it waits for at
// least half a batch. false when ctx ended (the slots are given back).
func (sl *claimSlots) take(waiting func() int) (int, bool) {
	low := max(sl.batch/2, 1)
	if !sl.wait() {
		return 0, false
	}
	n := 1
	for n < sl.batch {
		select {
		case sl.slots <- struct{}{}:
			n++
			continue
		default:
		}
		if n >= low || waiting() == 0 {
			break
		}
		if !sl.wait() {
			sl.free(n)
			return 0, false
		}
		n++
	}
	return n, true
}

// wait takes one slot, waiting for it; false when ctx ended first.
func (sl *claimSlots) wait() bool {
	select {
	case sl.slots <- struct{}{}:
		return true
	case <-sl.ctx.Done():
		sl.ex.stop(StopInterrupted, nil)
		return false
	}
}

// free gives n slots back.
func (sl *claimSlots) free(n int) {
	for range n {
		<-sl.slots
	}
}

// turns waits for n rows' turns of the rate; false when ctx ended.
func (ex *execution) turns(ctx context.Context, n int) bool {
	for range n {
		if err := ex.limiter.Wait(ctx); err != nil {
			ex.stop(StopInterrupted, nil)
			return false
		}
	}
	return true
}

// dispatchClaimed hands the claimed rows to dispatch. A claimed row that is
// not the input's (cannot happen: the input's SHA-256 is the run's) stops
// the execution, and the rows from it on are given back (false).
func (ex *execution) dispatchClaimed(ctx context.Context, claimed []store.BulkClaimed, byLine map[int]Row,
	free func(int), dispatch func(Row, int)) bool {
	for i, c := range claimed {
		row, ok := byLine[c.Line]
		if !ok || row.Ref != c.Ref {
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
			return false
		}
		dispatch(row, c.Attempt)
	}
	return true
}

// awaitRoom waits while what is left of --max-debit is reserved by rows in
// flight: until one of ours ends, or a while (other workers' rows end
// unseen). false when ctx ended.
func (ex *execution) awaitRoom(ctx context.Context, ended <-chan struct{}) bool {
	t := time.NewTimer(ex.poll())
	defer t.Stop()
	select {
	case <-ctx.Done():
		ex.stop(StopInterrupted, nil)
		return false
	case <-ended:
	case <-t.C:
	}
	return true
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
