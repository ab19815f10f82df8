package bulk

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// captured keeps the last call record the client made.
type captured struct {
	mu  sync.Mutex
	rec svcapi.CallRecord
}

func (c *captured) Record(_ context.Context, r *svcapi.CallRecord) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rec = *r
	return nil
}

// BenchmarkJournalStep measures what a sender writes for one row between
// two calls, one at a time (no other sender shares the commit: the worst
// case): the calls table's record of the call (calllog.Recorder under
// store.DeferCalls), the row's outcome and the next row 'sending', in one
// transaction of a SQLite journal.
//
//	go test ./internal/bulk/ -run '^$' -bench JournalStep
func BenchmarkJournalStep(b *testing.B) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	var cap captured
	cfg := srv.Config()
	cfg.Recorders = []svcapi.Recorder{&cap}
	fx := newFixtureFor(b, b.N+1, cfg)
	ctx := context.Background()
	ex := &execution{Runner: fx.runner(1), run: fx.run, log: quietLog()}
	env, err := fx.client.Do(ctx, fx.run.Op, fx.rows[0].Body)
	if err != nil {
		b.Fatal(err)
	}
	res, _ := ex.outcome(env, nil, 1, []string{bulktest.ClientSecret})
	rec := calllog.NewRecorder(fx.db, nil)
	at := time.Now()
	if _, _, err := fx.db.StepBulkRows(ctx, fx.run.ID, store.BulkStep{Next: &store.BulkNext{Line: fx.rows[0].Line, Ref: fx.rows[0].Ref}, At: at}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		row, next := fx.rows[i], fx.rows[i+1]
		cr := cap.rec
		cr.ExternalRef, cr.At = row.Ref, at.Add(time.Duration(i)*time.Millisecond)
		cctx, calls := store.DeferCalls(ctx)
		if err := rec.Record(cctx, &cr); err != nil {
			b.Fatal(err)
		}
		done := res
		done.Line = row.Line
		if _, _, err := fx.db.StepBulkRows(ctx, fx.run.ID, store.BulkStep{Done: &done, Calls: calls,
			Next: &store.BulkNext{Line: next.Line, Ref: next.Ref}, At: cr.At}); err != nil {
			b.Fatal(err)
		}
	}
}
