package calllog

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// SourceSvcrecon is calls.source for the calls svcrecon made itself.
const SourceSvcrecon = "svcrecon"

// Recorder stores the calls svcrecon makes itself in the calls table
// (source "svcrecon"), exactly as importing their call-log line would: the
// dedup key is the hash of the line svcapi.JSONLRecorder writes for the same
// record, so importing svcrecon's own call-log file afterwards adds nothing.
// The line itself is kept redacted in the database (calls show). It is safe
// for concurrent use. Under store.DeferCalls a call's records are kept for
// the caller, whose journal write stores them with the call's outcome in
// one transaction (bulk).
type Recorder struct {
	db  RecordWriter
	log *slog.Logger
	// Now stamps each stored call's imported_at (default time.Now). Set it
	// before the first Record.
	Now func() time.Time
}

var _ svcapi.Recorder = (*Recorder)(nil)

// RecordWriter is what a Recorder stores calls with: InsertCalls for a
// billable operation's call (or one not in the registry),
// InsertReportCalls, whose commit may be relaxed, for a read-only one's.
type RecordWriter interface {
	InsertCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error)
	InsertReportCalls(ctx context.Context, at time.Time, calls []recon.Call, bad []store.ImportError) (int, error)
}

// NewRecorder returns a recorder writing to db; log may be nil.
func NewRecorder(db RecordWriter, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recorder{db: db, log: log, Now: time.Now}
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
			if cp.Request, err = json.Marshal(string(cp.Request)); err != nil {
				return fmt.Errorf("record call %s: request: %w", rec.Operation, err)
			}
		}
		if !json.Valid(cp.Response) {
			if cp.Response, err = json.Marshal(string(cp.Response)); err != nil {
				return fmt.Errorf("record call %s: response: %w", rec.Operation, err)
			}
		}
		if line, err = json.Marshal(&cp); err != nil {
			return fmt.Errorf("record call %s: %w", rec.Operation, err)
		}
	}
	call, ok := fastLine(line, nil) // the lean decoder of the import, which agrees with parseLine
	var perr error
	if !ok {
		call, perr = parseLine(line)
	}
	var calls []recon.Call
	var bad []store.ImportError
	if perr != nil {
		bad = []store.ImportError{{Source: SourceSvcrecon, Reason: rec.Operation + " " + rec.ExternalRef + ": " + perr.Error()}}
	} else {
		call.Source = SourceSvcrecon
		keepDocuments(&call)
		oneBlock(&call, redactedLine(line, call.Operation, nil))
		calls = []recon.Call{call}
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	// A call that was made is recorded even when the run is being
	// interrupted (Ctrl-C, a stopped sync): the ledger must know it.
	ctx = context.WithoutCancel(ctx)
	if d := store.DeferredCallsOf(ctx); d != nil {
		// The caller's journal write stores them with the call's outcome.
		d.Add(now(), calls, bad)
	} else if _, err := r.insert(rec.Operation)(ctx, now(), calls, bad); err != nil {
		return fmt.Errorf("record call %s: %w", rec.Operation, err)
	}
	if perr != nil {
		r.log.ErrorContext(ctx, "call not stored in the ledger", svcapi.LogOp, rec.Operation,
			svcapi.LogRef, rec.ExternalRef, "reason", perr.Error())
		return fmt.Errorf("record call %s: %w", rec.Operation, perr)
	}
	return nil
}

// insert is how the call of operation op is stored: InsertReportCalls for
// a read-only operation of the registry, InsertCalls for any other.
func (r *Recorder) insert(op string) func(context.Context, time.Time, []recon.Call, []store.ImportError) (int, error) {
	if o, ok := svcapi.Lookup(op); ok && o.ReadOnly() {
		return r.db.InsertReportCalls
	}
	return r.db.InsertCalls
}
