package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// SourceSvcrecon is calls.source for the calls svcrecon made itself.
const SourceSvcrecon = "svcrecon"

// Recorder stores the calls svcrecon makes itself in the calls table
// (source "svcrecon"), exactly as importing their call-log line would: the
// dedup key is the hash of the line svcapi.JSONLRecorder writes for the same
// record, so importing svcrecon's own call-log file afterwards adds nothing.
// It is safe for concurrent use.
type Recorder struct {
	db  *store.DB
	log *slog.Logger
	now func() time.Time
}

var _ svcapi.Recorder = (*Recorder)(nil)

// NewRecorder returns a recorder writing to db; log may be nil.
func NewRecorder(db *store.DB, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recorder{db: db, log: log, now: time.Now}
}

// Record stores one call, even when ctx is already cancelled. A record
// that cannot be read as a call (a success answer of a pool operation
// without its pool, a bad timestamp) is kept in import_errors with its
// reason, like a bad imported line, and reported as an error.
func (r *Recorder) Record(ctx context.Context, rec *svcapi.CallRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		// A Request or Response that is not JSON: log it as a JSON string.
		cp := *rec
		if !json.Valid(cp.Request) {
			cp.Request, _ = json.Marshal(string(cp.Request))
		}
		if !json.Valid(cp.Response) {
			cp.Response, _ = json.Marshal(string(cp.Response))
		}
		if line, err = json.Marshal(&cp); err != nil {
			return fmt.Errorf("record call %s: %w", rec.Operation, err)
		}
	}
	row, perr := parseLine(line)
	at := store.FormatTime(r.now())
	// A call that was made is recorded even when the run is being
	// interrupted (Ctrl-C, a stopped sync): the ledger must know it.
	ctx = context.WithoutCancel(ctx)
	err = r.db.Write(ctx, func(tx *sql.Tx) error {
		if perr != nil {
			_, err := tx.ExecContext(ctx, insertImportError, SourceSvcrecon, 0,
				rec.Operation+" "+rec.ExternalRef+": "+perr.Error(), at)
			return err
		}
		_, err := insertRow(ctx, txStmt{tx, insertCall}, &row, SourceSvcrecon, 0, at)
		return err
	})
	if err != nil {
		return fmt.Errorf("record call %s: %w", rec.Operation, err)
	}
	if perr != nil {
		r.log.ErrorContext(ctx, "call not stored in the ledger", svcapi.LogOp, rec.Operation,
			svcapi.LogRef, rec.ExternalRef, "reason", perr.Error())
		return fmt.Errorf("record call %s: %w", rec.Operation, perr)
	}
	return nil
}

// txStmt runs one statement text on a transaction, as an execer.
type txStmt struct {
	tx    *sql.Tx
	query string
}

func (s txStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return s.tx.ExecContext(ctx, s.query, args...)
}
