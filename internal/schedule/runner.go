package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
)

// Outcomes of a run, as stored in job_runs.outcome. A run that ran to the
// end and found breaks is OutcomeBreaks (a warning); one that could not
// run, or stopped half-way, is OutcomeFailed.
const (
	OutcomeRunning   = "running"
	OutcomeOK        = "ok"
	OutcomeBreaks    = "breaks"
	OutcomeFailed    = "failed"
	OutcomeSkipped   = "skipped"
	OutcomeCancelled = "cancelled"
	OutcomePanic     = "panic"
)

// Triggers of a run, as stored in job_runs.trigger.
const (
	TriggerSchedule = "schedule" // fired by the cron daemon
	TriggerManual   = "manual"   // reconcile schedule run JOB
)

// Log attribute keys: the job's name and its job_runs id (recon's keys:
// each kind of run has its own, so a sync's syncRun and its job's jobRun
// are both on its lines).
const (
	AttrJob = recon.LogJob
	AttrRun = recon.LogJobRun
)

// Defaults of the lease and the stop.
const (
	DefaultLeaseTTL  = 2 * time.Minute
	DefaultStopGrace = 30 * time.Second
)

var (
	// ErrBreaks marks the error of a job that ran to the end and found
	// breaks: its run is recorded as OutcomeBreaks, not failed. A JobFunc
	// returns an error that wraps it (errors.Is).
	ErrBreaks = errors.New("breaks found")
	// ErrUnknownJob is returned by Trigger for a job not in the file.
	ErrUnknownJob = errors.New("unknown job")
	// ErrLeaseLost ends a run whose lease another holder took over.
	ErrLeaseLost = errors.New("lease lost to another holder")
	// ErrTimeout ends a run that ran past its job's timeout.
	ErrTimeout = errors.New("job timed out")
	// ErrStopping is returned by Trigger when its context is already done.
	ErrStopping = errors.New("scheduler stopping")
	// ErrAbandoned is the error of a run whose job did not return within
	// StopGrace of its cancellation (a job that ignores its context).
	ErrAbandoned = errors.New("the job did not return after it was cancelled")
)

// PanicError is the error of a run whose job panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Run tells a JobFunc which run it is.
type Run struct {
	ID      int64 // job_runs.id
	Job     Job
	Trigger string
}

// JobFunc does one run of a job. It must return soon after ctx is done. The
// summary (a few lines) is stored with the run.
type JobFunc func(ctx context.Context, run Run) (summary string, err error)

// Store records job runs and holds the leases that keep two processes from
// running one job at once, and the fire times that make schedulers on
// several hosts run each one once. *store.DB implements it.
type Store interface {
	// BeginJobRun takes the run's fire time (when it has one: another
	// holder that took it first is returned as FireTakenBy, and nothing is
	// recorded), then the lease of the job until Now+TTL, and records a run
	// as running, in one transaction. When another holder has the lease,
	// held (given that holder and its expiry, as stored and parsed, zero
	// when unparsable) returns "" to take it over, or the reason the run is
	// skipped: the run is then recorded as skipped and the reason returned
	// as HeldBy. Runs of the job still recorded as running when the lease
	// is taken are closed as failed (abandoned).
	BeginJobRun(ctx context.Context, s recon.JobStart, held func(holder, expiresText string, expires time.Time) string) (recon.JobBegun, error)
	// SkipJobRun records a run that was not started, with why (once its
	// fire time is taken, as BeginJobRun).
	SkipJobRun(ctx context.Context, s recon.JobStart, reason string) (recon.JobBegun, error)
	// RenewLease extends holder's lease on name until until; false when
	// holder holds it no more.
	RenewLease(ctx context.Context, name, holder string, until time.Time) (bool, error)
	// FinishJobRun records the end of run id and releases holder's lease
	// on name, in one transaction.
	FinishJobRun(ctx context.Context, id int64, name, holder string, finished time.Time, outcome, summary, errText string) error
}

