package bulk

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/time/rate"

	"github.com/svcrecon/svcrecon/internal/progress"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Caller is what the bulk executor needs of the API client.
type Caller interface {
	Do(ctx context.Context, op string, body any) (*svcapi.Envelope, error)
	TxnStatus(ctx context.Context, day time.Time, externalRef string) (*svcapi.TxnStatusData, error)
}

var _ Caller = (*svcapi.Client)(nil)

// Why a run stopped before every row was sent (Summary.Stop).
const (
	StopInterrupted = "interrupted" // the context was cancelled (Ctrl-C, SIGTERM)
	StopMaxDebit    = "max-debit"   // the run's pool debits reached Runner.MaxDebit
	StopError       = "error"       // the journal could not be written or the service could not be reached
)

// Log attribute keys.
const (
	LogRun  = recon.LogBulkRun
	LogLine = "line"
)

// Runner sends the rows of a run. Set DB, Client and Log; the rest is
// optional.
type Runner struct {
	DB     Journal
	Client Caller
	Log    *slog.Logger
	// Concurrency is the number of calls in flight at once; default 1.
	Concurrency int
	// Rate limits how many rows start per second (0: no limit). The limit is
	// applied before a row is journaled, so waiting rows are not 'sending'.
	Rate float64
	// MaxDebit, when positive, is the most the run may spend: a call starts
	// only while the run's confirmed debits, with every call whose debit is
	// unknown (in flight, or pending) counted at the expected debit of one
	// call and the new call too, stay within it (store.DebitCap). The
	// expected debit is the largest debit seen (or Price's); until an
	// answer teaches it, calls go one at a time. The cap holds as long as
	// no call costs more than the expected debit.
	MaxDebit decimal.Decimal
	// Progress is where the progress bar is drawn when it is a terminal
	// (usually stderr); otherwise a progress line is logged every 10 s.
	Progress io.Writer
	// Secret is scrubbed by value from what is stored of each answer (the
	// client secret), with the row's own secrets (Row.Secrets).
	Secret string
	// Now is the clock of the journal's timestamps (sent, done, the run's
	// updates); default time.Now.
	Now func() time.Time
	// Lease, when shared (Lease.Shared: PostgreSQL), makes Execute one of
	// the run's workers: it claims a few rows at a time instead of sending
	// the rows it was given in order (see Execute).
	Lease *Lease
	// Poll is how long a worker of a shared run waits before claiming
	// again while the rows in flight of every worker reserve what is left
	// of MaxDebit; default DefaultPoll.
	Poll time.Duration
	// Price, when set, is the rate card (issue 27): the expected debit of
	// one call of an operation, and whether it knows it. Without it the
	// expected debit is learnt from the run's first answer with a debit
	// (until then, with MaxDebit, one call at a time).
	Price func(op string) (decimal.Decimal, bool)
	// Recheck, when set, takes over the rows a dead process left: those
	// found 'sending' (and pending since for that reason) are looked up
	// before sending, and the ones the service never executed are sent
	// in the same Execute (see takeOver). Nil leaves them to Recheck.
	Recheck *Rechecker
}

// Summary is the state of a run after Execute.
type Summary struct {
	Counts
	Sent      int    // rows sent by this Execute
	Recovered int    // rows found 'sending' (a process died during their call), now pending
	Stop      string // "" when every row was sent; else StopInterrupted, StopMaxDebit or StopError
	// Workers is, for a worker of a shared run, how many other workers
	// were still working on the run when it ended its part (their rows in
	// flight count as pending); the last one sets the run's state.
	Workers int
	// TakenOver are the look-ups of the rows dead processes left
	// (Runner.Recheck).
	TakenOver RecheckSummary
}

func (r *Runner) now() time.Time { return now(r.Now) }

// Execute sends every row of the run that has no journal row yet or that
// Recheck returned to unsent (the service never executed it; it is sent
// with the same externalRef), and returns the run's counts. Rows found
// 'sending' first become 'pending'.
//
// Each row is journaled as 'sending' in a committed transaction before its
// call and updated with its outcome after the call: success (TXN), failed
// (another statuscode, *svcapi.Error) or pending (svcapi.ErrPending: TUP,
// time-out, dropped connection, unreadable answer; and DTX on a re-sent
// row, ReasonDuplicateResend). A cancelled ctx starts
// nothing new; calls in flight are not cancelled (they run under
// context.WithoutCancel and the client's time-out) and are journaled. The run
// ends 'done' when every row was sent, else 'stopped'.
//
// The error is non-nil when the journal could not be written or a call
// failed without reaching the service (its row is left unsent); the run is
// then stopped and Summary.Stop is StopError.
//
// With a shared Lease (PostgreSQL), Execute is one of the run's workers,
// on this host or others: it seeds the run's rows if no worker did,
// claims a few at a time (as many as it has calls free, each row waiting
// its turn of Rate first), and calls them; MaxDebit is a reservation
// shared by every worker (store.DB.ClaimBulkRows). Rows 'sending' are
// turned pending only for workers found gone (their pid no longer runs on
// this host, or their heartbeat is older than the lease time-out). It
// ends when no row is left to claim; the last worker to end sets the run's
// state, and Summary.Workers says how many others were still working.
func (r *Runner) Execute(ctx context.Context, run *Run, rows []Row) (Summary, error) {
	log := r.Log.With(LogRun, run.ID)
	if _, ok := svcapi.Lookup(run.Op); !ok {
		return Summary{}, fmt.Errorf("bulk run %s: unknown operation %q", run.ID, run.Op)
	}
	if r.Lease != nil && r.Lease.Shared() {
		return r.executeShared(ctx, run, rows, log)
	}
	return r.executeAlone(ctx, run, rows, log)
}

