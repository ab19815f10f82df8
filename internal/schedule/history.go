package schedule

import (
	"context"
	"fmt"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Record is one row of the job history: which job ran, on which host, for
// which fire time, and what became of it.
type Record = recon.JobRun

// HistoryOptions select job runs.
type HistoryOptions struct {
	Job   string // "" for every job
	Limit int    // <= 0 for no limit
}

// HistoryStore reads the job history. *store.DB implements it.
type HistoryStore interface {
	// JobRuns calls each for the recorded runs of job ("" every job),
	// newest first, at most limit (<= 0: all).
	JobRuns(ctx context.Context, job string, limit int, each func(recon.JobRun) error) error
}

// History returns recorded job runs, newest first.
func History(ctx context.Context, db HistoryStore, o HistoryOptions) ([]Record, error) {
	var out []Record
	err := db.JobRuns(ctx, o.Job, o.Limit, func(r recon.JobRun) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read job history: %w", err)
	}
	return out, nil
}
