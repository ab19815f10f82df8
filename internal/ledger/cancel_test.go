package ledger

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// endless yields n values of at(i) and ignores the context (as a stream
// that keeps reading would); it counts what it yielded and calls cut after
// the cutAt-th value.
func endless[T any](n int, at func(int) T, yielded *int, cutAt int, cut func()) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for i := range n {
			if *yielded++; *yielded == cutAt {
				cut()
			}
			if !yield(at(i), nil) {
				return
			}
		}
	}
}

// TestStagesStopWhenCancelled: the stages stop reading their streams soon
// after their context is done (SIGTERM, Ctrl-C), even from streams that
// would go on: the calls, and the records read after the last call.
func TestStagesStopWhenCancelled(t *testing.T) {
	const n, cutAt = 20_000, 5_000
	base := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	ts := func(i int) string { return base.Add(time.Duration(i) * time.Second).Format(recon.TimestampLayout) }
	call := func(i int) recon.Call {
		open := 1_000_000 - i
		return recon.Call{ID: int64(i + 1), TS: ts(i), ExternalRef: fmt.Sprint("R", i), OrderID: fmt.Sprint("O", i),
			Outcome: recon.CallSuccess, Pool: pool(fmt.Sprint(open), "1", fmt.Sprint(open-1))}
	}
	record := func(i int) Record { return rec(fmt.Sprint("O", i), fmt.Sprint("R", i), ts(i), "DR", "1", "") }
	for _, tt := range []struct {
		name       string
		calls      int // the calls stream's length; the records stream has n
		cutRecords bool
	}{
		{"calls", n, false},
		{"records after the last call", 10, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := newMemStore(nil, nil, nil)
			per, err := loadPeriod(ctx, m, Window{From: memFrom, To: memTo}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			var readCalls, readRecs int
			callCut, recCut := cutAt, 0
			if tt.cutRecords {
				callCut, recCut = 0, cutAt
			}
			calls := endless(tt.calls, call, &readCalls, callCut, cancel)
			recs := endless(n, record, &readRecs, recCut, cancel)
			_, err = runStages(ctx, &per, stageOptions{tol: Tolerances{PairWindow: DefaultPairWindow}}, m, m, calls, recs)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("stages = %v, want context.Canceled", err)
			}
			read := readCalls
			if tt.cutRecords {
				read = readRecs
			}
			if read > cutAt+liveEvery+recordSpan {
				t.Errorf("read %d values, cancelled at %d: want at most %d more", read, cutAt, liveEvery+recordSpan)
			}
		})
	}
}
