package bulk

import (
	"context"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// Dead processes: a run whose holder (or every worker) died is swept — by
// bulkrun status, or by the next process that takes it — and taken over:
// the rows it left 'sending' are looked up with the transaction-status
// look-up, and those the service never executed are sent again.

// RunInterrupted is the state of a run whose process died while it was
// running, found so by Sweep: bulkrun resume continues it.
const RunInterrupted = store.BulkInterrupted

// Sweep clears what dead processes left of run runID: a lease, or workers,
// whose holder is gone (Stale: its pid no longer runs on this host, or its
// heartbeat is older than Timeout by the database's clock) are removed,
// their 'sending' rows become pending (ReasonDiedSending), and a run left
// running by them becomes RunInterrupted. A run a live process holds is
// left as it is. Each process found gone is logged.
func (ls *Leases) Sweep(ctx context.Context, runID string) (store.BulkSweep, error) {
	s, err := ls.DB.SweepBulkRun(ctx, runID, ls.Stale, ReasonDiedSending)
	if err != nil {
		return s, err
	}
	if ls.Log != nil {
		for _, g := range s.Gone {
			ls.Log.Warn("the process working on this run is gone: its rows in flight are pending, for the transaction-status look-up",
				LogRun, runID, "host", g.Host, "pid", g.PID, "heartbeat", g.Heartbeat.In(recon.IST).Format(time.DateTime))
		}
		if s.Interrupted {
			ls.Log.Warn("run interrupted: nobody works on it; bulkrun resume continues it", LogRun, runID, "pending", s.Pended)
		}
	}
	return s, nil
}

// takeOver looks up the rows dead processes left pending (ReasonDiedSending)
// with Runner.Recheck, when it is set: executed ones become success or
// failed, and those the service never executed unsent, for this Execute to
// send. Rows sent less than its MinWait ago stay pending.
func (r *Runner) takeOver(ctx context.Context, run *Run, log *slog.Logger) (RecheckSummary, error) {
	if r.Recheck == nil {
		return RecheckSummary{}, nil
	}
	rc := *r.Recheck
	rc.only = func(e Entry) bool { return e.State == StatePending && e.Error == ReasonDiedSending }
	s, err := rc.Recheck(ctx, run)
	if s.Checked > 0 {
		log.Info("rows a dead process left were looked up", "checked", s.Checked, "success", s.Success, "failed", s.Failed,
			"notExecuted", s.NotExecuted, "stillPending", s.StillPending, "lookupErrors", s.LookupErrors)
	}
	return s, err
}

// takeOverGone, for a worker of a shared run that found no row left,
// reaps the workers gone meanwhile and looks their rows up (takeOver); it
// reports whether rows were returned to unsent, to be claimed again.
func (r *Runner) takeOverGone(ctx context.Context, run *Run, ex *execution, sum *Summary, log *slog.Logger) bool {
	if ex.stopped() != "" || r.Recheck == nil {
		return false
	}
	n, err := r.Lease.reap(ctx, log)
	if err != nil {
		ex.stop(StopError, err)
		return false
	}
	sum.Recovered += n
	if n == 0 {
		return false
	}
	rs, err := r.takeOver(ctx, run, log)
	sum.TakenOver.add(rs, false)
	if err != nil {
		ex.stop(StopError, err)
		return false
	}
	return rs.NotExecuted > 0
}
