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

// Garbage collection of the batch commands: a nightly step allocates fast
// and keeps little (the check's live heap is about 30 MB at 1,000,000
// calls), so collecting at every doubling of the heap costs it a tenth of
// its CPU. TuneGC lets the heap grow to five times what is live
// (GOGC=400) and sets a soft limit of 384 MiB, at which the collector
// works as hard as it must to stay under it, so a step keeps within the
// 512 MiB the project allows. GOGC or GOMEMLIMIT in the environment win.
const (
	gcPercent   = 400
	gcSoftLimit = 384 << 20
)

// TuneGC sets the collector for a batch command, unless GOGC or
// GOMEMLIMIT are set (then Go has read them already).
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcSoftLimit)
	}
}
