package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// ProfileEnv names the environment variable that makes a command write a
// CPU profile of its whole run to the file it names (for measuring a step,
// as docs/benchmarks.md does: go tool pprof -top bin/reconcile FILE).
const ProfileEnv = "SVCRECON_CPUPROFILE"

// StartProfile starts a CPU profile when ProfileEnv names a file, and
// returns the function that ends it. Without the variable it does nothing.
// A profile that cannot be started is reported on stderr and the command
// runs on: a measurement aid never stops the job.
func StartProfile(stderr io.Writer) (end func()) {
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
		fmt.Fprintf(stderr, "%s: %v (no profile written)\n", ProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", ProfileEnv, err)
		}
	}
}

// Garbage collection of the batch commands: a step that streams a month
// allocates fast and keeps little, so collecting at every doubling of the
// heap costs it a tenth of its CPU. TuneGC lets the heap grow to five times
// what is live (GOGC=400) for the steps that stream (sync, import-calls,
// export: 10–20% faster at 1,000,000 calls), and sets a soft limit of 384
// MiB for every command, at which the collector works as hard as it must to
// stay under it, so a step keeps within the 512 MiB the project allows.
// The check keeps Go's default: its memory is held flat across months of
// any length (docs/benchmarks.md), and a heap five times its live one would
// follow what little grows with the month. GOGC or GOMEMLIMIT in the
// environment win.
const (
	gcPercent   = 400
	gcSoftLimit = 384 << 20
)

// TuneGC sets the collector of a command; streaming is true for the steps
// that stream a month.
func TuneGC(streaming bool) {
	if streaming && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcSoftLimit)
	}
}
