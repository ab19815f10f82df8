package bulk

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// ErrRefused is matched (errors.Is) by the errors Starter.Plan refuses a
// run with: *EditedInputError, *UnfinishedError and *CompletedError.
// Nothing was sent; bulkrun exits 2.
var ErrRefused = errors.New("bulk run refused")

// Request is a run of one operation over an input file, as bulkrun run asks
// for it.
type Request struct {
	Op       string   // the operation
	Input    string   // absolute path of the input file
	Name     string   // the input as the user named it, for messages ("": Input)
	SHA256   string   // the input's SHA-256 (Table.SHA256)
	Rows     int      // the input's data rows (len(Table.Records))
	Settings Settings // the options of a new run, its --set values included
	// Again starts a new run of a file that was run completely before, or
	// that changed since a run of it (every row is called again).
	Again bool
}

func (q Request) name() string {
	if q.Name != "" {
		return q.Name
	}
	return q.Input
}

// Plan is the run Starter.Plan chose for a Request.
type Plan struct {
	// Run is the run to execute: an unfinished run of the same file and
	// operation (Continue), whose settings the caller may still change, or a
	// new run with an unused id, not stored until Start.
	Run      *Run
	Continue bool
}

// Starter decides which run a bulkrun run continues or starts, and stores
// it. Set DB; Now is the clock of the run's timestamps (default time.Now).
// With Leases, Start takes the run's lease: one run, one holder.
type Starter struct {
	DB     Journal
	Leases *Leases
	Now    func() time.Time
	// NewID returns a candidate id for a new run; default NewRunID.
	NewID func() string
}

func (s *Starter) now() time.Time { return now(s.Now) }

// Plan applies the resume policy to q:
//
//   - the newest run of this operation over the same content (SHA-256) is
//     unfinished: continue it, if its --set values are q's (else
//     *UnfinishedError: bulkrun resume continues it);
//   - it is done: *CompletedError, unless q.Again;
//   - no run has this content but a run of the same path had other content:
//     the file was edited, and a new run would call its rows again under new
//     derived externalRefs: *EditedInputError, unless q.Again;
//   - else a new run, with a fresh id.
//
// The --set values are compared as stored (secret ones redacted); a
// continued run takes q's values, secret ones included. A new run with
// q.Again after an earlier run of the file writes its results, unless
// q.Settings.Out says where, to AgainResultsPath: the earlier results are
// kept.
//
// The refusals match ErrRefused.
func (s *Starter) Plan(ctx context.Context, q Request) (*Plan, error) {
	op, ok := svcapi.Lookup(q.Op)
	if !ok {
		return nil, fmt.Errorf("unknown operation %q", q.Op)
	}
	// The run of the path first: a run of this content another process
	// creates between the two reads is then found as prev, not taken for
	// an edit of the file.
	old, err := LatestRunOfPath(ctx, s.DB, q.Op, q.Input)
	if err != nil {
		return nil, err
	}
	prev, err := LatestRun(ctx, s.DB, q.Op, q.SHA256)
	if err != nil {
		return nil, err
	}
	if prev == nil && old != nil && old.InputSHA256 != q.SHA256 && !q.Again {
		c, err := CountRows(ctx, s.DB, old)
		if err != nil {
			return nil, err
		}
		return nil, &EditedInputError{Name: q.name(), Run: old, Counts: c}
	}
	switch {
	case prev != nil && prev.State != RunDone:
		if !maps.Equal(prev.Settings.Sets, q.Settings.Sets.redacted(op)) {
			return nil, &UnfinishedError{Run: prev}
		}
		prev.Settings.Sets = q.Settings.Sets
		return &Plan{Run: prev, Continue: true}, nil
	case prev != nil && !q.Again:
		return nil, &CompletedError{Name: q.name(), Run: prev}
	}
	id, err := s.uniqueID(ctx)
	if err != nil {
		return nil, err
	}
	settings := q.Settings
	if q.Again && settings.Out == "" && (prev != nil || old != nil) {
		settings.Out = AgainResultsPath(q.Input, id)
	}
	return &Plan{Run: &Run{ID: id, Op: q.Op, InputPath: q.Input, InputSHA256: q.SHA256, Settings: settings, TotalRows: q.Rows}}, nil
}

// AgainResultsPath is where the results of a run started with --again go
// by default: beside the input, named with the run id
// (<input>.<RUN>.results.csv), so the earlier run's results are kept.
func AgainResultsPath(input, runID string) string { return input + "." + runID + ".results.csv" }

func (s *Starter) uniqueID(ctx context.Context) (string, error) {
	if s.NewID == nil {
		return UniqueRunID(ctx, s.DB)
	}
	return uniqueRunID(ctx, s.DB, s.NewID)
}

