package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// BenchmarkBackends runs the nightly job's steps as commands — reconcile
// sync (statement), import-calls (the sandbox's call log) and check, of the
// whole period — on SQLite and on PostgreSQL in the same run, against one
// sandbox over loopback HTTP. BACKEND_BENCH_RECORDS sets the statement's
// size (default 100000). PostgreSQL needs SVCRECON_TEST_POSTGRES:
//
//	BACKEND_BENCH_RECORDS=200000 scripts/pg-test.sh go test ./cmd/reconcile/ -run '^$' -bench Backends -benchtime 1x -timeout 60m
func BenchmarkBackends(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("BACKEND_BENCH_RECORDS")); err == nil && v > 0 {
		n = v
	}
	srv, err := sandbox.Start(sandbox.Options{Seed: 1, TotalRecords: n, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := srv.Config()
	for k, v := range map[string]string{"SVC_BASE_URL": c.BaseURL, "SVC_CLIENT_ID": c.ClientID, "SVC_CLIENT_SECRET": c.ClientSecret,
		"SVC_OUTLET_ID": c.OutletID, "SVC_ENDPOINT_IP": c.EndpointIP, "SVC_ACCOUNT": srv.Credentials().Account} {
		b.Setenv(k, v)
	}
	from, to := srv.Period()
	calls := filepath.Join(b.TempDir(), "calls.jsonl")
	f, err := os.Create(calls)
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
	f.Close()
	counts := srv.Counts()
	b.Logf("sandbox: %d statement records, %d call-log lines, %s..%s", counts.Statement, counts.Calls,
		from.Format(time.DateOnly), to.Format(time.DateOnly))

	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				dsn := filepath.Join(b.TempDir(), "bench.db")
				if backend == "postgres" {
					dsn = pgtest.NewDatabase(b)
				}
				db, err := store.Open(context.Background(), dsn) // migrations out of the figures
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
				b.StartTimer()
				step := func(name string, args ...string) time.Duration {
					b.Helper()
					start := time.Now()
					args = append([]string{name, "--db", dsn, "--log-level", "error"}, args...)
					if _, stderr, err := runCmd(b, args...); err != nil && name != "check" {
						b.Fatalf("%s: %v\n%s", name, err, stderr)
					}
					return time.Since(start)
				}
				day := func(t time.Time) string { return t.Format(time.DateOnly) }
				syncT := step("sync", "--from", day(from), "--to", day(to), "--what", "statement", "--page-size", "1000")
				importT := step("import-calls", calls)
				checkT := step("check", "--from", day(from), "--to", day(to))
				b.ReportMetric(float64(counts.Statement)/syncT.Seconds(), "sync-records/s")
				b.ReportMetric(float64(counts.Calls)/importT.Seconds(), "import-lines/s")
				b.ReportMetric(checkT.Seconds(), "check-s")
				b.ReportMetric(0, "ns/op")
				b.Logf("%s: sync %s, import-calls %s, check %s", backend, syncT.Round(time.Millisecond),
					importT.Round(time.Millisecond), checkT.Round(time.Millisecond))
			}
		})
	}
}