// Runner runs the jobs of a File: on their schedules (Start/Run) or one at a
// time on demand (Trigger). Set the exported fields before first use.
type Runner struct {
	DB    Store
	File  *File
	Funcs map[string]JobFunc // by Job.Command
	Log   *slog.Logger       // default: discard
	Now   func() time.Time   // clock of the recorded times and the lease; default time.Now

	// Holder names this runner in the leases table; default host:pid:random.
	Holder string
	// Host is recorded with each run (reconcile history shows it); default
	// the host name.
	Host string
	// LeaseTTL is how long a lease lasts unless renewed; default
	// DefaultLeaseTTL. It is renewed every LeaseTTL/4 while a job runs.
	LeaseTTL time.Duration
	// StopGrace is how long a cancelled job (stop signal, timeout, lost
	// lease) may take to return before its run is recorded as it stands and
	// Trigger returns without it; default DefaultStopGrace. Such a job is
	// not started again in this runner until it does return.
	StopGrace time.Duration
	// Notifier sends the notice of a run that ended with breaks, failed or
	// panicked to its job's Notify URL; default a Notifier with its
	// defaults and Log.
	Notifier *Notifier
	// Retry is how often Run tries to record the scheduled runs lost while
	// the database was unavailable (see OutcomeMissed); default
	// DefaultRetry. RetryAfter waits for the next try; default time.After
	// (tests pass a channel they control).
	Retry      time.Duration
	RetryAfter func(time.Duration) <-chan time.Time

	initOnce sync.Once
	mu       sync.Mutex
	running  map[string]int64 // job -> run id (0 while starting)
	missed   missedFires      // scheduled runs lost while the database was down
}

// Result is what became of one trigger of a job.
type Result struct {
	RunID    int64
	Job      string
	Trigger  string
	Outcome  string // one of the Outcome constants; "" when TakenBy
	Summary  string // the job's summary; for a skipped run, why
	Err      error  // the job's error (failed, cancelled, panic)
	Started  time.Time
	Finished time.Time
	// TakenBy is the scheduler (host:pid:random) that took this fire time
	// of the job first (Fire): it runs it; this runner recorded nothing.
	TakenBy string
}

func (r *Runner) init() {
	r.initOnce.Do(func() {
		if r.Log == nil {
			r.Log = slog.New(slog.DiscardHandler)
		}
		if r.Now == nil {
			r.Now = time.Now
		}
		if r.Holder == "" {
			r.Holder = NewHolder()
		}
		if r.Host == "" {
			r.Host = hostName()
		}
		if r.LeaseTTL <= 0 {
			r.LeaseTTL = DefaultLeaseTTL
		}
		if r.StopGrace <= 0 {
			r.StopGrace = DefaultStopGrace
		}
		if r.Retry <= 0 {
			r.Retry = DefaultRetry
		}
		r.running = map[string]int64{}
	})
}

// Run fires every job of the file on its schedule until ctx is done, then
// waits for the running jobs, which see ctx cancelled and are recorded as
// cancelled. It returns nil after a clean stop.
func (r *Runner) Run(ctx context.Context) error {
	r.init()
	for _, j := range r.File.Jobs {
		if r.Funcs[j.Command] == nil {
			return fmt.Errorf("job %s: no function for command %q", j.Name, j.Command)
		}
	}
	c := cron.New(cron.WithLogger(cron.DiscardLogger))
	for _, j := range r.File.Jobs {
		c.Schedule(j.schedule, cron.FuncJob(func() {
			// robfig/cron calls this at the scheduled time (on its own
			// clock, the real one).
			if _, err := r.Fire(ctx, j.Name, j.FireTime(time.Now())); err != nil {
				r.Log.Error("job not run", AttrJob, j.Name, "err", err)
			}
		}))
	}
	c.Start()
	go r.retryMissed(ctx)
	now := r.Now()
	for _, j := range r.File.Jobs {
		next := j.Next(now, 1)
		r.Log.Info("job scheduled", AttrJob, j.Name, "cron", j.Cron, "zone", j.Location.String(),
			"command", j.Command, "next", formatNext(next))
	}
	r.Log.Info("scheduler running", "jobs", len(r.File.Jobs), "holder", r.Holder)
	<-ctx.Done()
	r.Log.Info("scheduler stopping: cancelling running jobs", "reason", context.Cause(ctx))
	<-c.Stop().Done()
	r.Log.Info("scheduler stopped")
	return nil
}

