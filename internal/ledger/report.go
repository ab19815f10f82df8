package ledger

import (
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"
)

// Matching outcomes (recon_matches.outcome), one word each.
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

// Aging buckets of unsettled orders (days against the as-of date).
var Buckets = []string{"0-1", "2-3", "4-7", "8-30", ">30"}

// Bucket returns the aging bucket of an age in days.
func Bucket(days int) string {
	switch {
	case days <= 1:
		return "0-1"
	case days <= 3:
		return "2-3"
	case days <= 7:
		return "4-7"
	case days <= 30:
		return "8-30"
	}
	return ">30"
}

// Summary is the JSON summary of a run (recon_runs.summary). Amounts are
// exact decimal strings; every outcome, break kind and bucket is present.
type Summary struct {
	From           string              `json:"from"`
	To             string              `json:"to"`
	AsOf           string              `json:"asOf"`
	Pools          []PoolSummary       `json:"pools"`
	Calls          int                 `json:"calls"`
	CallsWithDebit int                 `json:"callsWithDebit"`
	CallsFailed    int                 `json:"callsFailed"`
	CallsPending   int                 `json:"callsPending"`
	Debited        string              `json:"debited"`
	Credited       string              `json:"credited"`
	Outcomes       map[string]CountSum `json:"outcomes"`
	Breaks         map[string]BreakSum `json:"breaks"`
	Reversals      ReversalSum         `json:"reversals"`
	Unsettled      map[string]CountSum `json:"unsettled"`
	Pending        CountSum            `json:"pending"`
}

// PoolSummary is one pool account's chain over the period.
type PoolSummary struct {
	Account string `json:"account"`
	Opening string `json:"opening"` // the first chained call's opening
	Closing string `json:"closing"` // the last chained call's closing
	Calls   int    `json:"calls"`
	Debited string `json:"debited"`
}

// CountSum is a count and an exact amount.
type CountSum struct {
	Count  int    `json:"count"`
	Amount string `json:"amount"`
}

// BreakSum is a count of breaks and their total delta.
type BreakSum struct {
	Count int    `json:"count"`
	Delta string `json:"delta"`
}

// ReversalSum counts reversed records; Unlinked have no synced reversal record.
type ReversalSum struct {
	Count    int    `json:"count"`
	Amount   string `json:"amount"`
	Unlinked int    `json:"unlinked"`
}

// Break is one break of the pool chain or arithmetic (recon_breaks).
type Break struct {
	PoolAccount string
	Kind        string
	CallID      int64
	PrevCallID  int64 // gaps only; 0 for none
	TS          string
	ExternalRef string
	Expected    decimal.Decimal
	Actual      decimal.Decimal
	Delta       decimal.Decimal
	ExplainedBy []string
	Note        string
}

// Match is one matching result other than matched and reversed
// (recon_matches holds them all).
type Match struct {
	Outcome         string
	CallID          int64 // 0 for statementOnly
	SvcOrderID      string
	ExternalRef     string
	Operation       string
	TS              string
	CallAmount      string
	StatementAmount string
	Delta           string
	Note            string
}

// Report is the result of Check.
type Report struct {
	RunID      int64
	Summary    Summary
	Breaks     []Break // every arithmetic, gap and explainedGap break
	Exceptions []Match // every match row that is not matched or reversed
}

// HasFindings reports whether the run found anything finance must look at:
// an arithmetic break, an unexplained gap, an amount mismatch, a duplicate
// debit, a statement-only record or a call-only debit.
func (r *Report) HasFindings() bool {
	s := r.Summary
	return s.Breaks[BreakArithmetic].Count > 0 || s.Breaks[BreakGap].Count > 0 ||
		s.Outcomes[AmountMismatch].Count > 0 || s.Outcomes[DuplicateDebit].Count > 0 ||
		s.Outcomes[StatementOnly].Count > 0 || s.Outcomes[CallOnly].Count > 0
}

// WriteText writes the summary table (and the first breaks and matching
// exceptions).
func (r *Report) WriteText(w io.Writer) error {
	s := r.Summary
	var b strings.Builder
	row := func(label string, count any, amount string) {
		c := ""
		if count != nil {
			c = fmt.Sprint(count)
		}
		fmt.Fprintf(&b, "%-28s %10s %18s\n", label, c, amount)
	}
	fmt.Fprintf(&b, "Reconciliation %s to %s, as of %s (run %d)\n", s.From, s.To, s.AsOf, r.RunID)
	for _, pl := range s.Pools {
		acct := pl.Account
		if acct == "" {
			acct = "(unnamed)"
		}
		fmt.Fprintf(&b, "pool %s: opening %s, closing %s, %d calls debited %s\n", acct, pl.Opening, pl.Closing, pl.Calls, pl.Debited)
	}
	b.WriteString("\n")
	row("", "count", "amount")
	row("calls", s.Calls, "")
	row("  with a pool debit", s.CallsWithDebit, "")
	row("  failed", s.CallsFailed, "")
	row("  pending", s.CallsPending, "")
	row("total debited", nil, s.Debited)
	row("credited (statement CR)", nil, s.Credited)
	b.WriteString("\nmatching\n")
	for _, o := range Outcomes {
		row("  "+o, s.Outcomes[o].Count, s.Outcomes[o].Amount)
	}
	b.WriteString("\nbreaks                            count        total delta\n")
	for _, k := range BreakKinds {
		row("  "+k, s.Breaks[k].Count, s.Breaks[k].Delta)
	}
	b.WriteString("\n")
	row("reversals", s.Reversals.Count, s.Reversals.Amount)
	row("  reversal record not found", s.Reversals.Unlinked, "")
	b.WriteString("\nunsettled orders (age, days)\n")
	for _, k := range Buckets {
		row("  "+k, s.Unsettled[k].Count, s.Unsettled[k].Amount)
	}
	b.WriteString("\n")
	row("pending", s.Pending.Count, s.Pending.Amount)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(r.Breaks) > 0 || len(r.Exceptions) > 0 {
		fmt.Fprintln(w)
	}
	const show = 20
	n := 0
	for _, b := range r.Breaks {
		if b.Kind == BreakExplainedGap {
			continue
		}
		if n++; n > show {
			continue
		}
		fmt.Fprintf(w, "%s %s call %d %s: expected %s, actual %s, delta %s\n", b.Kind, b.TS, b.CallID,
			b.ExternalRef, Money(b.Expected), Money(b.Actual), Money(b.Delta))
	}
	if n > show {
		fmt.Fprintf(w, "… and %d more breaks\n", n-show)
	}
	n = 0
	for _, m := range r.Exceptions {
		if m.Outcome == Pending {
			continue
		}
		if n++; n > show {
			continue
		}
		fmt.Fprintf(w, "%s %s externalRef %s svcOrderId %s call %s statement %s\n", m.Outcome, m.TS,
			dash(m.ExternalRef), dash(m.SvcOrderID), dash(m.CallAmount), dash(m.StatementAmount))
	}
	if n > show {
		fmt.Fprintf(w, "… and %d more matching exceptions\n", n-show)
	}
	_, err := fmt.Fprint(w)
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
