package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// exceptionCols are the exceptions columns, in scanException's order.
const exceptionCols = `id, kind, key, day, status, assignee, note, amount, detail,
	first_seen, first_run, first_to, last_seen, last_run, last_from, last_to, last_day`

// ApplyEvidence writes c in one transaction: exceptions inserted and
// updated, sightings (once each), events appended to the chain (each
// linked after the last, under the evidence lock) and the manifest with
// the chain's head after them. With c.Guard set, nothing is written and
// the error is evidence.ErrMoved when the chain's head is no longer
// c.Base or an exception updated was carried over since c.Read.
func (db *DB) ApplyEvidence(ctx context.Context, c evidence.Changes) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		if err := db.dialect.lock(ctx, tx, evidenceLock); err != nil {
			return err
		}
		if c.Guard {
			head, err := evidenceHead(ctx, tx)
			if err != nil {
				return err
			}
			if head != c.Base {
				return evidence.ErrMoved
			}
		}
		for i := range c.New {
			e := &c.New[i]
			if _, err := tx.ExecContext(ctx, `INSERT INTO exceptions (`+exceptionCols+`)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				e.ID, e.Kind, e.Key, e.Day, e.Status, e.Assignee, e.Note, e.Amount, e.Detail,
				FormatTime(e.FirstSeen), e.FirstRun, e.FirstTo, FormatTime(e.LastSeen), e.LastRun, e.LastFrom, e.LastTo, e.LastDay); err != nil {
				return fmt.Errorf("exception %s: %w", e.ID, err)
			}
		}
		for i := range c.Update {
			if err := updateException(ctx, tx, &c, &c.Update[i]); err != nil {
				return err
			}
		}
		for _, s := range c.Sightings {
			if _, err := tx.ExecContext(ctx, db.dialect.insertIgnore("exception_sightings", "run_id, exception_id",
				"(?, ?)"), s.RunID, s.ExceptionID); err != nil {
				return fmt.Errorf("sighting of %s: %w", s.ExceptionID, err)
			}
		}
		seq, hash, err := appendEvents(ctx, tx, c.Events)
		if err != nil {
			return err
		}
		if c.Manifest == nil {
			return nil
		}
		return saveManifest(ctx, tx, c.Manifest, seq, hash)
	})
}

// updateException writes e, one of c's updates. With c.Guard set and
// e's last sighting as read in c.Read, only while the row's last sighting
// is still that one: else ErrMoved (a check carried it over meanwhile).
func updateException(ctx context.Context, tx *sql.Tx, c *evidence.Changes, e *evidence.Exception) error {
	q := `UPDATE exceptions SET day = ?, status = ?, assignee = ?, note = ?, amount = ?, detail = ?,
		last_seen = ?, last_run = ?, last_from = ?, last_to = ?, last_day = ? WHERE id = ?`
	args := []any{e.Day, e.Status, e.Assignee, e.Note, e.Amount, e.Detail, FormatTime(e.LastSeen), e.LastRun,
		e.LastFrom, e.LastTo, e.LastDay, e.ID}
	read, guard := c.Read[e.ID]
	guard = guard && c.Guard
	if guard {
		q += ` AND last_run = ? AND last_seen = ?`
		args = append(args, read.Run, FormatTime(read.At))
	}
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("exception %s: %w", e.ID, err)
	}
	if !guard {
		return nil
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("exception %s: %w", e.ID, err)
	}
	if n == 0 {
		return evidence.ErrMoved
	}
	return nil
}

// EvidenceHead is the sequence number of the chain's last event, 0 when
// there is none.
func (db *DB) EvidenceHead(ctx context.Context) (int64, error) {
	return evidenceHead(ctx, db)
}

// evidenceHead reads the chain's head through q (the database or a
// transaction).
func evidenceHead(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var seq int64
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM evidence_events`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("the chain's head: %w", err)
	}
	return seq, nil
}