// Start stores the planned run: a new run is created in state running; a
// continued run's settings are updated (a resume may change concurrency,
// rate, --max-debit and the outputs).
//
// With Leases, the run's lease is taken first (with the new run, in one
// transaction) and returned; the caller releases it when done. A run
// another live process holds is a *HeldError, and nothing is changed. Two
// processes starting the same file at once make one run: the second is
// told who holds it.
func (s *Starter) Start(ctx context.Context, p *Plan) (*Lease, error) {
	if p.Continue {
		var lease *Lease
		if s.Leases != nil {
			var err error
			if lease, err = s.Leases.Acquire(ctx, p.Run.ID); err != nil {
				return nil, err
			}
		}
		if err := updateSettings(ctx, s.DB, p.Run, s.now()); err != nil {
			if lease != nil {
				lease.Release(ctx)
			}
			return nil, err
		}
		return lease, nil
	}
	p.Run.CreatedAt = s.now()
	if s.Leases == nil {
		return nil, CreateRun(ctx, s.DB, p.Run)
	}
	if s.Leases.Shared {
		return s.startShared(ctx, p)
	}
	l := s.Leases.lease(p.Run.ID)
	err := createRun(ctx, s.DB, p.Run, &l)
	var ue *store.UnfinishedBulkRunError
	if errors.As(err, &ue) {
		// Another process started this file a moment ago: it holds the
		// run (else it is gone, and the same command continues it).
		other, herr := s.Leases.Acquire(ctx, ue.ID)
		if herr != nil {
			return nil, herr
		}
		other.Release(ctx)
		return nil, fmt.Errorf("%w: run %s of this file was started a moment ago by a process now gone: run the same command again to continue it",
			ErrRefused, ue.ID)
	}
	if err != nil {
		return nil, err
	}
	return s.Leases.keep(p.Run.ID, nil), nil
}

// startShared creates the planned new run and joins it as a worker. When
// another worker created a run of the same file a moment before, nothing
// is created and the error is a *JoinError: plan again, to join that run.
func (s *Starter) startShared(ctx context.Context, p *Plan) (*Lease, error) {
	err := CreateRun(ctx, s.DB, p.Run)
	var ue *store.UnfinishedBulkRunError
	if errors.As(err, &ue) {
		return nil, &JoinError{ID: ue.ID}
	}
	if err != nil {
		return nil, err
	}
	return s.Leases.Acquire(ctx, p.Run.ID)
}

// JoinError is Starter.Start's answer, on a shared journal, to a new run
// of a file another worker started a moment before: Plan again, and the
// plan continues that run.
type JoinError struct {
	ID string // the run to join
}

func (e *JoinError) Error() string {
	return fmt.Sprintf("run %s of this file was started a moment ago by another worker: plan again to join it", e.ID)
}

// EditedInputError refuses a new run of a file whose earlier version was
// run: its rows already called would be called (and billed) again under new
// derived externalRefs.
type EditedInputError struct {
	Name   string // the input, as the user named it
	Run    *Run   // the newest run of that path
	Counts Counts // its rows
}

func (e *EditedInputError) Error() string {
	return fmt.Sprintf("%s changed since run %s (%s, %s: %d rows called, %d success): a new run would call every row again; "+
		"restore the file and run bulkrun resume %s, or put only the rows still to call in a new file, or add --again",
		e.Name, e.Run.ID, e.Run.CreatedAt.Format("2006-01-02 15:04 MST"), e.Run.State, e.Counts.Journaled(), e.Counts.Success, e.Run.ID)
}

// Unwrap returns ErrRefused.
func (e *EditedInputError) Unwrap() error { return ErrRefused }

// UnfinishedError refuses to continue an unfinished run of the same file
// with other --set values than it started with.
type UnfinishedError struct {
	Run *Run
}

func (e *UnfinishedError) Error() string {
	return fmt.Sprintf("run %s of this file is unfinished with --set %s; continue it with bulkrun resume %s",
		e.Run.ID, e.Run.Settings.Sets, e.Run.ID)
}

// Unwrap returns ErrRefused.
func (e *UnfinishedError) Unwrap() error { return ErrRefused }

// CompletedError refuses a new run of a file run completely before
// (without Request.Again).
type CompletedError struct {
	Name string // the input, as the user named it
	Run  *Run   // the completed run
}

func (e *CompletedError) Error() string {
	return fmt.Sprintf("%s was already run completely as run %s (%s): see bulkrun status %s; add --again to send every row again",
		e.Name, e.Run.ID, e.Run.CreatedAt.Format("2006-01-02 15:04 MST"), e.Run.ID)
}

// Unwrap returns ErrRefused.
func (e *CompletedError) Unwrap() error { return ErrRefused }
