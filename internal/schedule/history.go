package schedule

import (
	"context"
	"fmt"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
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

// History returns recorded job runs, newest first.
func History(ctx context.Context, db *store.DB, o HistoryOptions) ([]Record, error) {
	q := `SELECT id, job, trigger, started_at, COALESCE(finished_at, ''), outcome, summary, error FROM job_runs`
	var args []any
	if o.Job != "" {
		q += ` WHERE job = ?`
		args = append(args, o.Job)
	}
	q += ` ORDER BY started_at DESC, id DESC`
	if o.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, o.Limit)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read job history: %w", err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var rec Record
		var started, finished string
		if err := rows.Scan(&rec.ID, &rec.Job, &rec.Trigger, &started, &finished, &rec.Outcome, &rec.Summary, &rec.Error); err != nil {
			return nil, fmt.Errorf("read job history: %w", err)
		}
		if rec.Started, err = time.Parse(store.TimeLayout, started); err != nil {
			return nil, fmt.Errorf("read job history: run %d: started_at %q: %w", rec.ID, started, err)
		}
		if finished != "" {
			if rec.Finished, err = time.Parse(store.TimeLayout, finished); err != nil {
				return nil, fmt.Errorf("read job history: run %d: finished_at %q: %w", rec.ID, finished, err)
			}
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read job history: %w", err)
	}
	return out, nil
}
