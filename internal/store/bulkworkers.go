package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Shared runs: on PostgreSQL several worker processes, on one host or
// many, work on one bulk run at once. The run's rows are seeded as
// BulkQueued journal rows (SeedBulkRows); each worker claims a few at a
// time (ClaimBulkRows: SELECT … FOR UPDATE SKIP LOCKED), marking them
// BulkSending with its id in the same transaction as its heartbeat
// (bulk_workers). A worker found gone (ReapBulkWorkers) has its 'sending'
// rows turned pending, for the transaction-status look-up: they are never
// claimed again blindly. The methods work on SQLite too, where writes are
// serialized anyway.

// BulkSeed is a row of a shared run's input: its line and externalRef.
type BulkSeed struct {
	Line int
	Ref  string
}

// seedBatch is how many rows one INSERT statement of SeedBulkRows carries.
const seedBatch = 500

// SeedBulkRows journals the rows of run runID as BulkQueued, those not
// journaled yet, in one transaction with multi-row INSERTs, and returns how
// many it added. Workers joining a run at once may all seed it: each row
// is added once.
func (db *DB) SeedBulkRows(ctx context.Context, runID string, rows []BulkSeed) (int, error) {
	var added int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		added = 0
		for start := 0; start < len(rows); start += seedBatch {
			part := rows[start:min(start+seedBatch, len(rows))]
			var q strings.Builder
			q.WriteString(`INSERT INTO bulk_rows (run_id, line, external_ref, state, sent_at, attempts) VALUES `)
			args := make([]any, 0, 2*len(part)+2)
			args = append(args, runID, BulkQueued)
			for i, r := range part {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString(`(?1, ?, ?, ?2, '', 0)`)
				args = append(args, r.Line, r.Ref)
			}
			q.WriteString(` ON CONFLICT DO NOTHING`)
			res, err := tx.ExecContext(ctx, numbered(q.String(), 3), args...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			added += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("seed rows of bulk run %s: %w", runID, err)
	}
	return int(added), nil
}

// numbered rewrites the plain ? of q to ?N, ?N+1 … (first N), so that they
// can follow explicitly numbered ones (?1, ?2) on both backends.
func numbered(q string, first int) string {
	var b strings.Builder
	n := first
	for i := 0; i < len(q); i++ {
		b.WriteByte(q[i])
		if q[i] == '?' && (i+1 == len(q) || q[i+1] < '0' || q[i+1] > '9') {
			fmt.Fprintf(&b, "%d", n)
			n++
		}
	}
	return b.String()
}

// BulkRowsJournaled returns how many journal rows run runID has, queued
// ones included.
func (db *DB) BulkRowsJournaled(ctx context.Context, runID string) (int, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM bulk_rows WHERE run_id = ?`, runID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count journal rows of bulk run %s: %w", runID, err)
	}
	return n, nil
}

// putBulkWorker records worker w (its times the database's clock where
// zero), or its heartbeat when it is recorded already.
func (db *DB) putBulkWorker(ctx context.Context, tx *sql.Tx, w BulkLease) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO bulk_workers (run_id, worker, host, pid, since, heartbeat)
		VALUES (?, ?, ?, ?, `+db.clockOr()+`, `+db.clockOr()+`)
		ON CONFLICT (run_id, worker) DO UPDATE SET heartbeat = excluded.heartbeat`,
		w.RunID, w.Holder, w.Host, w.PID, stamp(w.Since), stamp(w.Heartbeat))
	if err != nil {
		return fmt.Errorf("record worker %s of bulk run %s: %w", w.Holder, w.RunID, err)
	}
	return nil
}

// JoinBulkRun records w (Holder is the worker id) as a worker of run
// w.RunID, or renews its heartbeat when it is one already.
func (db *DB) JoinBulkRun(ctx context.Context, w BulkLease) error {
	return db.Write(ctx, func(tx *sql.Tx) error { return db.putBulkWorker(ctx, tx, w) })
}

