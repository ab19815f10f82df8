package schedule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// A run holds its job's lease (the leases table) from its start to its
// end, renewed while it runs, so that two processes on one database never
// run one job at once; a lease whose holder died (its process is gone from
// this host, or the lease expired) is taken over.

// NewHolder returns a lease holder name for this process: host:pid:random.
func NewHolder() string {
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s:%d:%s", strings.ReplaceAll(hostName(), ":", "_"), os.Getpid(), hex.EncodeToString(b))
}

// hostName is this host's name, "unknown" when it has none.
func hostName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		return "unknown"
	}
	return host
}

// start is a run of job by this runner, at now.
func (r *Runner) start(job Job, trigger string, fireAt, now time.Time) recon.JobStart {
	return recon.JobStart{Job: job.Name, Trigger: trigger, Holder: r.Holder, Host: r.Host, Now: now, TTL: r.LeaseTTL, FireAt: fireAt}
}

// begin takes the run's fire time and the job's lease and records the run
// as running, in one write transaction. When another live holder has the
// lease it records the run as skipped and returns why in HeldBy; when
// another scheduler took the fire time, it records nothing.
func (r *Runner) begin(ctx context.Context, job Job, trigger string, fireAt, now time.Time) (recon.JobBegun, error) {
	return r.DB.BeginJobRun(ctx, r.start(job, trigger, fireAt, now), func(holder, expiresText string, expires time.Time) string {
		switch {
		case !expires.IsZero() && !expires.After(now):
			r.Log.Warn("taking over expired lease", AttrJob, job.Name, "holder", holder, "expired", expiresText)
		case holderDead(holder):
			r.Log.Warn("taking over lease of a process that is gone", AttrJob, job.Name, "holder", holder)
		default:
			return fmt.Sprintf("skipped (lease held by %s until %s)", holder, expiresText)
		}
		return ""
	})
}

// renew extends the lease every LeaseTTL/4 until stop is closed. If another
// holder has taken the lease, it cancels the run with ErrLeaseLost.
func (r *Runner) renew(ctx context.Context, name string, log *slog.Logger, stop <-chan struct{}, cancel context.CancelCauseFunc) {
	t := time.NewTicker(r.LeaseTTL / 4)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ok, err := r.renewOnce(context.WithoutCancel(ctx), name)
		switch {
		case err != nil:
			log.Warn("renew lease", "err", err) // try again at the next tick
		case !ok:
			log.Error("lease lost: another holder took it over; cancelling the run")
			cancel(ErrLeaseLost)
			return
		}
	}
}

// renewOnce extends this runner's lease on name; false if it holds it no more.
func (r *Runner) renewOnce(ctx context.Context, name string) (bool, error) {
	return r.DB.RenewLease(ctx, name, r.Holder, r.Now().Add(r.LeaseTTL))
}

// finish records the end of a run and releases the lease.
func (r *Runner) finish(ctx context.Context, name string, id int64, res Result, errText string) error {
	return r.DB.FinishJobRun(ctx, id, name, r.Holder, res.Finished, res.Outcome, res.Summary, errText)
}

// holderDead reports whether holder (host:pid:random) names a process of
// this host that no longer exists. Any doubt counts as alive.
func holderDead(holder string) bool {
	parts := strings.Split(holder, ":")
	if len(parts) < 3 {
		return false
	}
	host := strings.Join(parts[:len(parts)-2], ":")
	pid, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil || pid <= 0 {
		return false
	}
	me, err := os.Hostname()
	if err != nil || strings.ReplaceAll(me, ":", "_") != host || pid == os.Getpid() {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH)
}
