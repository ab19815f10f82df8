package bulk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// Leaser is what the lease of a run needs of the store (bulk_leases).
// *store.DB implements it.
type Leaser interface {
	// AcquireBulkLease takes the lease of run l.RunID for l.Holder; when
	// another holder has it, stale decides whether it is taken over.
	AcquireBulkLease(ctx context.Context, l store.BulkLease, stale func(store.BulkLease) bool) (acquired bool, other *store.BulkLease, err error)
	// RenewBulkLease records holder's heartbeat; false when the lease was
	// taken over.
	RenewBulkLease(ctx context.Context, runID, holder string, at time.Time) (bool, error)
	// ReleaseBulkLease gives up holder's lease.
	ReleaseBulkLease(ctx context.Context, runID, holder string) error
	// BulkRunLease returns the lease of a run, or nil.
	BulkRunLease(ctx context.Context, runID string) (*store.BulkLease, error)

	// The workers of shared runs (Leases.Shared): see store.DB.
	JoinBulkRun(ctx context.Context, w store.BulkLease) error
	RenewBulkWorker(ctx context.Context, runID, worker string, at time.Time) (bool, error)
	BulkWorkers(ctx context.Context, runID string) ([]store.BulkLease, error)
	ReapBulkWorkers(ctx context.Context, runID string, dead []store.BulkLease, reason string) (int, error)
	EndBulkWorker(ctx context.Context, runID, worker string, at time.Time) (state string, others int, err error)
	// SweepBulkRun clears what dead holders or workers left of a run (see
	// Leases.Sweep).
	SweepBulkRun(ctx context.Context, runID string, stale func(store.BulkLease) bool, reason string) (store.BulkSweep, error)
}

var _ Leaser = (*store.DB)(nil)

// Holder is a process that holds runs: its host name and pid, and an id
// unique to it (two holders in one process are told apart).
type Holder struct {
	ID   string
	Host string
	PID  int
}

// NewHolder returns a Holder for this process: host:pid:random.
func NewHolder() Holder {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	b := make([]byte, 4)
	rand.Read(b) // never fails (crypto/rand)
	pid := os.Getpid()
	h := Holder{ID: fmt.Sprintf("%s:%d:%s", host, pid, hex.EncodeToString(b)), Host: host, PID: pid}
	ownHolders.Store(h.ID, true)
	return h
}

// ownHolders are the holder ids NewHolder made in this process: a lease
// of this host and pid under another id was left by an earlier process
// that had the same pid (pids are reused, in containers soon).
var ownHolders sync.Map

// Lease defaults.
const (
	// DefaultHeartbeat is how often a holder renews its lease.
	DefaultHeartbeat = 15 * time.Second
	// DefaultLeaseTimeout is how old a heartbeat must be for its lease to
	// be taken over from a holder on another host (or one whose pid was
	// reused): a holder that stopped renewing for this long is gone.
	DefaultLeaseTimeout = 2 * time.Minute
)

// Leases takes and keeps the leases of runs for one Holder: one run, one
// holder at a time — or, Shared, one run, many workers. Set DB and Holder;
// the rest is optional.
type Leases struct {
	DB     Leaser
	Holder Holder
	Log    *slog.Logger
	// Shared makes the holder one of the run's workers (bulk_workers)
	// instead of its only holder: several processes, on this host or
	// others, work on the run at once, each claiming rows (PostgreSQL).
	// Nobody is refused; a worker found gone is reaped by the others.
	Shared bool
	// Heartbeat is how often a held lease is renewed (DefaultHeartbeat).
	Heartbeat time.Duration
	// Timeout is the age of a heartbeat past which its lease is taken over
	// (DefaultLeaseTimeout).
	Timeout time.Duration
	// Now, when set, is the clock of since and heartbeats and of their
	// age (tests). By default every host uses the database's clock: the
	// store writes its time where none is given (store.BulkLease) and
	// gives it with every lease it reads (BulkLease.Now), so a heartbeat's
	// age never depends on a host's clock.
	Now func() time.Time
	// After waits for the next heartbeat; default time.After. Tests pass a
	// channel they control.
	After func(time.Duration) <-chan time.Time
	// Alive reports whether a process of this host runs with this pid;
	// default: syscall.Kill(pid, 0) succeeds or is refused for permission.
	Alive func(pid int) bool
}

// now is the time a lease written now records: Now's, or zero for the
// database's clock.
func (ls *Leases) now() time.Time {
	if ls.Now == nil {
		return time.Time{}
	}
	return ls.Now()
}

// clockAt is the time by which lease l's age is judged: Now's, or the
// database's when l was read (the host's for a lease not read from it).
func (ls *Leases) clockAt(l store.BulkLease) time.Time {
	switch {
	case ls.Now != nil:
		return ls.Now()
	case !l.Now.IsZero():
		return l.Now
	}
	return time.Now()
}

// alive is the default Leases.Alive.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Stale reports whether lease l's holder is gone: a process of this host
// whose pid no longer runs (or is this process's, under an id this process
// did not make), or a heartbeat older than the timeout by the database's
// clock (clockAt).
func (ls *Leases) Stale(l store.BulkLease) bool {
	isAlive := ls.Alive
	if isAlive == nil {
		isAlive = alive
	}
	if l.Host == ls.Holder.Host && l.PID > 0 {
		if l.PID == os.Getpid() {
			if _, mine := ownHolders.Load(l.Holder); !mine {
				return true // an earlier process with this pid
			}
		} else if !isAlive(l.PID) {
			return true
		}
	}
	timeout := ls.Timeout
	if timeout <= 0 {
		timeout = DefaultLeaseTimeout
	}
	return ls.clockAt(l).Sub(l.Heartbeat) > timeout
}

