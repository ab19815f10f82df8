package ledger

import (
	"context"
	"iter"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// CheckStore is everything Check reads and writes; *store.DB implements it.
type CheckStore interface {
	// PeriodReader is what the load stage reads of the period up front.
	PeriodReader
	// DebitReader is what the fees stage reads (fees.go).
	DebitReader
	// CheckCalls yields the window's calls in (ts, id) order.
	CheckCalls(ctx context.Context, w Window) iter.Seq2[recon.Call, error]
	// CheckStatement yields the window's statement records in time order.
	CheckStatement(ctx context.Context, w Window) iter.Seq2[Record, error]
	// CheckUnsettled yields the unsettled collect orders up to a day, in time order.
	CheckUnsettled(ctx context.Context, to string) iter.Seq2[recon.Record, error]
	// CheckFinder prepares the point look-ups of a check of w.
	CheckFinder(ctx context.Context, w Window) (Finder, error)
	// BeginCheckRun starts storing a run's results, in one transaction.
	BeginCheckRun(ctx context.Context, run Run) (RunWriter, error)
	// FailCheckRun records a run that did not finish, in state (RunFailed
	// or RunInterrupted).
	FailCheckRun(ctx context.Context, run Run, state string, finished time.Time) error
}

// Warning is an error of the store's that a check goes on after: it is
// logged as a warning (CheckStats: statistics the store may not refresh).
type Warning struct{ Err error }

func (w *Warning) Error() string { return w.Err.Error() }

// Unwrap returns the store's error.
func (w *Warning) Unwrap() error { return w.Err }

// Window is the period a check reads: calls and statement records whose
// time (recon.TimestampLayout, IST) lies in [From, To]. Calls of the
// operations named in Skip (read-only ones: no transactions of the pool)
// are left out of the calls the check counts and matches.
type Window struct {
	From, To string
	Skip     []string
}

// Record is a statement record as the check reads it.
type Record struct {
	ID                                 int64
	Account, SvcOrderID, ClientOrderID string
	TxnDateTime, TxnMode, Amount       string // Amount: txnChargedValue
	ReversalSvcOrderID, ProductCode    string
	Status                             string // the record's status (SUCCESS)
}

// Lookup is a successful look-up call (the transaction-status operation)
// made at or after a pending call of the same externalRef.
type Lookup struct {
	PendingID int64  // the pending call
	Response  []byte // the look-up's redacted response envelope
}

// RefCall is one of the window's calls of an externalRef, as
// Finder.RefCalls reads it.
type RefCall struct {
	ID                          int64
	TS, Outcome, Shape, OrderID string
}

// Finder answers a check's point look-ups: the counterpart of a call or
// record that is not near it in time, records and calls outside the
// window. A check makes few of them (one per finding, not per call).
// RepeatedRefs and RepeatedClients are read at once, from two goroutines.
type Finder interface {
	// PeriodRecord returns the window's statement record with this
	// svcOrderId (any mode; of several, the last in time order).
	PeriodRecord(ctx context.Context, svcOrderID string) (Record, bool, error)
	// PeriodRecordsByClient returns the window's statement records with
	// this clientOrderId (any mode), in time order.
	PeriodRecordsByClient(ctx context.Context, clientOrderID string) ([]Record, error)
	// LaterCalls returns the time of the latest of the window's calls at or
	// after from with orderid svcOrderID, or externalRef clientOrderID.
	LaterCalls(ctx context.Context, svcOrderID, clientOrderID, from string) (last string, found bool, err error)
	// OutsideCall looks for calls outside the window with orderid
	// svcOrderID, or externalRef clientOrderID: found says there is one,
	// debit that one of them debited the pool.
	OutsideCall(ctx context.Context, svcOrderID, clientOrderID string) (found, debit bool, err error)
	// DebitBySvc returns the debit statement record with this svcOrderId, of any date.
	DebitBySvc(ctx context.Context, svcOrderID string) (Record, bool, error)
	// DebitByClient returns the earliest debit statement record with this
	// clientOrderId, of any date.
	DebitByClient(ctx context.Context, clientOrderID string) (Record, bool, error)
	// Record returns the statement record with this svcOrderId (any mode, any date).
	Record(ctx context.Context, svcOrderID string) (Record, bool, error)
	// RefCalls returns the window's calls with this externalRef, in (ts, id) order.
	RefCalls(ctx context.Context, ref string) ([]RefCall, error)
	// RepeatedRefs yields, once each, the externalRefs of more than one
	// call, of any date (at least those of the window's calls).
	RepeatedRefs(ctx context.Context) iter.Seq2[string, error]
	// RepeatedClients yields, once each, the clientOrderIds of more than
	// one record, of any kind and date (at least those of the window's
	// statement records).
	RepeatedClients(ctx context.Context) iter.Seq2[string, error]
	// Close releases the look-ups.
	Close() error
}

// RunWriter stores a run's results as they are found, in one transaction:
// a run that stops half-way leaves nothing behind. Its methods are for one
// goroutine; after an error they do nothing and Err reports it.
type RunWriter interface {
	Break(Break)
	Match(Match)
	Difference(Difference)
	Reversal(Reversal)
	Unsettled(Unsettled)
	Fee(Fee)
	// RewriteMatches offers each matching row stored so far of refs (the
	// rows of the calls whose externalRef is one of refs, and the rows
	// without a call whose externalRef is) to rewrite, and stores the row
	// it returns in place of the old one when it returns true.
	RewriteMatches(refs []string, rewrite func(Match) (Match, bool)) error
	// Err is the first error of the writer.
	Err() error
	// Commit stores the run's summary, replaces the results of earlier
	// runs of the same period and commits; finished stamps the run's end.
	Commit(summary []byte, finished func() time.Time) error
	// Abort rolls the run back.
	Abort()
	// ID is the run's id.
	ID() int64
}