func formatNext(ts []time.Time) string {
	if len(ts) == 0 {
		return "never"
	}
	return ts[0].Format(time.RFC3339)
}

// Trigger runs the job called name now, in the calling goroutine, and
// records it with the given trigger. If a run of that job is still going in
// this runner, or another holder has its lease, the run is recorded and
// returned as skipped. The returned error is for a job that cannot be run
// at all (ErrUnknownJob, ErrStopping, a database failure); the job's own
// failure is in Result.Err.
func (r *Runner) Trigger(ctx context.Context, name, trigger string) (Result, error) {
	return r.trigger(ctx, name, trigger, time.Time{})
}

// Fire runs the job called name for its scheduled time at (the daemon's
// trigger, TriggerSchedule), as Trigger does — unless another scheduler
// sharing the database took this fire time of the job first: then nothing
// is run or recorded, and Result.TakenBy names it. Schedulers on several
// hosts thus run each job once per fire time; one that dies holding a run
// loses that fire only, the next fire time is taken by a live one (which
// takes the job's lease over once it expired).
func (r *Runner) Fire(ctx context.Context, name string, at time.Time) (Result, error) {
	return r.trigger(ctx, name, TriggerSchedule, at)
}

func (r *Runner) trigger(ctx context.Context, name, trigger string, fireAt time.Time) (Result, error) {
	r.init()
	res := Result{Job: name, Trigger: trigger}
	job, fn, err := r.runnable(ctx, name)
	if err != nil {
		return res, err
	}
	release, busy := r.reserve(name)
	if busy != "" {
		return r.skip(ctx, job, trigger, fireAt, busy)
	}
	abandoned := false
	defer func() {
		if !abandoned {
			release()
		}
	}()
	res.Started = r.Now()
	begun, err := r.begin(ctx, job, trigger, fireAt, res.Started)
	if err != nil {
		if trigger == TriggerSchedule {
			r.lost(job, fireAt, err)
		}
		return res, fmt.Errorf("job %s: record start: %w", name, err)
	}
	if r.missed.any() {
		r.recordMissed(ctx) // the database answers again
	}
	log, started := r.started(&res, begun, fireAt)
	if !started {
		return res, nil
	}
	log.Info("job started", "trigger", trigger, "command", job.Command, "args", strings.Join(redact.Args(job.Args), " "))
	var out jobOutcome
	out, abandoned = r.runJob(ctx, job, fn, res, log, release)
	return r.end(ctx, job, res, out, log)
}

// runnable finds the job called name and its function; an error when there
// is none, or when the scheduler is stopping.
func (r *Runner) runnable(ctx context.Context, name string) (Job, JobFunc, error) {
	job, ok := r.File.Job(name)
	if !ok {
		return job, nil, fmt.Errorf("%w %q (jobs: %s)", ErrUnknownJob, name, strings.Join(r.File.Names(), ", "))
	}
	fn := r.Funcs[job.Command]
	if fn == nil {
		return job, nil, fmt.Errorf("job %s: no function for command %q", name, job.Command)
	}
	if ctx.Err() != nil {
		return job, nil, fmt.Errorf("job %s: %w", name, ErrStopping)
	}
	return job, fn, nil
}

// reserve marks the job called name as running in this runner, and returns
// the function that ends it; or, when a run of it is going already, why
// this one is skipped.
func (r *Runner) reserve(name string) (release func(), busy string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, going := r.running[name]; going {
		if id != 0 {
			return nil, fmt.Sprintf("skipped (previous run %d still going)", id)
		}
		return nil, "skipped (previous run still starting)"
	}
	r.running[name] = 0
	return func() {
		r.mu.Lock()
		delete(r.running, name)
		r.mu.Unlock()
	}, ""
}