func (ls *Leases) lease(runID string) store.BulkLease {
	t := ls.now()
	return store.BulkLease{RunID: runID, Holder: ls.Holder.ID, Host: ls.Holder.Host, PID: ls.Holder.PID, Since: t, Heartbeat: t}
}

// HeldError refuses a run another live process holds. Nothing was changed.
// It matches ErrRefused (bulkrun exits 2).
type HeldError struct {
	RunID string
	Lease store.BulkLease
	Now   time.Time
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("run %s is held by another process: host %s, pid %d, since %s IST (last heartbeat %s ago); "+
		"it is working on the run: let it finish (bulkrun status %s), or stop it first",
		e.RunID, e.Lease.Host, e.Lease.PID, e.Lease.Since.In(recon.IST).Format(time.DateTime),
		e.Now.Sub(e.Lease.Heartbeat).Round(time.Second), e.RunID)
}

// Unwrap returns ErrRefused.
func (e *HeldError) Unwrap() error { return ErrRefused }

// Acquire takes the lease of run runID, taking over a stale one, and keeps
// it (a heartbeat every Heartbeat) until Release. Another live holder is a
// *HeldError. With Shared, it joins the run's workers instead (nobody is
// refused).
func (ls *Leases) Acquire(ctx context.Context, runID string) (*Lease, error) {
	l := ls.lease(runID)
	if ls.Shared {
		if err := ls.DB.JoinBulkRun(ctx, l); err != nil {
			return nil, err
		}
		return ls.keep(runID, nil), nil
	}
	ok, other, err := ls.DB.AcquireBulkLease(ctx, l, ls.Stale)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &HeldError{RunID: runID, Lease: *other, Now: ls.clockAt(*other)}
	}
	return ls.keep(runID, other), nil
}

// keep starts the heartbeat of a lease just taken (from other, when it
// was taken over).
func (ls *Leases) keep(runID string, other *store.BulkLease) *Lease {
	l := &Lease{ls: ls, RunID: runID, TookOver: other, shared: ls.Shared, since: ls.now(),
		lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	if other != nil && ls.Log != nil {
		ls.Log.Warn("took over the lease of a run whose holder is gone", LogRun, runID,
			"host", other.Host, "pid", other.PID, "heartbeat", other.Heartbeat.In(recon.IST).Format(time.DateTime))
	}
	go l.beat()
	return l
}

// Lease is a held lease of a run. Its heartbeat runs until Release.
type Lease struct {
	ls    *Leases
	RunID string
	// TookOver is the lease of the holder this one took over from (its
	// process was gone), or nil.
	TookOver *store.BulkLease

	shared bool      // one of the run's workers (Leases.Shared)
	since  time.Time // when the worker joined

	lost     chan struct{} // closed when another holder took the lease
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func (l *Lease) beat() {
	defer close(l.done)
	every := l.ls.Heartbeat
	if every <= 0 {
		every = DefaultHeartbeat
	}
	after := l.ls.After
	if after == nil {
		after = time.After
	}
	for {
		select {
		case <-l.stop:
			return
		case <-after(every):
		}
		if l.shared {
			// A worker that is no longer listed (it ended its part, or
			// was reaped as gone) is listed again by its next claim.
			if _, err := l.ls.DB.RenewBulkWorker(context.Background(), l.RunID, l.ls.Holder.ID, l.ls.now()); err != nil && l.ls.Log != nil {
				l.ls.Log.Warn("worker heartbeat not recorded; trying again at the next one", LogRun, l.RunID, "error", err.Error())
			}
			continue
		}
		ok, err := l.ls.DB.RenewBulkLease(context.Background(), l.RunID, l.ls.Holder.ID, l.ls.now())
		switch {
		case err != nil:
			if l.ls.Log != nil {
				l.ls.Log.Warn("lease heartbeat not recorded; trying again at the next one", LogRun, l.RunID, "error", err.Error())
			}
		case !ok:
			if l.ls.Log != nil {
				l.ls.Log.Error("the lease of this run was taken over by another process; starting no new call", LogRun, l.RunID)
			}
			close(l.lost)
			return
		}
	}
}

// Context returns a context cancelled with ctx or when the lease is lost.
// Call its cancel function when done.
func (l *Lease) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-l.lost:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Release stops the heartbeat and gives the lease up. It is safe to call
// more than once. A worker of a shared run leaves its workers; the last
// one to leave sets the run's state (store.DB.EndBulkWorker).
func (l *Lease) Release(ctx context.Context) error {
	var err error
	l.stopOnce.Do(func() {
		close(l.stop)
		<-l.done
		if l.shared {
			_, _, err = l.ls.DB.EndBulkWorker(context.WithoutCancel(ctx), l.RunID, l.ls.Holder.ID, now(l.ls.Now))
			return
		}
		err = l.ls.DB.ReleaseBulkLease(context.WithoutCancel(ctx), l.RunID, l.ls.Holder.ID)
	})
	return err
}

// Shared reports whether the lease makes its holder one of the run's
// workers (Leases.Shared) rather than its only holder.
func (l *Lease) Shared() bool { return l.shared }

// Worker is the worker id of the lease's holder (host:pid:random), as its
// claimed rows record it.
func (l *Lease) Worker() string { return l.ls.Holder.ID }

// worker is the lease's holder as a worker of run runID, heartbeat now.
func (l *Lease) worker() store.BulkLease {
	w := l.ls.lease(l.RunID)
	w.Since = l.since
	return w
}
