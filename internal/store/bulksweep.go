package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// BulkInterrupted is the state of a run whose process died (or whose every
// worker did) while it was running, found so by SweepBulkRun: nobody
// works on it, and its rows left 'sending' are pending. bulkrun resume
// continues it.
const BulkInterrupted = "interrupted"

// BulkSweep is what SweepBulkRun found and did.
type BulkSweep struct {
	Gone        []BulkLease // the holder or workers found gone, now removed
	Pended      int         // their 'sending' rows, now BulkPending
	Live        bool        // a live holder or worker still works on the run
	Interrupted bool        // the run was running with nobody on it: now BulkInterrupted
}

// SweepBulkRun clears what dead processes left of run runID, in one
// transaction (the run's row locked): a lease, or workers, whose holder
// stale says is gone (by its heartbeat's age on the database's clock,
// BulkLease.Now) are removed, each only if its heartbeat is still the one
// read; the 'sending' rows no live holder or worker owns become
// BulkPending with error reason (for the transaction-status look-up; never
// sent again blindly); and a run in state BulkRunning that nobody holds
// any more becomes BulkInterrupted. A run a live process holds is left as
// it is.
func (db *DB) SweepBulkRun(ctx context.Context, runID string, stale func(BulkLease) bool, reason string) (BulkSweep, error) {
	var s BulkSweep
	err := db.Write(ctx, func(tx *sql.Tx) error {
		s = BulkSweep{}
		var state string
		if err := tx.QueryRowContext(ctx, `SELECT state FROM bulk_runs WHERE id = ?`+db.dialect.forUpdate(), runID).Scan(&state); err != nil {
			return err
		}
		held, err := db.sweepLease(ctx, tx, runID, stale, &s)
		if err != nil {
			return err
		}
		workers, err := db.sweepWorkers(ctx, tx, runID, stale, &s)
		if err != nil {
			return err
		}
		s.Live = held || workers > 0
		// Rows of a run held alone carry no worker: theirs are the holder's.
		orphan := `worker <> '' AND NOT EXISTS (SELECT 1 FROM bulk_workers w WHERE w.run_id = bulk_rows.run_id AND w.worker = bulk_rows.worker)`
		if !held {
			orphan = `(worker = '' OR ` + orphan + `)`
		}
		res, err := tx.ExecContext(ctx, `UPDATE bulk_rows SET state = ?, error = ? WHERE run_id = ? AND state = ? AND `+orphan,
			BulkPending, reason, runID, BulkSending)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		s.Pended = int(n)
		if s.Live || state != BulkRunning {
			return nil
		}
		s.Interrupted = true
		_, err = tx.ExecContext(ctx, `UPDATE bulk_runs SET state = ?, updated_at = `+db.dialect.now()+` WHERE id = ?`, BulkInterrupted, runID)
		return err
	})
	if err != nil {
		return BulkSweep{}, fmt.Errorf("sweep bulk run %s: %w", runID, err)
	}
	return s, nil
}

// sweepLease removes the run's lease when its holder is gone, and reports
// whether a live holder has it.
func (db *DB) sweepLease(ctx context.Context, tx *sql.Tx, runID string, stale func(BulkLease) bool, s *BulkSweep) (bool, error) {
	l, err := scanBulkLease(tx.QueryRowContext(ctx, `SELECT `+db.leaseColumns("holder")+` FROM bulk_leases WHERE run_id = ?`, runID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	case !stale(*l):
		return true, nil
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM bulk_leases WHERE run_id = ? AND holder = ? AND heartbeat = ?`,
		runID, l.Holder, FormatTime(l.Heartbeat))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return true, err // it beat meanwhile: alive
	}
	s.Gone = append(s.Gone, *l)
	return false, nil
}

// sweepWorkers removes the run's workers that are gone and returns how
// many live ones are left.
func (db *DB) sweepWorkers(ctx context.Context, tx *sql.Tx, runID string, stale func(BulkLease) bool, s *BulkSweep) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+db.leaseColumns("worker")+` FROM bulk_workers WHERE run_id = ?`, runID)
	if err != nil {
		return 0, err
	}
	var all []BulkLease
	for rows.Next() {
		w, err := scanBulkLease(rows)
		if err != nil {
			rows.Close()
			return 0, err
		}
		all = append(all, *w)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	live := 0
	for _, w := range all {
		if !stale(w) {
			live++
			continue
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM bulk_workers WHERE run_id = ? AND worker = ? AND heartbeat = ?`,
			runID, w.Holder, FormatTime(w.Heartbeat))
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		if n == 0 {
			live++ // it beat meanwhile
			continue
		}
		s.Gone = append(s.Gone, w)
	}
	return live, nil
}
