package recon

import "time"

// JobStart is a run of a scheduled or manual job about to begin, or to be
// recorded as skipped: what the scheduler hands the store.
type JobStart struct {
	Job     string
	Trigger string
	Holder  string        // the process (host:pid:random) that would run it
	Host    string        // its host, recorded with the run
	Now     time.Time     // the run's start
	TTL     time.Duration // how long the job's lease lasts unless renewed
	// FireAt, when not zero, is the scheduled time the run is for: of the
	// schedulers sharing a database, only the first to take this fire time
	// of the job records anything.
	FireAt time.Time
}

// JobBegun is what the store recorded of a JobStart.
type JobBegun struct {
	ID     int64  // the run recorded (running or skipped); 0 when the fire time was taken
	HeldBy string // why the run was skipped: another holder's lease
	// FireTakenBy is the holder that took the fire time first: nothing was
	// recorded, that holder runs (or ran) it.
	FireTakenBy string
}

// JobRun is a recorded run of a job: one line of the job history.
type JobRun struct {
	ID       int64
	Job      string
	Trigger  string
	Host     string    // the host that ran (or skipped) it; "" for runs recorded before hosts were
	FireAt   time.Time // the scheduled time it was for; zero for a manual run
	Started  time.Time
	Finished time.Time // zero while the run is going
	Outcome  string
	Summary  string
	Error    string
}

// Duration is how long the run took (zero while it is going).
func (r JobRun) Duration() time.Duration {
	if r.Finished.IsZero() {
		return 0
	}
	return r.Finished.Sub(r.Started)
}