// RenewBulkWorker records worker's heartbeat on run runID at at (the
// database's clock when zero); false when worker is not (or no more) one
// of the run's workers.
func (db *DB) RenewBulkWorker(ctx context.Context, runID, worker string, at time.Time) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bulk_workers SET heartbeat = `+db.clockOr()+` WHERE run_id = ? AND worker = ?`,
			stamp(at), runID, worker)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("renew worker %s of bulk run %s: %w", worker, runID, err)
	}
	return n == 1, nil
}

// BulkWorkers returns the workers of run runID, oldest first.
func (db *DB) BulkWorkers(ctx context.Context, runID string) ([]BulkLease, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+db.leaseColumns("worker")+` FROM bulk_workers
		WHERE run_id = ? ORDER BY since, worker`, runID)
	if err != nil {
		return nil, fmt.Errorf("list workers of bulk run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []BulkLease
	for rows.Next() {
		w, err := scanBulkLease(rows)
		if err != nil {
			return nil, fmt.Errorf("list workers of bulk run %s: %w", runID, err)
		}
		out = append(out, *w)
	}
	return out, rows.Err()
}

// ReapBulkWorkers removes the workers of run runID found gone (each only
// if its heartbeat is still the one in dead: a worker that beat since is
// left alone) and turns every 'sending' row of the run whose worker is no
// longer one of its workers into BulkPending with error reason, in one
// transaction. It returns how many rows it turned pending.
func (db *DB) ReapBulkWorkers(ctx context.Context, runID string, dead []BulkLease, reason string) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *sql.Tx) error {
		for _, w := range dead {
			if _, err := tx.ExecContext(ctx, `DELETE FROM bulk_workers WHERE run_id = ? AND worker = ? AND heartbeat = ?`,
				runID, w.Holder, FormatTime(w.Heartbeat)); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE bulk_rows SET state = ?, error = ?
			WHERE run_id = ? AND state = ? AND NOT EXISTS (SELECT 1 FROM bulk_workers w
				WHERE w.run_id = bulk_rows.run_id AND w.worker = bulk_rows.worker)`,
			BulkPending, reason, runID, BulkSending)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("reap workers of bulk run %s: %w", runID, err)
	}
	return int(n), nil
}

// BulkClaim asks ClaimBulkRows for rows of a shared run.
type BulkClaim struct {
	// Worker is the claiming worker (RunID, Holder as its id, Host, PID,
	// Since); its heartbeat becomes Worker.Heartbeat (the database's clock
	// when zero), in the claim's transaction.
	Worker BulkLease
	N      int       // rows wanted
	At     time.Time // sent_at of the claimed rows
	// MaxDebit, when positive, is the run's --max-debit: rows are claimed
	// only within the shared reservation (see ClaimBulkRows).
	MaxDebit decimal.Decimal
	// Expected, when Known, is the expected debit of one call before any
	// answer taught it (a rate card; zero for an operation that reports no
	// debit). The largest debit seen, when larger, is used instead.
	Expected decimal.Decimal
	Known    bool
}

// BulkClaimed is a row ClaimBulkRows marked 'sending' for the worker.
type BulkClaimed struct {
	Line    int
	Ref     string
	Attempt int // 1 for a first call; above 1 for a row returned to unsent
}

// Why ClaimBulkRows claimed no row although some may be left.
const (
	// BulkHoldReserved: rows in flight reserve what is left of --max-debit;
	// claim again when they have finished.
	BulkHoldReserved = "reserved"
	// BulkHoldMaxDebit: the run's debits reached --max-debit.
	BulkHoldMaxDebit = "max-debit"
)

