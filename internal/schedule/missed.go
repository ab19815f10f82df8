package schedule

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A scheduled fire whose run cannot be recorded (the database is down)
// is not run — a run that cannot take its lease and fire time could run
// twice — and is not lost silently either: it is logged at once, kept in
// memory, and recorded as a skipped run, with a notice to the job's Notify
// URL, when the database answers again (the next fire of any job, or a
// retry every Retry).

// OutcomeMissed is the outcome of a notice for a scheduled fire that was
// not run because the database was unavailable at its time; the run is
// recorded as OutcomeSkipped once the database is back.
const OutcomeMissed = "missed"

// DefaultRetry is Runner.Retry's default.
const DefaultRetry = time.Minute

// missedKept bounds the fires kept per job; more are counted.
const missedKept = 20

// missedFire is a scheduled fire that could not be recorded.
type missedFire struct {
	fireAt time.Time
	at     time.Time // when it fired
	err    string    // why it could not be recorded
}

// missedFires are the fires lost while the database was down, by job.
type missedFires struct {
	mu    sync.Mutex
	fires map[string][]missedFire
	more  map[string]int // fires beyond missedKept
}

// add keeps a lost fire of job.
func (m *missedFires) add(job string, f missedFire) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fires == nil {
		m.fires, m.more = map[string][]missedFire{}, map[string]int{}
	}
	if len(m.fires[job]) >= missedKept {
		m.more[job]++
		return
	}
	m.fires[job] = append(m.fires[job], f)
}

// any reports whether fires are kept.
func (m *missedFires) any() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.fires) > 0
}

// take returns the lost fires of one job and forgets them ("" when none).
func (m *missedFires) take() (job string, fires []missedFire, more int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for j, fs := range m.fires {
		delete(m.fires, j)
		more = m.more[j]
		delete(m.more, j)
		return j, fs, more
	}
	return "", nil, 0
}

// putBack keeps fires of job again (the database is still down).
func (m *missedFires) putBack(job string, fires []missedFire, more int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fires == nil {
		m.fires, m.more = map[string][]missedFire{}, map[string]int{}
	}
	m.fires[job] = append(fires, m.fires[job]...)
	m.more[job] += more
}

// lost logs a scheduled fire of job whose run could not be recorded, and
// keeps it for recordMissed.
func (r *Runner) lost(job Job, fireAt time.Time, err error) {
	r.missed.add(job.Name, missedFire{fireAt: fireAt, at: r.Now(), err: err.Error()})
	r.Log.Error("scheduled run lost: the database is unavailable; it is recorded and notified when the database is back",
		AttrJob, job.Name, "fireAt", fireAt.Format(time.RFC3339), "err", err)
}

// recordMissed records the fires lost while the database was down, each
// as a skipped run with why, and sends one notice per job; it stops at the
// first that cannot be recorded (still down), keeping the rest.
func (r *Runner) recordMissed(ctx context.Context) {
	for {
		name, fires, more := r.missed.take()
		if name == "" {
			return
		}
		job, ok := r.File.Job(name)
		if !ok {
			continue
		}
		var notRun []missedFire
		for i, f := range fires {
			ranElsewhere, err := r.recordOne(ctx, job, f)
			if err != nil {
				r.missed.putBack(name, fires[i:], more)
				r.Log.Warn("lost scheduled runs not recorded yet: the database is still unavailable", AttrJob, name, "err", err)
				if len(notRun) > 0 {
					r.notifyMissed(ctx, job, notRun, 0)
				}
				return
			}
			if !ranElsewhere {
				notRun = append(notRun, f)
			}
		}
		if len(notRun)+more > 0 {
			r.notifyMissed(ctx, job, notRun, more)
		}
	}
}

// recordOne records one lost fire as a skipped run, unless another
// scheduler took that fire time: then it ran there (true).
func (r *Runner) recordOne(ctx context.Context, job Job, f missedFire) (bool, error) {
	reason := fmt.Sprintf("missed: the database was unavailable at %s (%s)", f.at.Format(time.RFC3339), f.err)
	b, err := r.DB.SkipJobRun(context.WithoutCancel(ctx), r.start(job, TriggerSchedule, f.fireAt, r.Now()), reason)
	if err != nil {
		return false, err
	}
	if b.FireTakenBy != "" {
		r.Log.Info("a scheduled run lost here was run by another scheduler", AttrJob, job.Name,
			"fireAt", f.fireAt.Format(time.RFC3339), "holder", b.FireTakenBy)
		return true, nil
	}
	r.Log.Warn("scheduled run missed while the database was unavailable: recorded as skipped", AttrJob, job.Name, AttrRun, b.ID,
		"fireAt", f.fireAt.Format(time.RFC3339))
	return false, nil
}

// notifyMissed sends the notice of a job's lost fires.
func (r *Runner) notifyMissed(ctx context.Context, job Job, fires []missedFire, more int) {
	n := len(fires) + more
	if len(fires) == 0 {
		return // every fire kept ran on another scheduler
	}
	first, last := fires[0], fires[len(fires)-1]
	errText := fmt.Sprintf("%d scheduled run(s) not run: the database was unavailable at %s", n, first.fireAt.Format(time.RFC3339))
	if n > 1 {
		errText += " and after, until " + last.fireAt.Format(time.RFC3339)
	}
	errText += " (" + last.err + ")"
	res := Result{Job: job.Name, Trigger: TriggerSchedule, Outcome: OutcomeMissed, Started: first.fireAt, Finished: r.Now()}
	r.notify(ctx, job, res, errText, r.Log.With(AttrJob, job.Name))
}

// retryMissed records the lost fires every Retry until ctx ends.
func (r *Runner) retryMissed(ctx context.Context) {
	after := r.RetryAfter
	if after == nil {
		after = time.After
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-after(r.Retry):
		}
		r.recordMissed(ctx)
	}
}
