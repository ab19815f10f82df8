package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// ProfileEnv names the environment variable that makes a command write a
// CPU profile of its whole run to the file it names (for measuring a step,
// as docs/benchmarks.md does: go tool pprof -top bin/reconcile FILE).
const ProfileEnv = "SVCRECON_CPUPROFILE"

// HeapProfileEnv names the environment variable that makes a command
// write a heap profile to the file it names when it ends: what it
// allocated over its whole run (go tool pprof -sample_index=alloc_space)
// and what was live at the last collection.
const HeapProfileEnv = "SVCRECON_HEAPPROFILE"

// StartProfile starts a CPU profile when ProfileEnv names a file, and
// returns the function that ends it, which also writes the heap profile
// when HeapProfileEnv names a file. Without them it does nothing.
// A profile that cannot be started is reported on stderr (in the
// --log-format of args, the command line) and the command runs on: a
// measurement aid never stops the job.
func StartProfile(stderr io.Writer, args []string) (end func()) {
	endCPU := startCPUProfile(stderr, args)
	return func() {
		endCPU()
		writeHeapProfile(stderr, args)
	}
}

// startCPUProfile is StartProfile's CPU profile (ProfileEnv).
func startCPUProfile(stderr io.Writer, args []string) (end func()) {
	path := os.Getenv(ProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		Notice(stderr, args, slog.LevelWarn, fmt.Sprintf("%s: %v (no profile written)", ProfileEnv, err))
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			Notice(stderr, args, slog.LevelWarn, fmt.Sprintf("%s: %v", ProfileEnv, err))
		}
	}
}

// writeHeapProfile writes the heap profile when HeapProfileEnv names a
// file; a failure is reported and the command's outcome left as it is.
func writeHeapProfile(stderr io.Writer, args []string) {
	path := os.Getenv(HeapProfileEnv)
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		Notice(stderr, args, slog.LevelWarn, fmt.Sprintf("%s: %v", HeapProfileEnv, err))
	}
}

// Garbage collection of the batch commands. A step that streams a month
// allocates fast and keeps little, so collecting at every doubling of the
// heap (Go's default) costs it a tenth or more of its CPU:
//
//   - the streaming steps (sync, import-calls, export, run) let the heap
//     grow to five times what is live (GOGC=400), under a soft limit of
//     200 MiB at which the collector works as hard as it must, so a step
//     keeps within the 256 MiB the project allows (issue 28: the import
//     of a 1M-call month 338 → 218 MiB at the same CPU; its live heap is
//     its batches, the same at 10M);
//   - the check, whose live heap is small and must stay flat whatever the
//     month's length, collects by a fixed budget instead: a soft limit of
//     160 MiB and no proportional trigger. Its heap then stays near the
//     limit at 100,000 calls and at 1,000,000 alike, and it collects far
//     less often than by default. Should its live heap ever pass the
//     limit, Go caps the collector at about half the CPU and lets the heap
//     grow: at 10,000,000 calls the live heap (the Bloom filters of the
//     externalRefs, 2–4 bytes each, and the findings) passes 80 MiB, where
//     the limit was, and the check spent a third of its CPU collecting
//     (issue 28: 600 → 370 CPU-s at 160 MiB; at 1M 16.4 → 17.8 CPU-s,
//     112 → 187 MiB peak RSS).
//
// GOGC or GOMEMLIMIT in the environment win (Go has read them already).
const (
	streamGC, streamLimit = 400, 200 << 20
	checkGC, checkLimit   = -1, 160 << 20
)

// GCProfile is how a command's heap is collected (TuneGC).
type GCProfile int

// The profiles of TuneGC.
const (
	GCDefault GCProfile = iota // Go's default collector, the soft limit of a streaming step
	GCStream                   // a step that streams a month
	GCCheck                    // the check: a fixed heap budget
)

// TuneGC sets the collector of a command to profile p.
func TuneGC(p GCProfile) {
	percent, limit := 100, int64(streamLimit)
	switch p {
	case GCStream:
		percent = streamGC
	case GCCheck:
		percent, limit = checkGC, checkLimit
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}
