package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The job_runs.outcome values the store itself writes: a run begins
// 'running', a run not started is 'skipped', a run its process left
// 'running' is closed as 'failed'. The scheduler names them all.
const (
	jobRunning = "running"
	jobSkipped = "skipped"
	jobFailed  = "failed"
)

// BeginJobRun takes the lease of job for holder until now+ttl and records a
// run of it as running, in one write transaction, returning the run's id.
// When another holder has the lease, held is asked about it (its holder,
// its expiry as stored and parsed; a zero time when it does not parse):
// held returns "" to take the lease over, or the reason the run is skipped,
// which is then recorded as a skipped run and returned as heldBy. Runs of
// the job still recorded as running when the lease is taken were left by a
// process that is gone: they are closed as failed (abandoned).
func (db *DB) BeginJobRun(ctx context.Context, job, trigger, holder string, now time.Time, ttl time.Duration,
	held func(holder, expiresText string, expires time.Time) string) (id int64, heldBy string, err error) {
	err = db.Write(ctx, func(tx *sql.Tx) error {
		id, heldBy = 0, ""
		var other, expires string
		err := tx.QueryRowContext(ctx, `SELECT holder, expires_at FROM leases WHERE name = ?`, job).Scan(&other, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows), err == nil && other == holder:
		case err != nil:
			return fmt.Errorf("read lease: %w", err)
		default:
			exp, perr := time.Parse(TimeLayout, expires)
			if perr != nil {
				exp = time.Time{}
			}
			if heldBy = held(other, expires, exp); heldBy != "" {
				id, err = insertJobRun(ctx, tx, job, trigger, now, jobSkipped, heldBy)
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO leases (name, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, acquired_at = excluded.acquired_at,
			expires_at = excluded.expires_at`,
			job, holder, FormatTime(now), FormatTime(now.Add(ttl)))
		if err != nil {
			return fmt.Errorf("take lease: %w", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE job_runs SET outcome = ?, finished_at = ?,
			error = 'abandoned: the process running it stopped without recording an end'
			WHERE job = ? AND outcome = ?`, jobFailed, FormatTime(now), job, jobRunning)
		if err != nil {
			return fmt.Errorf("close abandoned runs: %w", err)
		}
		id, err = insertJobRun(ctx, tx, job, trigger, now, jobRunning, "")
		return err
	})
	return id, heldBy, err
}

// SkipJobRun records a run of job that was not started, with why, and
// returns its id.
func (db *DB) SkipJobRun(ctx context.Context, job, trigger string, at time.Time, reason string) (int64, error) {
	var id int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = insertJobRun(ctx, tx, job, trigger, at, jobSkipped, reason)
		return err
	})
	return id, err
}

func insertJobRun(ctx context.Context, tx *sql.Tx, job, trigger string, at time.Time, outcome, summary string) (int64, error) {
	finished := sql.NullString{}
	if outcome != jobRunning {
		finished = sql.NullString{String: FormatTime(at), Valid: true}
	}
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO job_runs (job, trigger, started_at, finished_at, outcome, summary)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, job, trigger, FormatTime(at), finished, outcome, summary).Scan(&id)
	return id, err
}

// RenewLease extends holder's lease on name until until; false when holder
// holds it no more.
func (db *DB) RenewLease(ctx context.Context, name, holder string, until time.Time) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?`,
			FormatTime(until), name, holder)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

// FinishJobRun records the end of run id of job name and releases holder's
// lease on it, in one transaction.
func (db *DB) FinishJobRun(ctx context.Context, id int64, name, holder string, finished time.Time, outcome, summary, errText string) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE job_runs SET finished_at = ?, outcome = ?, summary = ?, error = ?
			WHERE id = ?`, FormatTime(finished), outcome, summary, errText, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder)
		return err
	})
}

// JobRuns calls each for the recorded runs of job ("" every job), newest
// first, at most limit (<= 0: all). finished is zero while a run is going.
// each's error stops the walk and is returned.
func (db *DB) JobRuns(ctx context.Context, job string, limit int,
	each func(id int64, job, trigger string, started, finished time.Time, outcome, summary, errText string) error) error {
	q := `SELECT id, job, trigger, started_at, COALESCE(finished_at, ''), outcome, summary, error FROM job_runs`
	var args []any
	if job != "" {
		q += ` WHERE job = ?`
		args = append(args, job)
	}
	q += ` ORDER BY started_at DESC, id DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name, trigger, started, finished, outcome, summary, errText string
		if err := rows.Scan(&id, &name, &trigger, &started, &finished, &outcome, &summary, &errText); err != nil {
			return err
		}
		st, err := time.Parse(TimeLayout, started)
		if err != nil {
			return fmt.Errorf("run %d: started_at %q: %w", id, started, err)
		}
		var fin time.Time
		if finished != "" {
			if fin, err = time.Parse(TimeLayout, finished); err != nil {
				return fmt.Errorf("run %d: finished_at %q: %w", id, finished, err)
			}
		}
		if err := each(id, name, trigger, st, fin, outcome, summary, errText); err != nil {
			return err
		}
	}
	return rows.Err()
}
