package evidence

import (
	"context"
	"log/slog"
	"sync"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// DayKeeper digests the days a sync has just written, beside the sync, and
// keeps their digests (day_digests) at the days' versions: the check that
// follows finds them kept and does not read the month's records a second
// time for its manifest (at 10M calls that second read came from the disk,
// the records just written being still in the page cache now).
//
// It is an optimisation only: a day it could not digest (an error, the
// context cancelled) is logged and left to the check, which digests every
// day whose kept digest does not hold at its version, as before; a day
// written again after its digest (a later walk, another process) has moved
// its version, so the digest no longer holds and is computed again.
type DayKeeper struct {
	db   Store
	log  *slog.Logger
	wake chan struct{} // a day was handed, or Close was called
	done chan struct{} // closed when run returned

	mu     sync.Mutex
	queue  []keptDay
	closed bool

	digested, failed int // run's counts, read after done
}

type keptDay struct {
	kind recon.Kind
	day  string
}

// KeepDays starts a DayKeeper on db; hand it each day whose records a sync
// committed (Ended), and Close it when the sync returned.
func KeepDays(ctx context.Context, db Store, log *slog.Logger) *DayKeeper {
	k := &DayKeeper{db: db, log: log, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go k.run(ctx)
	return k
}

// Ended hands the keeper a day of kind k whose records are committed. It
// never blocks the sync: the day waits in a queue.
func (k *DayKeeper) Ended(kind recon.Kind, day string) {
	k.mu.Lock()
	k.queue = append(k.queue, keptDay{kind, day})
	k.mu.Unlock()
	k.signal()
}

// Close waits until every day handed is digested (or the context ended)
// and logs how many were.
func (k *DayKeeper) Close() {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	k.signal()
	<-k.done
	if k.digested+k.failed > 0 {
		k.log.Debug("days digested beside the sync", "days", k.digested, "failed", k.failed)
	}
}

func (k *DayKeeper) signal() {
	select {
	case k.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// run digests the days in the order they were handed until Close.
func (k *DayKeeper) run(ctx context.Context) {
	defer close(k.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.wake:
		}
		k.mu.Lock()
		days, closed := k.queue, k.closed
		k.queue = nil
		k.mu.Unlock()
		for _, d := range days {
			if ctx.Err() != nil {
				return
			}
			if _, err := dayInputs(ctx, k.db, d.kind, []string{d.day}, true); err != nil {
				k.failed++
				k.log.WarnContext(ctx, "day not digested beside the sync: the check will digest it",
					"kind", d.kind, "day", d.day, "error", err.Error())
				continue
			}
			k.digested++
		}
		if closed {
			return
		}
	}
}
