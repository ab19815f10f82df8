package cli

import (
	"fmt"
	"io"
	"os"
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