// appendEvents appends evs after the chain's last event; it returns the
// chain's head after them.
func appendEvents(ctx context.Context, tx *sql.Tx, evs []evidence.Event) (int64, string, error) {
	var seq int64
	var hash string
	err := tx.QueryRowContext(ctx, `SELECT seq, hash FROM evidence_events ORDER BY seq DESC LIMIT 1`).Scan(&seq, &hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, "", fmt.Errorf("the last evidence event: %w", err)
	}
	for i := range evs {
		e := &evs[i]
		if err := evidence.Chain(e, seq, hash); err != nil {
			return 0, "", err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO evidence_events (seq, exception_id, run_id, at, actor, action,
			note, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Seq, nullText(e.ExceptionID), nullID(e.RunID), FormatTime(e.At), e.By, e.Action, e.Note, e.Data,
			e.PrevHash, e.Hash); err != nil {
			return 0, "", fmt.Errorf("append event %d: %w", e.Seq, err)
		}
		seq, hash = e.Seq, e.Hash
	}
	return seq, hash, nil
}

// saveManifest stores a run's manifest, replacing the one it had.
func saveManifest(ctx context.Context, tx *sql.Tx, m *evidence.StoredManifest, seq int64, hash string) error {
	m.HeadSeq, m.HeadHash = seq, hash
	_, err := tx.ExecContext(ctx, `INSERT INTO manifests (run_id, period_from, period_to, digest, verdict, head_seq,
		head_hash, created_at, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET period_from = excluded.period_from, period_to = excluded.period_to,
		digest = excluded.digest, verdict = excluded.verdict, head_seq = excluded.head_seq,
		head_hash = excluded.head_hash, created_at = excluded.created_at, json = excluded.json`,
		m.RunID, m.From, m.To, m.Digest, m.Verdict, seq, hash, FormatTime(m.Created), string(m.JSON))
	if err != nil {
		return fmt.Errorf("manifest of run %d: %w", m.RunID, err)
	}
	return nil
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// SetManifestJSON replaces the JSON kept of a run's manifest.
func (db *DB) SetManifestJSON(ctx context.Context, runID int64, json []byte) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE manifests SET json = ? WHERE run_id = ?`, string(json), runID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("run %d has no manifest", runID)
		}
		return nil
	})
}

const manifestCols = `run_id, period_from, period_to, digest, verdict, head_seq, head_hash, created_at, json`

func scanManifest(rows interface{ Scan(...any) error }, m *evidence.StoredManifest) error {
	var created, js string
	if err := rows.Scan(&m.RunID, &m.From, &m.To, &m.Digest, &m.Verdict, &m.HeadSeq, &m.HeadHash, &created, &js); err != nil {
		return err
	}
	m.Created, _ = time.Parse(time.RFC3339Nano, created)
	m.JSON = []byte(js)
	return nil
}

// Manifest returns the manifest of a run.
func (db *DB) Manifest(ctx context.Context, runID int64) (evidence.StoredManifest, bool, error) {
	var m evidence.StoredManifest
	err := scanManifest(db.QueryRowContext(ctx, `SELECT `+manifestCols+` FROM manifests WHERE run_id = ?`, runID), &m)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	return m, err == nil, err
}

// Manifests lists every manifest, oldest run first.
func (db *DB) Manifests(ctx context.Context) ([]evidence.StoredManifest, error) {
	var out []evidence.StoredManifest
	for m, err := range scanSeq(ctx, db, func(rows *sql.Rows, m *evidence.StoredManifest) error {
		return scanManifest(rows, m)
	}, `SELECT `+manifestCols+` FROM manifests ORDER BY run_id`) {
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func scanException(rows interface{ Scan(...any) error }, e *evidence.Exception) error {
	var first, last string
	if err := rows.Scan(&e.ID, &e.Kind, &e.Key, &e.Day, &e.Status, &e.Assignee, &e.Note, &e.Amount, &e.Detail,
		&first, &e.FirstRun, &e.FirstTo, &last, &e.LastRun, &e.LastFrom, &e.LastTo, &e.LastDay); err != nil {
		return err
	}
	e.FirstSeen, _ = time.Parse(time.RFC3339Nano, first)
	e.LastSeen, _ = time.Parse(time.RFC3339Nano, last)
	return nil
}

// Exceptions yields every exception, by id.
func (db *DB) Exceptions(ctx context.Context) iter.Seq2[evidence.Exception, error] {
	return scanSeq(ctx, db, func(rows *sql.Rows, e *evidence.Exception) error { return scanException(rows, e) },
		`SELECT `+exceptionCols+` FROM exceptions ORDER BY id`)
}

// Exception returns one exception.
func (db *DB) Exception(ctx context.Context, id string) (evidence.Exception, bool, error) {
	var e evidence.Exception
	err := scanException(db.QueryRowContext(ctx, `SELECT `+exceptionCols+` FROM exceptions WHERE id = ?`, id), &e)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	return e, err == nil, err
}

// Sightings lists the ids of the exceptions a run found.
func (db *DB) Sightings(ctx context.Context, runID int64) ([]string, error) {
	var out []string
	for id, err := range scanSeq(ctx, db, func(rows *sql.Rows, id *string) error { return rows.Scan(id) },
		`SELECT exception_id FROM exception_sightings WHERE run_id = ? ORDER BY exception_id`, runID) {
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// Events yields the events f selects, by seq.
func (db *DB) Events(ctx context.Context, f evidence.EventFilter) iter.Seq2[evidence.Event, error] {
	where, args := "1 = 1", []any{}
	if f.ExceptionID != "" {
		where, args = where+" AND exception_id = ?", append(args, f.ExceptionID)
	}
	if f.RunID != 0 {
		where, args = where+" AND run_id = ?", append(args, f.RunID)
	}
	if f.SignOffs {
		where, args = where+" AND exception_id IS NULL AND action IN (?, ?)",
			append(args, evidence.ActionSignoffPreparer, evidence.ActionSignoffApprover)
	}
	return scanSeq(ctx, db, func(rows *sql.Rows, e *evidence.Event) error {
		var ex sql.NullString
		var run sql.NullInt64
		var at string
		if err := rows.Scan(&e.Seq, &ex, &run, &at, &e.By, &e.Action, &e.Note, &e.Data, &e.PrevHash, &e.Hash); err != nil {
			return err
		}
		e.ExceptionID, e.RunID = ex.String, run.Int64
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return fmt.Errorf("event %d: time %q: %w", e.Seq, at, err)
		}
		e.At = t
		return nil
	}, `SELECT seq, exception_id, run_id, at, actor, action, note, data, prev_hash, hash FROM evidence_events
		WHERE `+where+` ORDER BY seq`, args...)
}

// DayDigests returns the digests kept of kind k's days from..to that still
// hold: computed at the day's current version.
func (db *DB) DayDigests(ctx context.Context, k recon.Kind, from, to string) (map[string]evidence.DayDigest, error) {
	out := map[string]evidence.DayDigest{}
	for d, err := range scanSeq(ctx, db, func(rows *sql.Rows, d *evidence.DayDigest) error {
		var totals string
		if err := rows.Scan(&d.Day, &d.Version, &d.SHA256, &d.Records, &totals); err != nil {
			return err
		}
		d.Kind = k
		return json.Unmarshal([]byte(totals), &d.Totals)
	}, `SELECT d.day, d.version, d.sha256, d.records, d.totals FROM day_digests d
		LEFT JOIN day_versions v ON v.kind = d.kind AND v.day = d.day
		WHERE d.kind = ? AND d.day >= ? AND d.day <= ? AND d.version = COALESCE(v.version, 0)`, k, from, to) {
		if err != nil {
			return nil, err
		}
		out[d.Day] = d
	}
	return out, nil
}

// DayVersions returns the current versions of kind k's days from..to.
func (db *DB) DayVersions(ctx context.Context, k recon.Kind, from, to string) (map[string]int64, error) {
	out := map[string]int64{}
	type dv struct {
		day string
		v   int64
	}
	for d, err := range scanSeq(ctx, db, func(rows *sql.Rows, d *dv) error { return rows.Scan(&d.day, &d.v) },
		`SELECT day, version FROM day_versions WHERE kind = ? AND day >= ? AND day <= ?`, k, from, to) {
		if err != nil {
			return nil, err
		}
		out[d.day] = d.v
	}
	return out, nil
}

// SaveDayDigests keeps digests, replacing those kept of their days.
func (db *DB) SaveDayDigests(ctx context.Context, ds []evidence.DayDigest) error {
	return db.Write(ctx, func(tx *sql.Tx) error {
		for _, d := range ds {
			totals, err := json.Marshal(d.Totals)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO day_digests (kind, day, version, sha256, records, totals)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kind, day) DO UPDATE SET version = excluded.version,
				sha256 = excluded.sha256, records = excluded.records, totals = excluded.totals`,
				string(d.Kind), d.Day, d.Version, d.SHA256, d.Records, string(totals)); err != nil {
				return fmt.Errorf("keep the digest of %s %s: %w", d.Kind, d.Day, err)
			}
		}
		return nil
	})
}
