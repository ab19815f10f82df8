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
	Fees       []Fee   // fee findings against the rate card (bounded; none without one)
	Records    int     // the period's statement records (DR and CR)
}

// Empty reports whether the period had nothing to reconcile: no call and
// no statement record (a misconfigured job: nothing imported or synced, or
// the wrong database).
func (r *Report) Empty() bool { return r.Summary.Calls == 0 && r.Records == 0 }

// HasFindings reports whether the run found anything finance must look at:
// an arithmetic break, an unexplained gap, an amount mismatch, a duplicate
// debit, a statement-only record or a call-only debit; with a rate card,
// a debit overcharged or undercharged, or a product unpriced.
func (r *Report) HasFindings() bool {
	s := r.Summary
	return s.Breaks[recon.BreakArithmetic].Count > 0 || s.Breaks[recon.BreakGap].Count > 0 ||
		s.Outcomes[recon.AmountMismatch].Count > 0 || s.Outcomes[recon.DuplicateDebit].Count > 0 ||
		s.Outcomes[recon.StatementOnly].Count > 0 || s.Outcomes[recon.CallOnly].Count > 0 || hasFeeFindings(&s)
}

// hasFeeFindings reports whether the fees stage found anything.
func hasFeeFindings(s *recon.Summary) bool {
	if s.Fees == nil {
		return false
	}
	for _, k := range recon.FeeKinds {
		if s.Fees.Kinds[k].Count > 0 {
			return true
		}
	}
	return false
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
	row("  groups (matched as one)", s.Groups.Count, s.Groups.Amount)
	row("    their rows", s.Groups.Rows, "")
	row("  suggested pairs (no match)", s.SuggestedPairs, "")
	if s.PairingSkipped != "" {
		fmt.Fprintf(b, "    none suggested: %s\n", s.PairingSkipped)
	}
	b.WriteString("\nfield differences (matched by key)\n")
	for _, f := range recon.DiffFields {
		row("  "+f, s.Differences[f], "")
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
	writeFees(b, s.Fees, row)
}

// writeFees writes the fees' lines of the summary table: against which
// rate card, the debits priced, and the count and total of each kind.
func writeFees(b *strings.Builder, f *recon.FeeSummary, row func(string, any, string)) {
	if f == nil {
		b.WriteString("\nfees: not checked (no rate card: --rates)\n")
		return
	}
	fmt.Fprintf(b, "\nfees against %s (sha256 %.12s…)\n", redact.Text(f.RateCard), f.SHA256)
	row("  debits priced", f.Priced, "")
	for _, k := range recon.FeeKinds {
		label := "  " + k
		if k == recon.Unpriced {
			label = fmt.Sprintf("  unpriced (%d products)", f.UnpricedProducts)
		}
		row(label, f.Kinds[k].Count, f.Kinds[k].Amount)
	}
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
	for i, f := range r.Fees {
		if i == showFindings {
			break
		}
		if f.Kind == recon.Unpriced {
			fmt.Fprintf(b, "unpriced %s: %d debits, %s (%s)\n", redact.Text(f.Product()), f.Debits, f.Charged, redact.Text(f.Rule))
			continue
		}
		fmt.Fprintf(b, "%s %s svcOrderId %s %s %s: expected %s, charged %s, difference %s (%s)\n", f.Kind, f.TxnDateTime,
			dash(f.SvcOrderID), redact.Text(f.Product()), f.Field, f.Expected, f.Charged, f.Difference, redact.Text(f.Rule))
	}
	if f := r.Summary.Fees; f != nil {
		more(f.Kinds[recon.Overcharged].Count+f.Kinds[recon.Undercharged].Count+f.UnpricedProducts, "fee findings")
	}
}

// dash is a value as the report prints it: "-" for none; the service's
// text made safe for a terminal (redact.Text).
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return redact.Text(s)
}