// started reads what beginning the run recorded: false when another
// scheduler took its fire time, or another holder the job's lease (the
// run is then skipped), with res filled in. Otherwise the run is going:
// its log carries its id.
func (r *Runner) started(res *Result, begun recon.JobBegun, fireAt time.Time) (*slog.Logger, bool) {
	if begun.FireTakenBy != "" {
		res.TakenBy = begun.FireTakenBy
		r.Log.Info("fire time taken by another scheduler: it runs the job", AttrJob, res.Job,
			"fireAt", fireAt.Format(time.RFC3339), "holder", begun.FireTakenBy)
		return nil, false
	}
	res.RunID = begun.ID
	log := r.Log.With(AttrJob, res.Job, AttrRun, begun.ID)
	if begun.HeldBy != "" {
		res.Outcome, res.Summary, res.Finished = OutcomeSkipped, begun.HeldBy, res.Started
		log.Warn("job skipped", "trigger", res.Trigger, "reason", begun.HeldBy)
		return nil, false
	}
	r.mu.Lock()
	r.running[res.Job] = begun.ID
	r.mu.Unlock()
	return log, true
}

// jobOutcome is what a run of a job returned, and why its context ended
// if it did (the timeout, a lost lease).
type jobOutcome struct {
	summary string
	err     error
	cause   error
}

// runJob runs fn for the run res under the job's timeout, renewing the
// lease meanwhile. A job that does not return within StopGrace of its
// cancellation is abandoned (true): it is recorded as it stands and
// release is called only once it does return.
func (r *Runner) runJob(ctx context.Context, job Job, fn JobFunc, res Result, log *slog.Logger, release func()) (jobOutcome, bool) {
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if job.Timeout > 0 {
		var stop context.CancelFunc
		jctx, stop = context.WithTimeoutCause(jctx, job.Timeout, ErrTimeout)
		defer stop()
	}
	renewDone := make(chan struct{})
	stopRenew := make(chan struct{})
	go func() {
		defer close(renewDone)
		r.renew(ctx, job.Name, log, stopRenew, cancel)
	}()
	ended := make(chan jobOutcome, 1)
	go func() {
		summary, err := call(jctx, fn, Run{ID: res.RunID, Job: job, Trigger: res.Trigger})
		ended <- jobOutcome{summary: summary, err: err}
	}()
	var out jobOutcome
	abandoned := false
	select {
	case out = <-ended:
	case <-jctx.Done():
		// Cancelled: the job should return soon; one that ignores its
		// context does not hold up the stop (or the next runs) for ever.
		grace := time.NewTimer(r.StopGrace)
		select {
		case out = <-ended:
		case <-grace.C:
			abandoned = true
			out.err = fmt.Errorf("%w within %s (%v)", ErrAbandoned, r.StopGrace, context.Cause(jctx))
			log.Error("job still running after it was cancelled: recorded as it stands, not started again until it returns",
				"grace", r.StopGrace.String())
			go func() { <-ended; release() }()
		}
		grace.Stop()
	}
	close(stopRenew)
	<-renewDone
	out.cause = context.Cause(jctx)
	return out, abandoned
}

// end records how the run ended, logs it and sends its notice.
func (r *Runner) end(ctx context.Context, job Job, res Result, out jobOutcome, log *slog.Logger) (Result, error) {
	res.Summary = strings.TrimSpace(out.summary)
	res.Outcome, res.Err = r.classify(ctx, out.cause, job, out.err)
	res.Finished = r.Now()
	errText := ""
	if res.Err != nil {
		errText = res.Err.Error()
	}
	if err := r.finish(context.WithoutCancel(ctx), job.Name, res.RunID, res, errText); err != nil {
		return res, fmt.Errorf("job %s: record end of run %d: %w", job.Name, res.RunID, err)
	}
	logEnd(log, res)
	r.notify(ctx, job, res, errText, log)
	return res, nil
}