// ClaimBulkRows claims, in one transaction, at most c.N rows of run
// c.Worker.RunID that are queued or returned to unsent, in line order,
// skipping rows other workers are claiming at that moment (FOR UPDATE SKIP
// LOCKED on PostgreSQL): each becomes BulkSending, sent at c.At, its
// worker c.Worker.Holder, its attempts one up; the worker's heartbeat is
// recorded in the same transaction. No rows and hold "" means none is
// left to claim.
//
// With c.MaxDebit, the claim reserves against it under a lock of the run
// shared by every worker (DebitCap): with D the run's confirmed debits, E
// the expected debit of one call (the largest single debit so far, or
// c.Expected), and U its rows whose debit is unknown (every worker's rows
// in flight, 'sending', and its 'pending' rows), k more rows are claimed
// only while D + (U + k)×E stays within MaxDebit; until E is known (no row
// debited yet), one row at a time, and none while another's debit is
// unknown. hold is then BulkHoldMaxDebit when nothing in flight can free
// room (the debits, with the pending rows at E, reached MaxDebit),
// BulkHoldReserved when rows in flight hold the rest. The debits therefore
// stay within MaxDebit across all workers while no call costs more than E.
func (db *DB) ClaimBulkRows(ctx context.Context, c BulkClaim) (claimed []BulkClaimed, hold string, err error) {
	runID := c.Worker.RunID
	w := c.Worker
	err = db.Write(ctx, func(tx *sql.Tx) error {
		claimed, hold = nil, ""
		if err := db.putBulkWorker(ctx, tx, w); err != nil {
			return err
		}
		n := c.N
		if c.MaxDebit.IsPositive() {
			var err error
			if n, hold, err = db.reserve(ctx, tx, runID, c); err != nil || n == 0 {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, db.claimSQL(), runID, BulkQueued, BulkUnsent, n, BulkSending, w.Holder, FormatTime(c.At))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r BulkClaimed
			if err := rows.Scan(&r.Line, &r.Ref, &r.Attempt); err != nil {
				return err
			}
			claimed = append(claimed, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, "", fmt.Errorf("claim rows of bulk run %s: %w", runID, err)
	}
	slices.SortFunc(claimed, func(a, b BulkClaimed) int { return cmp.Compare(a.Line, b.Line) })
	return claimed, hold, nil
}

// claimSQL marks the first ?4 rows of run ?1 in state ?2 or ?3 that no
// other transaction holds as state ?5 of worker ?6 sent at ?7, returning
// their lines, externalRefs and attempts. Each state's first rows are
// read from the index on (run_id, state, line) in line order, a claim's
// few rows at a time: one condition on both states read every row left in
// them and sorted them, at every claim (5.6 ms a claim of 4 rows among
// 10,000 on PostgreSQL, the run's cost growing with the square of its
// rows). Of the two states' rows, the first ?4 are claimed; the others a
// branch locked are free again at the commit.
func (db *DB) claimSQL() string {
	first := func(state string) string {
		return `SELECT line FROM (SELECT line FROM bulk_rows WHERE run_id = ?1 AND state = ` + state +
			` ORDER BY line LIMIT ?4` + db.dialect.skipLocked() + `) AS s` + state[1:]
	}
	return `WITH c AS (` + first("?2") + ` UNION ALL ` + first("?3") + ` ORDER BY line LIMIT ?4)
		UPDATE bulk_rows SET state = ?5, worker = ?6, sent_at = ?7, attempts = attempts + 1, done_at = NULL
		WHERE run_id = ?1 AND line IN (SELECT line FROM c)
		RETURNING line, external_ref, attempts`
}

// reserve returns how many of c.N rows may be claimed within c.MaxDebit
// (see ClaimBulkRows), holding the run's row locked until tx ends, and why
// none when none may.
func (db *DB) reserve(ctx context.Context, tx *sql.Tx, runID string, c BulkClaim) (int, string, error) {
	debited, largest, rows, err := db.runDebits(ctx, tx, runID)
	if err != nil {
		return 0, "", err
	}
	dc := DebitCap{Limit: c.MaxDebit, Debited: debited, Expected: c.Expected, Known: c.Known}
	if rows > 0 {
		dc.Expected, dc.Known = decimal.Max(largest, c.Expected), true
	}
	// One statement, one snapshot: a row moving from sending to pending
	// meanwhile is counted once.
	q, err := tx.QueryContext(ctx, `SELECT state, count(*) FROM bulk_rows WHERE run_id = ? AND state IN (?, ?) GROUP BY state`,
		runID, BulkSending, BulkPending)
	if err != nil {
		return 0, "", err
	}
	defer q.Close()
	for q.Next() {
		var state string
		var n int
		if err := q.Scan(&state, &n); err != nil {
			return 0, "", err
		}
		if state == BulkSending {
			dc.InFlight = n
		} else {
			dc.Pending = n
		}
	}
	if err := q.Err(); err != nil {
		return 0, "", err
	}
	n, hold := dc.Room(c.N)
	return n, hold, nil
}

// runDebits reads the run's debits, largest single debit and rows that
// debited, locking its row until tx ends (on PostgreSQL; SQLite's write
// transactions are exclusive), and counts them from the rows when unknown.
func (db *DB) runDebits(ctx context.Context, tx *sql.Tx, runID string) (debited, largest decimal.Decimal, n int, err error) {
	q := `SELECT debited, debit_max, debit_rows FROM bulk_runs WHERE id = ?` + db.dialect.forUpdate()
	var d, m string
	if err := tx.QueryRowContext(ctx, q, runID).Scan(&d, &m, &n); err != nil {
		return debited, largest, 0, fmt.Errorf("read debits of bulk run %s: %w", runID, err)
	}
	if d != "" {
		debited, err1 := decimal.NewFromString(d)
		largest, err2 := decimal.NewFromString(m)
		if err := errors.Join(err1, err2); err != nil {
			return debited, largest, 0, fmt.Errorf("debits of bulk run %s: %w", runID, err)
		}
		return debited, largest, n, nil
	}
	// Unknown (a run created before the totals were kept): count them.
	rows, err := tx.QueryContext(ctx, `SELECT pool_amount FROM bulk_rows WHERE run_id = ? AND state = ? AND pool_amount <> ''`,
		runID, BulkSuccess)
	if err != nil {
		return debited, largest, 0, err
	}
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			rows.Close()
			return debited, largest, 0, err
		}
		if v, err := decimal.NewFromString(a); err == nil {
			debited = debited.Add(v)
			largest = decimal.Max(largest, v)
			n++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return debited, largest, 0, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE bulk_runs SET debited = ?, debit_max = ?, debit_rows = ? WHERE id = ?`,
		debited.String(), largest.String(), n, runID)
	return debited, largest, n, err
}

// addDebit adds a successful row's pool amount to its run's debits, in the
// row's transaction. An amount that does not parse is left out, as
// CountRows leaves it out; unknown totals stay unknown (runDebits counts
// them when first needed).
func (db *DB) addDebit(ctx context.Context, tx *sql.Tx, runID, amount string) error {
	var d runDebit
	if !d.add(amount) {
		return nil
	}
	return db.addDebits(ctx, tx, runID, d)
}

// runDebit is what rows add to their run's debits: the sum of their pool
// amounts, the largest and how many rows.
type runDebit struct {
	sum, max decimal.Decimal
	rows     int
}

// add adds a row's pool amount; false when it does not parse (left out).
func (d *runDebit) add(amount string) bool {
	a, err := decimal.NewFromString(amount)
	if amount == "" || err != nil {
		return false
	}
	if d.rows == 0 || a.GreaterThan(d.max) {
		d.max = a
	}
	d.sum, d.rows = d.sum.Add(a), d.rows+1
	return true
}

// addDebits adds d to run runID's debits in tx.
func (db *DB) addDebits(ctx context.Context, tx *sql.Tx, runID string, d runDebit) error {
	var s, m string
	if err := db.journal.queryRow(ctx, tx, db.debitsSQL(), runID).Scan(&s, &m); err != nil {
		return fmt.Errorf("read debits of bulk run %s: %w", runID, err)
	}
	debited, err1 := decimal.NewFromString(s)
	largest, err2 := decimal.NewFromString(m)
	if s == "" || err1 != nil || err2 != nil {
		return nil
	}
	_, err := db.journal.exec(ctx, tx, addDebitSQL, debited.Add(d.sum).String(), decimal.Max(largest, d.max).String(),
		d.rows, runID)
	return err
}

// debit adds a successful row's pool amount to the debits of run runID
// that the transaction being written stores at its end (storeDebits): the
// run's row is locked for the commit alone, not from a batch's first
// success on, and its statements run once a batch, not once a row.
func (b *Batch) debit(runID, amount string) {
	if b.debits == nil {
		b.debits = map[string]*runDebit{}
	}
	d := b.debits[runID]
	if d == nil {
		d = &runDebit{}
		b.debits[runID] = d
	}
	d.add(amount)
}

// storeDebits stores the debits the transaction's writes added (debit),
// the runs in the order of their ids (two batches lock them in one order).
func (b *Batch) storeDebits(ctx context.Context, tx *sql.Tx) error {
	runs := slices.Sorted(maps.Keys(b.debits))
	for _, run := range runs {
		if d := b.debits[run]; d.rows > 0 {
			if err := b.db.addDebits(ctx, tx, run, *d); err != nil {
				return err
			}
		}
	}
	return nil
}

// debitsSQL reads a run's debits and largest debit, locking its row until
// the transaction ends (on PostgreSQL); addDebitSQL stores them with rows
// more that debited.
func (db *DB) debitsSQL() string {
	return `SELECT debited, debit_max FROM bulk_runs WHERE id = ?` + db.dialect.forUpdate()
}

const addDebitSQL = `UPDATE bulk_runs SET debited = ?, debit_max = ?, debit_rows = debit_rows + ? WHERE id = ?`

// ReturnBulkRows gives back rows worker claimed and never sent: a first
// attempt becomes BulkQueued again, a re-send BulkUnsent, with the
// attempt taken back. Rows no longer the worker's are left alone.
func (db *DB) ReturnBulkRows(ctx context.Context, runID, worker string, lines []int) error {
	if len(lines) == 0 {
		return nil
	}
	return db.journal.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, line := range lines {
			if _, err := tx.ExecContext(ctx, `UPDATE bulk_rows SET state = CASE WHEN attempts <= 1 THEN ? ELSE ? END,
				attempts = attempts - 1, worker = '' WHERE run_id = ? AND line = ? AND state = ? AND worker = ?`,
				BulkQueued, BulkUnsent, runID, line, BulkSending, worker); err != nil {
				return fmt.Errorf("return line %d of bulk run %s: %w", line, runID, err)
			}
		}
		return nil
	})
}

// FinishClaimedBulkRow records the outcome of the call of row r.Line, which
// worker claimed (see FinishBulkRow), if the row is still the worker's and
// 'sending'; false when it is not (the worker was reaped as gone and the
// row turned pending: the transaction-status look-up resolves it).
func (db *DB) FinishClaimedBulkRow(ctx context.Context, runID, worker string, r BulkRow, at time.Time) (bool, error) {
	mine, _, err := db.StepBulkRows(ctx, runID, BulkStep{Done: &r, Worker: worker, At: at})
	return mine, err
}

// EndBulkWorker removes worker from the workers of run runID. When no
// worker is left, it also sets the run's state from its rows — BulkStopped
// while rows are queued, unsent or 'sending', else BulkDone — updated at
// at, and returns it; otherwise it returns "" and how many workers are
// left, and the run stays as it is (the last worker sets it). Workers
// ending at once are serialized on the run's row, so one of them is last.
func (db *DB) EndBulkWorker(ctx context.Context, runID, worker string, at time.Time) (state string, others int, err error) {
	err = db.Write(ctx, func(tx *sql.Tx) error {
		state, others = "", 0
		lock := `SELECT id FROM bulk_runs WHERE id = ?` + db.dialect.forUpdate()
		var id string
		if err := tx.QueryRowContext(ctx, lock, runID).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM bulk_workers WHERE run_id = ? AND worker = ?`, runID, worker); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM bulk_workers WHERE run_id = ?`, runID).Scan(&others); err != nil {
			return err
		}
		if others > 0 {
			return nil
		}
		var open int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM bulk_rows WHERE run_id = ? AND state IN (?, ?, ?)`,
			runID, BulkQueued, BulkUnsent, BulkSending).Scan(&open); err != nil {
			return err
		}
		state = BulkDone
		if open > 0 {
			state = BulkStopped
		}
		_, err := tx.ExecContext(ctx, `UPDATE bulk_runs SET state = ?, updated_at = ? WHERE id = ?`, state, FormatTime(at), runID)
		return err
	})
	if err != nil {
		return "", 0, fmt.Errorf("end worker %s of bulk run %s: %w", worker, runID, err)
	}
	return state, others, nil
}

// BulkWorkerRows calls fn with the number of journal rows of run runID per
// worker and state (queued rows left out), ordered by worker.
func (db *DB) BulkWorkerRows(ctx context.Context, runID string, fn func(worker, state string, n int) error) error {
	rows, err := db.QueryContext(ctx, `SELECT worker, state, count(*) FROM bulk_rows WHERE run_id = ? AND state <> ?
		GROUP BY worker, state ORDER BY worker, state`, runID, BulkQueued)
	if err != nil {
		return fmt.Errorf("count rows per worker of bulk run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var w, s string
		var n int
		if err := rows.Scan(&w, &s, &n); err != nil {
			return fmt.Errorf("count rows per worker of bulk run %s: %w", runID, err)
		}
		if err := fn(w, s, n); err != nil {
			return err
		}
	}
	return rows.Err()
}
