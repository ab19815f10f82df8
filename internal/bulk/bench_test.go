package bulk

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// BenchmarkRun50ms measures rows per second against the sandbox answering
// every call after 50 ms (Faults.Latency): concurrency 32 (ideal 32 / 0.05 s = 640 rows/s)
// and one row at a time, as newman would (ideal 20 rows/s). Each iteration
// is a whole run with its journal in a fresh SQLite file. Sizes:
// BULK_BENCH_ROWS (default 10000) and BULK_BENCH_SEQ_ROWS (default 500).
//
//	go test ./internal/bulk/ -run '^$' -bench Run50ms -benchtime 1x
func BenchmarkRun50ms(b *testing.B) {
	rows := envInt("BULK_BENCH_ROWS", 10000)
	seqRows := envInt("BULK_BENCH_SEQ_ROWS", 500)
	for _, bc := range []struct {
		name       string
		rows, conc int
	}{
		{"concurrency32", rows, 32},
		{"sequential", seqRows, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				b.StopTimer()
				srv, err := sandbox.Start(sandbox.Options{Days: 2, NoDefects: true, Faults: sandbox.Faults{Latency: 50 * time.Millisecond}})
				if err != nil {
					b.Fatal(err)
				}
				fx := newFixtureFor(b, bc.rows, srv.Config())
				r := fx.runner(bc.conc)
				r.Secret = srv.Config().ClientSecret
				b.StartTimer()
				start := time.Now()
				sum, err := r.Execute(context.Background(), fx.run, fx.rows)
				total += time.Since(start)
				srv.Close()
				if err != nil || sum.Success != bc.rows {
					b.Fatalf("Execute = %+v, %v", sum.Counts, err)
				}
			}
			rate := float64(bc.rows*b.N) / total.Seconds()
			ideal := float64(bc.conc) / 0.05
			b.ReportMetric(rate, "rows/s")
			b.ReportMetric(100*rate/ideal, "%ideal")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkResultsCSV writes the results CSV of a whole run of
// BULK_BENCH_ROWS rows (default 10000, sent to the sandbox without
// latency before the timer starts): what bulkrun does after the last
// call, before it exits.
//
//	go test ./internal/bulk/ -run '^$' -bench ResultsCSV -benchtime 10x
func BenchmarkResultsCSV(b *testing.B) {
	rows := envInt("BULK_BENCH_ROWS", 10000)
	srv, err := sandbox.Start(sandbox.Options{Days: 2, NoDefects: true})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	fx := newFixtureFor(b, rows, srv.Config())
	r := fx.runner(32)
	r.Secret = srv.Config().ClientSecret
	ctx := context.Background()
	if sum, err := r.Execute(ctx, fx.run, fx.rows); err != nil || sum.Success != rows {
		b.Fatalf("Execute = %+v, %v", sum.Counts, err)
	}
	rs := &Results{DB: fx.db, Run: fx.run, Table: fx.table, Op: mustOp(b, fx.run.Op), Secret: r.Secret}
	out := filepath.Join(b.TempDir(), "results.csv")
	b.ResetTimer()
	for range b.N {
		if err := rs.WriteCSV(ctx, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*rows), "µs/row")
}
