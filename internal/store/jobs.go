package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The job_runs.outcome values the store itself writes: a run begins
// 'running', a run not started is 'skipped', a run its process left
// 'running' is closed as 'failed'. The scheduler names them all.
const (
	jobRunning = "running"
	jobSkipped = "skipped"
	jobFailed  = "failed"
)

// jobFiresKept is how long taken fire times are kept: longer than any
// clock skew between schedulers.
const jobFiresKept = 7 * 24 * time.Hour

// takeFire takes s's fire time for s.Holder and returns "", or returns the
// holder that took it first. Fire times older than jobFiresKept are
// forgotten. A run without a fire time takes nothing.
func takeFire(ctx context.Context, tx *sql.Tx, s recon.JobStart) (string, error) {
	if s.FireAt.IsZero() {
		return "", nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM job_fires WHERE job = ? AND fire_at < ?`,
		s.Job, FormatTime(s.FireAt.Add(-jobFiresKept))); err != nil {
		return "", fmt.Errorf("forget old fire times: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO job_fires (job, fire_at, holder, host, claimed_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (job, fire_at) DO NOTHING`, s.Job, FormatTime(s.FireAt), s.Holder, s.Host, FormatTime(s.Now))
	if err != nil {
		return "", fmt.Errorf("take fire time: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return "", err
	}
	var holder string
	if err := tx.QueryRowContext(ctx, `SELECT holder FROM job_fires WHERE job = ? AND fire_at = ?`,
		s.Job, FormatTime(s.FireAt)).Scan(&holder); err != nil {
		return "", fmt.Errorf("read fire time: %w", err)
	}
	if holder == s.Holder {
		return "", nil // taken by this holder already
	}
	return holder, nil
}

// BeginJobRun takes the fire time s.FireAt of the job, if any (another
// holder that took it first is returned as FireTakenBy, and nothing is
// recorded), then the lease of the job for s.Holder until s.Now+s.TTL, and
// records a run of it as running, with s.Host, in one write transaction
// (PostgreSQL's row locks and unique keys serialize schedulers on other
// hosts), returning the run's id. When another holder has the lease, held
// is asked about it (its holder, its expiry as stored and parsed; a zero
// time when it does not parse): held returns "" to take the lease over, or
// the reason the run is skipped, which is then recorded as a skipped run
// and returned as HeldBy. Runs of the job still recorded as running when
// the lease is taken were left by a process that is gone: they are closed
// as failed (abandoned).
func (db *DB) BeginJobRun(ctx context.Context, s recon.JobStart, held func(holder, expiresText string, expires time.Time) string) (recon.JobBegun, error) {
	return db.fired(ctx, s, func(tx *sql.Tx, b *recon.JobBegun) error {
		q := `SELECT holder, expires_at FROM leases WHERE name = ?` + db.dialect.forUpdate()
		var other, expires string
		err := tx.QueryRowContext(ctx, q, s.Job).Scan(&other, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows), err == nil && other == s.Holder:
		case err != nil:
			return fmt.Errorf("read lease: %w", err)
		default:
			exp, perr := time.Parse(TimeLayout, expires)
			if perr != nil {
				exp = time.Time{}
			}
			if b.HeldBy = held(other, expires, exp); b.HeldBy != "" {
				b.ID, err = insertJobRun(ctx, tx, s, jobSkipped, b.HeldBy)
				return err
			}
		}
		// Two schedulers finding no lease at once: the second waits on the
		// first's insert, then finds it held (on conflict, only an expired
		// or own lease is replaced).
		res, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, acquired_at = excluded.acquired_at,
			expires_at = excluded.expires_at WHERE leases.holder = ? OR leases.holder = ?`,
			s.Job, s.Holder, FormatTime(s.Now), FormatTime(s.Now.Add(s.TTL)), s.Holder, other)
		if err != nil {
			return fmt.Errorf("take lease: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				b.HeldBy = "skipped (lease taken by another scheduler at the same moment)"
				b.ID, err = insertJobRun(ctx, tx, s, jobSkipped, b.HeldBy)
			}
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE job_runs SET outcome = ?, finished_at = ?,
			error = 'abandoned: the process running it stopped without recording an end'
			WHERE job = ? AND outcome = ?`, jobFailed, FormatTime(s.Now), s.Job, jobRunning)
		if err != nil {
			return fmt.Errorf("close abandoned runs: %w", err)
		}
		b.ID, err = insertJobRun(ctx, tx, s, jobRunning, "")
		return err
	})
}

// SkipJobRun records a run of job that was not started, with why (after
// taking its fire time, as BeginJobRun does: when another holder took it,
// nothing is recorded).
func (db *DB) SkipJobRun(ctx context.Context, s recon.JobStart, reason string) (recon.JobBegun, error) {
	return db.fired(ctx, s, func(tx *sql.Tx, b *recon.JobBegun) error {
		var err error
		b.HeldBy = reason
		b.ID, err = insertJobRun(ctx, tx, s, jobSkipped, reason)
		return err
	})
}

// fired runs fn in a write transaction once s's fire time is taken for
// s.Holder; when another holder took it first, fn is not run and the
// answer names that holder (FireTakenBy).
func (db *DB) fired(ctx context.Context, s recon.JobStart, fn func(tx *sql.Tx, b *recon.JobBegun) error) (recon.JobBegun, error) {
	var b recon.JobBegun
	err := db.Write(ctx, func(tx *sql.Tx) error {
		b = recon.JobBegun{}
		var err error
		if b.FireTakenBy, err = takeFire(ctx, tx, s); err != nil || b.FireTakenBy != "" {
			return err
		}
		return fn(tx, &b)
	})
	return b, err
}

func insertJobRun(ctx context.Context, tx *sql.Tx, s recon.JobStart, outcome, summary string) (int64, error) {
	finished := sql.NullString{}
	if outcome != jobRunning {
		finished = sql.NullString{String: FormatTime(s.Now), Valid: true}
	}
	fire := ""
	if !s.FireAt.IsZero() {
		fire = FormatTime(s.FireAt)
	}
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO job_runs (job, trigger, started_at, finished_at, outcome, summary, host, fire_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, s.Job, s.Trigger, FormatTime(s.Now), finished, outcome, summary, s.Host, fire).Scan(&id)
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
// first, at most limit (<= 0: all). each's error stops the walk and is
// returned.
func (db *DB) JobRuns(ctx context.Context, job string, limit int, each func(recon.JobRun) error) error {
	q := `SELECT id, job, trigger, host, fire_at, started_at, COALESCE(finished_at, ''), outcome, summary, error FROM job_runs`
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
		var r recon.JobRun
		var fire, started, finished string
		if err := rows.Scan(&r.ID, &r.Job, &r.Trigger, &r.Host, &fire, &started, &finished, &r.Outcome, &r.Summary, &r.Error); err != nil {
			return err
		}
		var err error
		if r.Started, err = time.Parse(TimeLayout, started); err != nil {
			return fmt.Errorf("run %d: started_at %q: %w", r.ID, started, err)
		}
		for _, t := range []struct {
			text string
			to   *time.Time
			name string
		}{{finished, &r.Finished, "finished_at"}, {fire, &r.FireAt, "fire_at"}} {
			if t.text == "" {
				continue
			}
			if *t.to, err = time.Parse(TimeLayout, t.text); err != nil {
				return fmt.Errorf("run %d: %s %q: %w", r.ID, t.name, t.text, err)
			}
		}
		if err := each(r); err != nil {
			return err
		}
	}
	return rows.Err()
}
