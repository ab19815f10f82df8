package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// ImportError is a call-log line that could not be stored as a call
// (import_errors). Line 0 concerns the file as a whole, or a call svcrecon
// made itself. Reason never quotes the line.
type ImportError struct {
	Source string
	Line   int
	Reason string
}

const insertCallSQL = `INSERT INTO calls (line_hash, source, source_line, at, ts, operation, method, path,
	external_ref, http_status, latency_ms, error, statuscode, actcode, status, svc_uuid, orderid, outcome,
	pool_account, pool_shape, pool_mode, pool_opening, pool_amount, pool_closing, request, response, imported_at)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
	ON CONFLICT (line_hash) DO NOTHING`

const insertImportErrorSQL = `INSERT INTO import_errors (source, line, reason, imported_at)
	SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS
	(SELECT 1 FROM import_errors WHERE source = ?1 AND line = ?2 AND reason = ?3)`

// InsertCalls stores a batch of calls and bad lines in one transaction,
// stamped imported at at. A call whose line (Hash) was stored before is
// skipped; a bad line already recorded with the same reason is not
// recorded again. It returns how many calls were new.
func (db *DB) InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []ImportError) (int, error) {
	stamp := FormatTime(at)
	var inserted int
	err := db.Write(ctx, func(tx *sql.Tx) error {
		inserted = 0
		if len(bad) > 0 {
			st, err := tx.PrepareContext(ctx, insertImportErrorSQL)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, b := range bad {
				if _, err := st.ExecContext(ctx, b.Source, b.Line, b.Reason, stamp); err != nil {
					return fmt.Errorf("record bad line %d: %w", b.Line, err)
				}
			}
		}
		if len(calls) == 0 {
			return nil
		}
		st, err := tx.PrepareContext(ctx, insertCallSQL)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range calls {
			c := &calls[i]
			res, err := st.ExecContext(ctx, c.Hash, c.Source, c.Line, c.At, c.TS, c.Operation, c.Method, c.Path,
				c.ExternalRef, c.HTTPStatus, c.LatencyMs, c.Error, c.StatusCode, c.ActCode, c.Status, c.SvcUUID,
				c.OrderID, c.Outcome, c.Pool.Account, c.Pool.Shape, c.Pool.Mode, c.Pool.Opening, c.Pool.Amount,
				c.Pool.Closing, callText(c.Request), callText(c.Response), stamp)
			if err != nil {
				return fmt.Errorf("line %d: %w", c.Line, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("line %d: %w", c.Line, err)
			}
			inserted += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return inserted, nil
}

// callText stores nil as NULL and a document as text.
func callText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}
