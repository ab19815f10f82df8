package ledger_test

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// peakHeap samples the heap in use until stop is called and returns the
// highest value seen, in MiB.
func peakHeap() (stop func() float64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapInuse > peak.Load() {
			peak.Store(m.HeapInuse)
		}
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(25 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() float64 {
		close(done)
		<-finished
		sample()
		return float64(peak.Load()) / (1 << 20)
	}
}

// BenchmarkLedger imports the sandbox's call log and checks the whole
// period against its statement. LEDGER_BENCH_RECORDS sets the size
// (default 100000; the figure is 1000000):
//
//	LEDGER_BENCH_RECORDS=1000000 go test -run '^$' -bench Ledger -benchtime 1x -timeout 60m ./internal/ledger/
func BenchmarkLedger(b *testing.B) {
	n := 100_000
	if v := os.Getenv("LEDGER_BENCH_RECORDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("LEDGER_BENCH_RECORDS=%q: %v", v, err)
		}
	}
	ctx := context.Background()
	end := time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)
	t0 := time.Now()
	srv := startSandbox(b, sandbox.Options{Seed: 1, TotalRecords: n, End: end})
	b.Logf("sandbox: %d statement records, %d orders, %d call-log lines generated in %s",
		srv.Counts().Statement, srv.Counts().Orders, srv.Counts().Calls, time.Since(t0).Round(time.Millisecond))
	db := openDB(b)
	cl, err := svcapi.New(srv.Config())
	if err != nil {
		b.Fatal(err)
	}
	from, to := srv.Period()
	t0 = time.Now()
	if _, err := statement.Sync(ctx, statement.Options{DB: db, Client: cl, Account: srv.Credentials().Account,
		From: from, To: to, Kinds: []recon.Kind{recon.Statement}, PageSize: 1000,
		Log: slog.New(slog.DiscardHandler)}); err != nil {
		b.Fatalf("sync: %v", err)
	}
	b.Logf("setup: statement synced in %s", time.Since(t0).Round(time.Millisecond))
	path := filepath.Join(b.TempDir(), "calls.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := srv.WriteCallLog(bw); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	b.Logf("setup: call log %d MiB", st.Size()>>20)

	b.Run("import", func(b *testing.B) {
		for range b.N {
			stop := peakHeap()
			start := time.Now()
			sum, err := calllog.ImportFiles(ctx, db, []string{path}, calllog.Options{})
			el := time.Since(start)
			peak := stop()
			if err != nil || sum.Bad != 0 {
				b.Fatalf("import: %+v %v", sum, err)
			}
			b.ReportMetric(float64(sum.Lines)/el.Seconds(), "lines/s")
			b.ReportMetric(peak, "peak-heap-MiB")
			b.Logf("import: %d lines (%d new) in %s", sum.Lines, sum.Imported, el.Round(time.Millisecond))
		}
	})
	b.Run("check", func(b *testing.B) {
		for range b.N {
			stop := peakHeap()
			start := time.Now()
			rep, err := ledger.Check(ctx, db, ledger.CheckOptions{From: from, To: to})
			el := time.Since(start)
			peak := stop()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(el.Seconds(), "check-s")
			b.ReportMetric(peak, "peak-heap-MiB")
			s := rep.Summary
			b.Logf("check: %d calls, %d records matched, %d reversed; breaks: %d arithmetic, %d gap, %d explainedGap; in %s",
				s.Calls, s.Outcomes[recon.Matched].Count, s.Outcomes[recon.Reversed].Count, s.Breaks[recon.BreakArithmetic].Count,
				s.Breaks[recon.BreakGap].Count, s.Breaks[recon.BreakExplainedGap].Count, el.Round(time.Millisecond))
		}
	})
}
