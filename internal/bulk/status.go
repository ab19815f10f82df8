package bulk

import (
	"context"
	"strings"
)

// RunCounts is a run with the counts of its rows.
type RunCounts struct {
	*Run
	Counts
}

// Recent lists at most limit runs, newest first, with their counts.
func Recent(ctx context.Context, db Journal, limit int) ([]RunCounts, error) {
	runs, err := Runs(ctx, db, limit)
	if err != nil {
		return nil, err
	}
	out := make([]RunCounts, 0, len(runs))
	for _, r := range runs {
		c, err := CountRows(ctx, db, r)
		if err != nil {
			return nil, err
		}
		out = append(out, RunCounts{Run: r, Counts: c})
	}
	return out, nil
}

// Status returns the run with this id (case does not matter) and the
// counts of its rows; an unknown id is an error matching ErrRunNotFound.
func Status(ctx context.Context, db Journal, id string) (RunCounts, error) {
	r, err := LoadRun(ctx, db, strings.ToUpper(id))
	if err != nil {
		return RunCounts{}, err
	}
	c, err := CountRows(ctx, db, r)
	if err != nil {
		return RunCounts{}, err
	}
	return RunCounts{Run: r, Counts: c}, nil
}
