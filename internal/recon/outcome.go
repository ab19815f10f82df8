package recon

// CallOutcome is what a logged call came to (calls.outcome).
type CallOutcome = string

// Call outcomes.
const (
	CallSuccess CallOutcome = "success"
	CallFailed  CallOutcome = "failed"
	CallPending CallOutcome = "pending" // TUP, a time-out or no answer: look it up, never re-send blindly
)

// Matching outcomes (recon_matches.outcome; recon_matched rows are all
// matched), one word each.
const (
	Matched        = "matched"
	AmountMismatch = "amountMismatch"
	CallOnly       = "callOnly"
	StatementOnly  = "statementOnly"
	DuplicateDebit = "duplicateDebit"
	Pending        = "pending"
	Reversed       = "reversed"
	// Timing is a break whose other side is across the period's edge,
	// expected in the next day's statement (or the day before's calls).
	Timing = "timing"
)

// Outcomes lists the matching outcomes in report order.
var Outcomes = []string{Matched, AmountMismatch, CallOnly, StatementOnly, DuplicateDebit, Pending, Reversed, Timing}

// Break kinds (recon_breaks.kind).
const (
	BreakArithmetic   = "arithmetic"
	BreakGap          = "gap"
	BreakExplainedGap = "explainedGap"
)

// BreakKinds lists the break kinds in report order.
var BreakKinds = []string{BreakArithmetic, BreakGap, BreakExplainedGap}

// The fields on which a call and the record it is linked to by key may
// differ (recon_differences.field).
const (
	DiffAmount  = "amount"  // the call's pool amount and txnChargedValue
	DiffProduct = "product" // the operation's productCode and the record's
	DiffStatus  = "status"  // the call succeeded (TXN); the record's status is not SUCCESS
	DiffTime    = "time"    // further apart than the pair window
)

// DiffFields lists the fields in report order.
var DiffFields = []string{DiffAmount, DiffProduct, DiffStatus, DiffTime}
