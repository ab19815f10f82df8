package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// BenchmarkRunCommand50ms runs the whole command (validation, journal,
// calls table, call log, results CSV) against the sandbox answering after
// 50 ms: BULK_BENCH_ROWS rows (default 10000) at --concurrency 32 (ideal
// 640 rows/s), and BULK_BENCH_SEQ_ROWS rows (default 500) at --concurrency 1,
// one at a time as newman would (ideal 20 rows/s).
//
//	go test ./cmd/bulkrun/ -run '^$' -bench RunCommand50ms -benchtime 1x
func BenchmarkRunCommand50ms(b *testing.B) {
	for _, bc := range []struct {
		name string
		rows int
		conc int
	}{
		{"concurrency32", benchEnv("BULK_BENCH_ROWS", 10000), 32},
		{"sequential", benchEnv("BULK_BENCH_SEQ_ROWS", 500), 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				b.StopTimer()
				srv, err := sandbox.Start(sandbox.Options{Days: 2, NoDefects: true, Faults: sandbox.Faults{Latency: 50 * time.Millisecond}})
				if err != nil {
					b.Fatal(err)
				}
				dir := b.TempDir()
				in := writeInput(b, dir, bc.rows)
				b.StartTimer()
				start := time.Now()
				code, stdout, stderr := runCLIEnv(b, sandboxService{srv}.Environ(), "run", "--op", "verifyPanPlusV2", "--in", in,
					"--db", filepath.Join(dir, "bulk.db"), "--concurrency", strconv.Itoa(bc.conc),
					"--set", "longitude=77.59", "--set", "consent=Y", "--log-level", "error")
				total += time.Since(start)
				srv.Close()
				if code != 0 {
					b.Fatalf("exit %d\n%s%s", code, stdout, stderr)
				}
			}
			rate := float64(bc.rows*b.N) / total.Seconds()
			b.ReportMetric(rate, "rows/s")
			b.ReportMetric(100*rate/(float64(bc.conc)/0.05), "%ideal")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func benchEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
