package statement

import (
	"context"
	"fmt"
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

// writer is the one goroutine that writes to the database during a Sync.
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
