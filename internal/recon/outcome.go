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
)

// Outcomes lists the matching outcomes in report order.
var Outcomes = []string{Matched, AmountMismatch, CallOnly, StatementOnly, DuplicateDebit, Pending, Reversed}

// Break kinds (recon_breaks.kind).
const (
	BreakArithmetic   = "arithmetic"
	BreakGap          = "gap"
	BreakExplainedGap = "explainedGap"
)

// BreakKinds lists the break kinds in report order.
var BreakKinds = []string{BreakArithmetic, BreakGap, BreakExplainedGap}
