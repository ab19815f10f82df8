package statement

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
)

// maxBatchRows bounds the records of one write transaction.
const maxBatchRows = 20000

// job is one unit of work for the writer: the records of a page and/or its
// window's checkpoint, stored in the same transaction. done, when set, is
// called after the transaction committed (or failed).
type job struct {
	page store.RecordPage
	done func(error)
}

// writers are the goroutines that write a Sync's pages to the database:
// Store.RecordWriters of them (one on SQLite), each with its own queue.
// All the jobs of a window go to the same writer, so that its pages are
// stored in the order they were fetched; a window starting its walk takes
// the writer with the fewest windows walking (take), whatever their kind
// and size.
type writers struct {
	ws   []*writer
	errc chan error
	mu   sync.Mutex
	busy []int // windows walking on each writer
}

// take returns the writer for a window starting its walk: the one with
// the fewest windows walking (the first of those). done gives it back.
func (ws *writers) take() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	i := 0
	for j, n := range ws.busy {
		if n < ws.busy[i] {
			i = j
		}
	}
	ws.busy[i]++
	return i
}

// done ends a window's walk on writer i.
func (ws *writers) done(i int) {
	ws.mu.Lock()
	ws.busy[i]--
	ws.mu.Unlock()
}

// startWriters starts db.RecordWriters writers (at least one), sharing a
// queue of queue jobs (each at least one); onErr is called with the first
// error of each.
func startWriters(ctx context.Context, db Store, now func() time.Time, queue int, onErr func(error)) *writers {
	n := max(db.RecordWriters(), 1)
	ws := &writers{ws: make([]*writer, n), busy: make([]int, n), errc: make(chan error, n)}
	for i := range ws.ws {
		wr := &writer{db: db, now: now, jobs: make(chan job, max(queue/n, 1))}
		ws.ws[i] = wr
		go func() { ws.errc <- wr.run(ctx, onErr) }()
	}
	return ws
}

// send queues j, a job of window w, on w's writer (take).
func (ws *writers) send(w *window, j job) { ws.ws[w.writer].jobs <- j }

// close ends the queues, waits for the writers to store what they hold,
// and returns the first error of one and the records inserted and changed
// in all.
func (ws *writers) close() (newN, updN int, err error) {
	for _, wr := range ws.ws {
		close(wr.jobs)
	}
	for range ws.ws {
		if werr := <-ws.errc; err == nil {
			err = werr
		}
	}
	for _, wr := range ws.ws {
		newN, updN = newN+wr.newN, updN+wr.updN
	}
	return newN, updN, err
}

// writer is one goroutine that writes to the database during a Sync.
type writer struct {
	db   Store
	now  func() time.Time
	jobs chan job
	newN int
	updN int
}

// run applies jobs until the channel is closed, batching the jobs waiting
// into one transaction. It writes with a context that is not cancelled, so
// that pages already fetched when a run is interrupted are kept. After a
// failure it keeps draining (failing every job) and returns the first error.
func (wr *writer) run(ctx context.Context, onErr func(error)) error {
	ctx = context.WithoutCancel(ctx)
	var failed error
	batch := make([]job, 0, 64)
	pages := make([]store.RecordPage, 0, 64)
	for j := range wr.jobs {
		batch = append(batch[:0], j)
		rows := len(j.page.Records)
	more:
		for rows < maxBatchRows {
			select {
			case j, ok := <-wr.jobs:
				if !ok {
					break more
				}
				batch = append(batch, j)
				rows += len(j.page.Records)
			default:
				break more
			}
		}
		err := failed
		if err == nil {
			pages = pages[:0]
			for _, j := range batch {
				pages = append(pages, j.page)
			}
			var newN, updN int
			newN, updN, err = wr.db.WriteRecords(ctx, wr.now(), pages)
			if err != nil {
				failed = fmt.Errorf("write: %w", err)
				err = failed
				onErr(failed)
			} else {
				wr.newN += newN
				wr.updN += updN
			}
		}
		for _, j := range batch {
			if j.done != nil {
				j.done(err)
			}
		}
	}
	return failed
}
