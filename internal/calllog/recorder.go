package calllog

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
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
// reason, like a bad imported line, and reported as an error. Under
// store.DeferCalls the record is only kept: the journal write that stores
// it makes its line and row (and logs a record that cannot be read), off
// the path of the caller's next call.
func (r *Recorder) Record(ctx context.Context, rec *svcapi.CallRecord) error {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	// A call that was made is recorded even when the run is being
	// interrupted (Ctrl-C, a stopped sync): the ledger must know it.
	ctx = context.WithoutCancel(ctx)
	if d := store.DeferredCallsOf(ctx); d != nil {
		// The caller's journal write stores them with the call's outcome.
		cp := *rec
		d.Defer(now(), func() ([]recon.Call, []store.ImportError) {
			calls, bad, err := r.records(&cp)
			if err != nil {
				r.logUnread(ctx, &cp, err)
			}
			return calls, bad
		})
		return nil
	}
	calls, bad, perr := r.records(rec)
	if len(calls)+len(bad) > 0 {
		if _, err := r.insert(rec.Operation)(ctx, now(), calls, bad); err != nil {
			return fmt.Errorf("record call %s: %w", rec.Operation, err)
		}
	}
	if perr != nil {
		r.logUnread(ctx, rec, perr)
		return fmt.Errorf("record call %s: %w", rec.Operation, perr)
	}
	return nil
}

// records is what storing rec adds: its call (its line kept, redacted, in
// a block of its own), or, when it cannot be read as a call, an
// import error of source svcrecon and the reason (err).
func (r *Recorder) records(rec *svcapi.CallRecord) (calls []recon.Call, bad []store.ImportError, err error) {
	line, err := json.Marshal(rec)
	if err != nil {
		// A Request or Response that is not JSON: log it as a JSON string.
		cp := *rec
		if !json.Valid(cp.Request) {
			if cp.Request, err = json.Marshal(string(cp.Request)); err != nil {
				return nil, nil, fmt.Errorf("request: %w", err)
			}
		}
		if !json.Valid(cp.Response) {
			if cp.Response, err = json.Marshal(string(cp.Response)); err != nil {
				return nil, nil, fmt.Errorf("response: %w", err)
			}
		}
		if line, err = json.Marshal(&cp); err != nil {
			return nil, nil, err
		}
	}
	call, err := readCall(line, nil) // as the import reads a line
	if err != nil {
		reason := redact.Text(rec.Operation + " " + rec.ExternalRef + ": " + err.Error())
		return nil, []store.ImportError{{Source: SourceSvcrecon, Reason: reason}}, err
	}
	call.Source = SourceSvcrecon
	keepDocuments(&call)
	oneBlock(&call, redactedLine(line, call.Operation, nil))
	return []recon.Call{call}, nil, nil
}

// logUnread logs a record that could not be stored as a call.
func (r *Recorder) logUnread(ctx context.Context, rec *svcapi.CallRecord, err error) {
	r.log.ErrorContext(ctx, "call not stored in the ledger", svcapi.LogOp, rec.Operation,
		svcapi.LogRef, rec.ExternalRef, "reason", err.Error())
}

// insert is how the call of operation op is stored: InsertReportCalls for
// a read-only operation of the registry, InsertCalls for any other.
func (r *Recorder) insert(op string) func(context.Context, time.Time, []recon.Call, []store.ImportError) (int, error) {
	if o, ok := svcapi.Lookup(op); ok && o.ReadOnly() {
		return r.db.InsertReportCalls
	}
	return r.db.InsertCalls
}