// logEnd logs the end of a run: at info when it went well, warn when it
// found breaks, error otherwise (with the stack of a panic).
func logEnd(log *slog.Logger, res Result) {
	attrs := []any{"outcome", res.Outcome, "duration", res.Finished.Sub(res.Started).Round(time.Millisecond).String()}
	switch res.Outcome {
	case OutcomeOK:
		log.Info("job finished", attrs...)
	case OutcomeBreaks:
		log.Warn("job finished", append(attrs, "summary", lastLine(res.Summary))...)
	case OutcomePanic:
		var pe *PanicError
		errors.As(res.Err, &pe)
		log.Error("job panicked", append(attrs, "err", res.Err, "stack", string(pe.Stack))...)
	default:
		log.Error("job finished", append(attrs, "err", res.Err)...)
	}
}

// notify sends the notice of a run that ended with breaks, failed or
// panicked, when its job has a Notify URL. A notice that cannot be sent is
// logged; the run's outcome stays as recorded. It does not wait past a
// minute, and a stopping scheduler still sends it.
func (r *Runner) notify(ctx context.Context, job Job, res Result, errText string, log *slog.Logger) {
	switch res.Outcome {
	case OutcomeBreaks, OutcomeFailed, OutcomePanic, OutcomeMissed:
	default:
		return
	}
	if job.Notify == "" {
		return
	}
	nt := r.Notifier
	if nt == nil {
		nt = &Notifier{Log: r.Log}
	}
	n := NoticeFor(job.Name, job.Command, res.Trigger, res.RunID, res.Outcome, res.Started, res.Finished, res.Summary, errText)
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := nt.Send(nctx, job.Notify, n); err != nil {
		log.Error("notification not sent; the run's outcome stands", "outcome", res.Outcome, "err", err)
	}
}

// call runs fn, turning a panic into a *PanicError.
func call(ctx context.Context, fn JobFunc, run Run) (summary string, err error) {
	defer func() {
		if v := recover(); v != nil {
			summary, err = "", &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, run)
}

// classify says what a run's outcome was from its job's error, the
// scheduler's context (parent) and why the job's own context ended (cause).
func (r *Runner) classify(parent context.Context, cause error, job Job, err error) (string, error) {
	var pe *PanicError
	switch {
	case errors.As(err, &pe):
		return OutcomePanic, err
	case err == nil:
		return OutcomeOK, nil
	case errors.Is(err, ErrBreaks):
		return OutcomeBreaks, err
	case parent.Err() != nil:
		return OutcomeCancelled, fmt.Errorf("cancelled (%v): %w", context.Cause(parent), err)
	case errors.Is(cause, ErrTimeout):
		return OutcomeFailed, fmt.Errorf("timed out after %s: %w", job.Timeout, err)
	case errors.Is(cause, ErrLeaseLost):
		return OutcomeFailed, fmt.Errorf("%w: %w", ErrLeaseLost, err)
	}
	return OutcomeFailed, err
}

// skip records a run that was not started (unless another scheduler took
// its fire time: then nothing).
func (r *Runner) skip(ctx context.Context, job Job, trigger string, fireAt time.Time, reason string) (Result, error) {
	now := r.Now()
	res := Result{Job: job.Name, Trigger: trigger, Outcome: OutcomeSkipped, Summary: reason, Started: now, Finished: now}
	b, err := r.DB.SkipJobRun(context.WithoutCancel(ctx), r.start(job, trigger, fireAt, now), reason)
	if err != nil {
		return res, fmt.Errorf("job %s: record skipped run: %w", job.Name, err)
	}
	if b.FireTakenBy != "" {
		return Result{Job: job.Name, Trigger: trigger, TakenBy: b.FireTakenBy}, nil
	}
	res.RunID = b.ID
	r.Log.Warn("job skipped", AttrJob, job.Name, AttrRun, res.RunID, "trigger", trigger, "reason", reason)
	return res, nil
}
