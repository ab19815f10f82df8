package ledger

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The reconciliation's results, declared once: what a check finds is
// stored as a run's rows (the store maps each type to its recon_* table)
// and read back as the same types for the exports.

// Run is one reconciliation run: its period and as-of date (YYYY-MM-DD),
// when it started and finished, and its summary.
type Run struct {
	ID             int64 // 0 until the run is stored
	From, To, AsOf string
	Started        time.Time
	Finished       time.Time     // zero while it runs, or when not recorded
	Summary        recon.Summary // as stored with the run (read back)
}

// The states of a run that did not finish (recon_runs.state; a finished
// run is "ok").
const (
	RunFailed      = "failed"      // an error: a bad period, the database
	RunInterrupted = "interrupted" // its context was cancelled: SIGTERM, Ctrl-C
)

// Break is one break of the pool chain or arithmetic (recon_breaks):
// an arithmetic break (Expected opening − amount, Actual closing), or a
// link of the chain that does not hold (Expected the previous closing,
// Actual this opening), a gap or an explained gap; Delta is Expected −
// Actual.
type Break struct {
	PoolAccount string
	Kind        string // recon.BreakArithmetic, BreakGap or BreakExplainedGap
	CallID      int64  // the call whose pool object or opening breaks; 0 for none
	PrevCallID  int64  // gaps only: the previous call of the chain; 0 for none
	TS          string
	ExternalRef string
	Expected    decimal.Decimal
	Actual      decimal.Decimal
	Delta       decimal.Decimal
	ExplainedBy []string // explained gaps: the svcOrderIds of the records that explain it
	Note        string
	// Operation and OrderID are the call's, read back with the break (a
	// check leaves them empty: the calls table holds them).
	Operation, OrderID string
}

// Match is one matching result (recon.Outcomes) of a call, of a statement
// record, or of both. Amounts are exact decimal text (recon.Money);
// CallID is 0 for a record's row with no call.
type Match struct {
	Outcome         string
	CallID          int64
	SvcOrderID      string
	ExternalRef     string
	Operation       string
	TS              string
	CallAmount      string
	StatementAmount string
	Delta           string // call − statement; "" when equal or not both known
	Note            string
	SuggestedPair   string // the suggested counterpart and why ("" = none); never a match
	// Group is the id of the group the row is a part of ("" = none): a
	// call and the records it was posted as, or the calls one record
	// settled, matched as one ("G-" and the externalRef, or the record's
	// svcOrderId).
	Group string
	// OrderID and StatusCode are the call's, read back with the row (a
	// check leaves them empty: the calls table holds them).
	OrderID, StatusCode string
	// CallsOwn says that TS and ExternalRef are the call's own, as the
	// calls table holds them (the store need not keep them again).
	CallsOwn bool
}

// Difference is one field on which a call and the statement record it is
// linked to by key disagree (recon_differences): Field is one of
// recon.DiffFields, CallValue and StatementValue the two sides' values
// (for the product: the operation's productCode and the record's),
// Difference the amount's call − statement or the time's record − call.
type Difference struct {
	CallID                 int64
	SvcOrderID             string
	ExternalRef, Operation string
	TS                     string // the call's time
	Field                  string
	CallValue              string
	StatementValue         string
	Difference             string
	Note                   string
}

// Reversal is a reversed statement record of the period and its reversal
// record, where that was synced.
type Reversal struct {
	SvcOrderID, ReversalSvcOrderID, TxnDateTime, Amount string
	Found                                               bool // the reversal record was synced
	ReversalTxnDateTime, ReversalAmount, Note           string
}

// Unsettled is a collect order without settlement and its age in days
// against the run's as-of date.
type Unsettled struct {
	SvcOrderID, ClientOrderID, TxnDateTime, Amount string
	AgeDays                                        int
	AgeBucket                                      string // recon.BucketOf(AgeDays)
}