// executeAlone is Execute for a run held by this process alone: it sends
// the rows not journaled yet in file order, Concurrency at a time.
func (r *Runner) executeAlone(ctx context.Context, run *Run, rows []Row, log *slog.Logger) (Summary, error) {
	var sum Summary
	var err error
	if sum.Recovered, err = recoverSending(ctx, r.DB, run.ID); err != nil {
		return sum, err
	}
	if sum.Recovered > 0 {
		log.Warn("rows were being sent when the last process stopped; they are pending, not sent: the transaction-status look-up resolves them",
			"rows", sum.Recovered)
	}
	if sum.TakenOver, err = r.takeOver(ctx, run, log); err != nil {
		return sum, err
	}
	todo, err := r.toSend(ctx, run, rows)
	if err != nil {
		return sum, err
	}
	before, err := r.start(ctx, run)
	if err != nil {
		return sum, err
	}
	ex := r.newExecution(run, log, before, len(rows), len(rows)-len(todo))
	ex.sendAll(ctx, todo, max(r.Concurrency, 1))
	ex.bar.Done()
	return r.endAlone(context.WithoutCancel(ctx), run, ex, sum)
}

// toSend returns the rows to send: those without a journal row, and those
// Recheck returned to unsent.
func (r *Runner) toSend(ctx context.Context, run *Run, rows []Row) ([]Row, error) {
	journaled := map[int]bool{} // rows not to send: every journal row but those returned to unsent
	err := entries(ctx, r.DB, run.ID, func(e Entry) error { journaled[e.Line] = e.State != StateUnsent; return nil })
	if err != nil {
		return nil, err
	}
	todo := make([]Row, 0, len(rows))
	for _, row := range rows {
		if !journaled[row.Line] {
			todo = append(todo, row)
		}
	}
	return todo, nil
}

// sendAll sends the rows in order, conc at a time, until they are all sent
// or the execution stops.
func (ex *execution) sendAll(ctx context.Context, todo []Row, conc int) {
	jobs := make(chan Row)
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex.sender(ctx, jobs)
		}()
	}
	defer wg.Wait()
	defer close(jobs)
	for _, row := range todo {
		if !ex.reserve(ctx) {
			return
		}
		select {
		case jobs <- row:
		case <-ctx.Done():
			ex.release(nil)
			ex.stop(StopInterrupted, nil)
			return
		}
	}
}

// endAlone counts the run's rows after an execution and records its state:
// done when every row was sent, else stopped. The journal is written
// whatever happened to the execution's context (jctx is not cancelled).
func (r *Runner) endAlone(jctx context.Context, run *Run, ex *execution, sum Summary) (Summary, error) {
	after, err := CountRows(jctx, r.DB, run)
	if err != nil {
		return sum, err
	}
	sum.Counts, sum.Sent = after, ex.sent
	state := RunDone
	if after.Unsent > 0 || after.Sending > 0 {
		state = RunStopped
		sum.Stop = ex.stopped()
		if sum.Stop == "" {
			sum.Stop = StopInterrupted
		}
	}
	if err := r.DB.SetBulkRunState(jctx, run.ID, state, r.now()); err != nil && ex.err == nil {
		ex.err = fmt.Errorf("bulk run %s: %w", run.ID, err)
	}
	run.State = state
	return sum, ex.err
}

// start counts the run's rows before an Execute and marks it running.
func (r *Runner) start(ctx context.Context, run *Run) (Counts, error) {
	before, err := CountRows(ctx, r.DB, run)
	if err != nil {
		return before, err
	}
	if err := r.DB.SetBulkRunState(ctx, run.ID, RunRunning, r.now()); err != nil {
		return before, fmt.Errorf("bulk run %s: %w", run.ID, err)
	}
	return before, nil
}

// newExecution is the state of one Execute of run: its counts before
// (the account of its debits), a progress bar of rows rows, done of them
// already.
func (r *Runner) newExecution(run *Run, log *slog.Logger, before Counts, rows, done int) *execution {
	ex := &execution{Runner: r, run: run, log: log}
	ex.openAccount(before)
	limit := rate.Inf
	if r.Rate > 0 {
		limit = rate.Limit(r.Rate)
	}
	ex.limiter = rate.NewLimiter(limit, 1)
	ex.bar = progress.New(r.Progress, "run "+run.ID, int64(rows), log)
	ex.bar.Add(int64(done))
	return ex
}

// execution is the shared state of one Execute.
type execution struct {
	*Runner
	run     *Run
	log     *slog.Logger
	limiter *rate.Limiter
	bar     *progress.Bar
	worker  string // the worker id, for a worker of a shared run; "" otherwise

	mu sync.Mutex
	// account is the run's debits against MaxDebit (one holder; a worker
	// of a shared run reserves in the database); changed is closed and
	// replaced whenever a reservation is released.
	account store.DebitCap
	changed chan struct{}
	reason  string
	err     error
	sent    int
}

func (ex *execution) stop(reason string, err error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.reason == "" {
		ex.reason = reason
	}
	if err != nil && ex.err == nil {
		ex.err = err
	}
}

func (ex *execution) stopped() string {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.reason
}

// mayStart checks, just before a row is journaled, that nothing asks the run
// to stop.
func (ex *execution) mayStart(ctx context.Context) bool {
	if ctx.Err() != nil {
		ex.stop(StopInterrupted, nil)
	}
	return ex.stopped() == ""
}
