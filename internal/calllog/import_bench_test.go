package calllog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
)

// benchCallLog is the sandbox's call log of a 20,000-record world (20,071
// lines of every operation and outcome, 26.6 MB), made once; or the file
// IMPORT_BENCH_LOG names (a month's log, made by svcsandbox --calls).
var benchCallLog = sync.OnceValues(func() ([]byte, error) {
	if path := os.Getenv("IMPORT_BENCH_LOG"); path != "" {
		return os.ReadFile(path)
	}
	sb, err := sandbox.New(sandbox.Options{Seed: 1, TotalRecords: 20_000, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = sb.WriteCallLog(&buf)
	return buf.Bytes(), err
})

// discardCalls is a database that stores nothing: the import's reading and
// decoding alone.
type discardCalls struct{}

func (discardCalls) InsertCalls(_ context.Context, _ time.Time, calls []recon.Call, _ []store.ImportError) (int, error) {
	return len(calls), nil
}

func (discardCalls) CallSource(context.Context, string, int64, time.Time, bool) (int64, error) {
	return 1, nil
}

func (discardCalls) SealCallSource(context.Context, int64, store.CallSourceSeal) error { return nil }

// captureCalls is a database that keeps the batches of calls an import
// hands it, and stores nothing.
type captureCalls struct {
	discardCalls
	batches [][]recon.Call
}

func (c *captureCalls) InsertCalls(_ context.Context, _ time.Time, calls []recon.Call, _ []store.ImportError) (int, error) {
	c.batches = append(c.batches, calls)
	return len(calls), nil
}

// cpuTime is the CPU time the process has used (user and system): on a
// machine others share, a steadier figure than the time on the clock.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// BenchmarkImport imports the sandbox's call log: from a file into a
// fresh SQLite database (lines kept by reference), from a stream (lines
// kept redacted in the database), and read and decoded only, from the file
// into a database that stores nothing. cpu-ns/op is the CPU time of all
// the import's goroutines.
func BenchmarkImport(b *testing.B) {
	log, err := benchCallLog()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "calls.jsonl")
	if err := os.WriteFile(path, log, 0o600); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	o := Options{Secrets: []string{"sandbox-secret"}}
	run := func(b *testing.B, imp func(db Writer) (Summary, error), fresh bool) {
		b.SetBytes(int64(len(log)))
		lines := 0
		var cpu time.Duration
		for range b.N {
			var db Writer = discardCalls{}
			if fresh {
				b.StopTimer()
				db = openDB(b)
				b.StartTimer()
			}
			c0 := cpuTime()
			sum, err := imp(db)
			cpu += cpuTime() - c0
			if err != nil || sum.Bad != 0 {
				b.Fatalf("import: %+v %v", sum, err)
			}
			lines += sum.Lines
		}
		b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	b.Run("file", func(b *testing.B) {
		run(b, func(db Writer) (Summary, error) { return ImportFiles(ctx, db, []string{path}, o) }, true)
	})
	b.Run("stream", func(b *testing.B) {
		run(b, func(db Writer) (Summary, error) {
			return Import(ctx, db, "-", bytes.NewReader(log), o)
		}, true)
	})
	b.Run("decode", func(b *testing.B) {
		run(b, func(db Writer) (Summary, error) { return ImportFiles(ctx, db, []string{path}, o) }, false)
	})
	b.Run("floor", func(b *testing.B) { benchStoreFloor(b, path, o) })
}

// benchStoreFloor is the import's floor: the batches of calls the import
// of path stores (decoded before the clock starts, held in memory) stored
// by the database's one writer alone, into a fresh database, with nothing
// read or decoded beside it.
func benchStoreFloor(b *testing.B, path string, o Options) {
	ctx := context.Background()
	var c captureCalls
	if _, err := ImportFiles(ctx, &c, []string{path}, o); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	lines := 0
	var cpu time.Duration
	for range b.N {
		b.StopTimer()
		db := openDB(b)
		if _, err := db.CallSource(ctx, path, st.Size(), st.ModTime(), false); err != nil {
			b.Fatal(err)
		}
		syscall.Sync() // the log's copy written out before, not while the writer commits
		b.StartTimer()
		c0 := cpuTime()
		for _, calls := range c.batches {
			if _, err := db.InsertCalls(ctx, time.Now(), calls, nil); err != nil {
				b.Fatal(err)
			}
			lines += len(calls)
		}
		cpu += cpuTime() - c0
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkLine decodes every line of the sandbox's call log on one
// goroutine: as the import does (the lean decoder, the full one for the
// lines it gives up on), and by the full decoder alone.
func BenchmarkLine(b *testing.B) {
	log, err := benchCallLog()
	if err != nil {
		b.Fatal(err)
	}
	ls := bytes.Split(bytes.TrimSpace(log), []byte("\n"))
	secrets := []string{"sandbox-secret"}
	run := func(b *testing.B, lean bool) {
		b.SetBytes(int64(len(log)))
		c0 := cpuTime()
		for range b.N {
			for _, l := range ls {
				if lean {
					if _, ok := fastLine(l, secrets); ok {
						continue
					}
				}
				if _, err := parseLine(l, secrets...); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	b.Run("import", func(b *testing.B) { run(b, true) })
	b.Run("full", func(b *testing.B) { run(b, false) })
}
