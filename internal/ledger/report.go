package ledger

import (
	"fmt"
	"io"
	"strings"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
)

// Report is the result of Check. Its lists are bounded, so that a month
// of findings stays small: Breaks holds the first 10,000 arithmetic and
// gap breaks and the first 1,000 explained gaps, Exceptions the first
// 10,000 exceptions, each by time; the run's rows in the database hold
// them all, and the Summary counts them all.
type Report struct {
	RunID      int64
	Summary    recon.Summary
	Breaks     []Break // arithmetic, gap and explainedGap breaks (bounded)
	Exceptions []Match // match rows that are not matched or reversed (bounded)
	Records    int     // the period's statement records (DR and CR)
}

// Empty reports whether the period had nothing to reconcile: no call and
// no statement record (a misconfigured job: nothing imported or synced, or
// the wrong database).
func (r *Report) Empty() bool { return r.Summary.Calls == 0 && r.Records == 0 }

// HasFindings reports whether the run found anything finance must look at:
// an arithmetic break, an unexplained gap, an amount mismatch, a duplicate
// debit, a statement-only record or a call-only debit.
func (r *Report) HasFindings() bool {
	s := r.Summary
	return s.Breaks[recon.BreakArithmetic].Count > 0 || s.Breaks[recon.BreakGap].Count > 0 ||
		s.Outcomes[recon.AmountMismatch].Count > 0 || s.Outcomes[recon.DuplicateDebit].Count > 0 ||
		s.Outcomes[recon.StatementOnly].Count > 0 || s.Outcomes[recon.CallOnly].Count > 0
}

// WriteText writes the summary table, then the first breaks, matching
// exceptions and suggested pairs.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	r.writeTable(&b)
	if len(r.Breaks) > 0 || len(r.Exceptions) > 0 {
		b.WriteString("\n")
	}
	r.writeFindings(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes the summary table: the period, each pool, the calls,
// the matching outcomes, the breaks, the reversals, the unsettled orders
// and the pending calls.
func (r *Report) writeTable(b *strings.Builder) {
	s := r.Summary
	row := func(label string, count any, amount string) {
		c := ""
		if count != nil {
			c = fmt.Sprint(count)
		}
		fmt.Fprintf(b, "%-28s %10s %18s\n", label, c, amount)
	}
	fmt.Fprintf(b, "Reconciliation %s to %s, as of %s (run %d)\n", s.From, s.To, s.AsOf, r.RunID)
	for _, pl := range s.Pools {
		acct := pl.Account
		if acct == "" {
			acct = "(unnamed)"
		}
		fmt.Fprintf(b, "pool %s: opening %s, closing %s, %d calls debited %s\n", acct, pl.Opening, pl.Closing, pl.Calls, pl.Debited)
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
	for _, o := range recon.Outcomes {
		row("  "+o, s.Outcomes[o].Count, s.Outcomes[o].Amount)
	}
	row("  suggested pairs (no match)", s.SuggestedPairs, "")
	if s.PairingSkipped != "" {
		fmt.Fprintf(b, "    none suggested: %s\n", s.PairingSkipped)
	}
	b.WriteString("\nbreaks                            count        total delta\n")
	for _, k := range recon.BreakKinds {
		row("  "+k, s.Breaks[k].Count, s.Breaks[k].Delta)
	}
	b.WriteString("\n")
	row("reversals", s.Reversals.Count, s.Reversals.Amount)
	row("  reversal record not found", s.Reversals.Unlinked, "")
	b.WriteString("\nunsettled orders (age, days)\n")
	for _, k := range recon.BucketNames() {
		row("  "+k, s.Unsettled[k].Count, s.Unsettled[k].Amount)
	}
	b.WriteString("\n")
	row("pending", s.Pending.Count, s.Pending.Amount)
}

// showFindings is how many of each kind of finding WriteText shows.
const showFindings = 20

// writeFindings writes the first unexplained breaks, matching exceptions
// (but pending calls) and suggested pairs, each followed by how many more
// there are.
func (r *Report) writeFindings(b *strings.Builder) {
	more := func(n int, what string) {
		if n > showFindings {
			fmt.Fprintf(b, "… and %d more %s\n", n-showFindings, what)
		}
	}
	n := 0
	for _, k := range r.Breaks {
		if k.Kind == recon.BreakExplainedGap {
			continue
		}
		if n++; n <= showFindings {
			fmt.Fprintf(b, "%s %s call %d %s: expected %s, actual %s, delta %s\n", k.Kind, k.TS, k.CallID,
				redact.Text(k.ExternalRef), recon.Money(k.Expected), recon.Money(k.Actual), recon.Money(k.Delta))
		}
	}
	more(n, "breaks")
	n = 0
	for _, m := range r.Exceptions {
		if m.Outcome == recon.Pending {
			continue
		}
		if n++; n <= showFindings {
			fmt.Fprintf(b, "%s %s externalRef %s svcOrderId %s call %s statement %s\n", m.Outcome, m.TS,
				dash(m.ExternalRef), dash(m.SvcOrderID), dash(m.CallAmount), dash(m.StatementAmount))
		}
	}
	more(n, "matching exceptions")
	n = 0
	for _, m := range r.Exceptions {
		if m.Outcome != recon.CallOnly || m.SuggestedPair == "" {
			continue
		}
		if n++; n <= showFindings {
			fmt.Fprintf(b, "suggested pair %s call %d ↔ %s\n", m.TS, m.CallID, m.SuggestedPair)
		}
	}
	more(n, "suggested pairs")
}

// dash is a value as the report prints it: "-" for none; the service's
// text made safe for a terminal (redact.Text).
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return redact.Text(s)
}
