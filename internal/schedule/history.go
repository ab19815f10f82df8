package schedule

import (
	"context"
	"fmt"
	"time"
)

// Record is one row of the job history.
type Record struct {
	ID       int64
	Job      string
	Trigger  string
	Started  time.Time
	Finished time.Time // zero while running
	Outcome  string
	Summary  string
	Error    string
}

// Duration is how long the run took (zero while running).
func (r Record) Duration() time.Duration {
	if r.Finished.IsZero() {
		return 0
	}
	return r.Finished.Sub(r.Started)
}

// HistoryOptions select job runs.
type HistoryOptions struct {
	Job   string // "" for every job
	Limit int    // <= 0 for no limit
}

// HistoryStore reads the job history. *store.DB implements it.
type HistoryStore interface {
	// JobRuns calls each for the recorded runs of job ("" every job),
	// newest first, at most limit (<= 0: all); finished is zero while a
	// run is going.
	JobRuns(ctx context.Context, job string, limit int,
		each func(id int64, job, trigger string, started, finished time.Time, outcome, summary, errText string) error) error
}

// History returns recorded job runs, newest first.
func History(ctx context.Context, db HistoryStore, o HistoryOptions) ([]Record, error) {
	var out []Record
	err := db.JobRuns(ctx, o.Job, o.Limit, func(id int64, job, trigger string, started, finished time.Time, outcome, summary, errText string) error {
		out = append(out, Record{ID: id, Job: job, Trigger: trigger, Started: started, Finished: finished,
			Outcome: outcome, Summary: summary, Error: errText})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read job history: %w", err)
	}
	return out, nil
}
