package export

import (
	"context"
	"fmt"
	"strconv"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// This file is what the workbook and the CSV files show of the fees stage
// (issue 27): the Fees sheet (fees.csv), the Summary's block of fees and
// summary.csv's section fees, the Legend's fee kinds, and the verdict's
// part of them. The Fees sheet and fees.csv are written for every run, so
// that a run's files always have the same shape and an earlier run's
// fees.csv never stays behind: a run checked without a rate card has no
// rows there, and the Summary says the fees were not checked.

// feeCols are the columns of the Fees sheet: the finding, the debit (its
// time and IST day, svcOrderId, product), the amount field compared, the
// price's amount, the record's, their difference, the rule applied, the
// debits (unpriced: how many) and whether it was reversed.
var feeCols = []Column{
	{"kind", Text, false},
	{"txnDateTime", DateTime, false},
	{"date", Date, false},
	{"svcOrderId", Text, false},
	{"productCode", Text, false},
	{"subProductCode", Text, false},
	{"field", Text, false},
	{"expected", Amount, false},
	{"charged", Amount, false},
	{"difference", Delta, false},
	{"rule", Text, false},
	{"debits", Int, false},
	{"reversed", Bool, false},
}

// feesSheet is the Fees sheet: the run's fee findings, the debits by
// time, then each unpriced product once.
func feesSheet(ctx context.Context, db Reports, r *ledger.Run) sheet {
	s := newSheet("Fees", feeCols, rowsOf(db.ReportFees(ctx, r.ID), len(feeCols), func(f *ledger.Fee, c []string) Mark {
		c[0], c[1], c[2], c[3], c[4], c[5] = f.Kind, f.TxnDateTime, "", f.SvcOrderID, f.ProductCode, f.SubProductCode
		if len(f.TxnDateTime) >= len(recon.DateLayout) {
			c[2] = f.TxnDateTime[:len(recon.DateLayout)]
		}
		c[6], c[7], c[8], c[9], c[10] = f.Field, f.Expected, f.Charged, f.Difference, f.Rule
		c[11], c[12] = strconv.Itoa(f.Debits), boolText(f.Reversed)
		if f.Kind == recon.Overcharged {
			return MarkBreak
		}
		return MarkLook
	}))
	if fs := r.Summary.Fees; fs == nil {
		s.Note = "No rate card was given: the fees were not checked (reconcile check --rates FILE)."
	} else {
		s.Note = "Against the rate card " + fs.RateCard + " (sha256 " + short(fs.SHA256) + "); difference = charged − expected."
	}
	return s
}

// short is the first 12 hex digits of a digest.
func short(d string) string {
	if len(d) > 12 {
		return d[:12] + "…"
	}
	return d
}

// feeFinding reads the identity of a row of the Fees sheet (feeCols).
func feeFinding(c []string) *evidence.Finding {
	return &evidence.Finding{Kind: c[0], TS: c[1], SvcOrderID: c[3], Product: c[4] + slashed(c[5]), Field: c[6]}
}

// slashed is "/" and sub, or "" without a sub-product.
func slashed(sub string) string {
	if sub == "" {
		return ""
	}
	return "/" + sub
}

// feeLabels are the Summary's words for the fee kinds.
var feeLabels = map[string]string{
	recon.Overcharged:  "Overcharged (too much)",
	recon.Undercharged: "Undercharged (too little)",
	recon.Unpriced:     "Unpriced: debits of products the card has no price for",
}

// summaryFees writes the Summary's block of fees: against which rate
// card, the debits priced, and the count and total of each kind; or that
// they were not checked.
func summaryFees(g *grid, f *recon.FeeSummary) {
	g.skip()
	if f == nil {
		g.put(roleSection, MarkNone, "Fees against a rate card", "Count", "Amount")
		g.put(roleCell, MarkNone, "Not checked: no rate card given (--rates)")
		return
	}
	g.put(roleSection, MarkNone, "Fees against the rate card "+f.RateCard, "Count", "Amount")
	g.put(roleCell, MarkNone, "Rate card sha256 "+short(f.SHA256))
	g.put(roleCell, MarkNone, "Debits priced", f.Priced)
	for _, k := range recon.FeeKinds {
		c := f.Kinds[k]
		m := markIf(c.Count > 0, MarkLook)
		if k == recon.Overcharged {
			m = markIf(c.Count > 0, MarkBreak)
		}
		label := feeLabels[k]
		if k == recon.Unpriced {
			label += " (" + plural(f.UnpricedProducts, "product", "products") + ")"
		}
		g.put(roleCell, m, label, c.Count, amount(c.Amount))
	}
}

// feesPairs are summary.csv's section fees: checked (true or false); with
// a rate card, rateCard (its path), sha256, priced (debits), and
// <kind>.count and <kind>.amount of each kind, unpricedProducts.
func feesPairs(f *recon.FeeSummary) []pair {
	const sec = "fees"
	if f == nil {
		return []pair{{sec, "checked", "false"}}
	}
	n := strconv.Itoa
	p := []pair{{sec, "checked", "true"}, {sec, "rateCard", f.RateCard}, {sec, "sha256", f.SHA256}, {sec, "priced", n(f.Priced)}}
	for _, k := range recon.FeeKinds {
		p = append(p, pair{sec, k + ".count", n(f.Kinds[k].Count)}, pair{sec, k + ".amount", orZero(f.Kinds[k].Amount)})
	}
	return append(p, pair{sec, "unpricedProducts", n(f.UnpricedProducts)})
}

// feeVerdict is the verdict's part of the fees: the debits overcharged or
// undercharged, and the products unpriced, with their totals.
func feeVerdict(f *recon.FeeSummary) []string {
	if f == nil {
		return nil
	}
	var parts []string
	if c := f.Kinds[recon.Overcharged]; c.Count > 0 {
		parts = append(parts, fmt.Sprintf("%s overcharged (%s too much)", plural(c.Count, "fee", "fees"), orZero(c.Amount)))
	}
	if c := f.Kinds[recon.Undercharged]; c.Count > 0 {
		parts = append(parts, fmt.Sprintf("%s undercharged (%s too little)", plural(c.Count, "fee", "fees"), orZero(c.Amount)))
	}
	if f.UnpricedProducts > 0 {
		parts = append(parts, plural(f.UnpricedProducts, "product", "products")+" without a price")
	}
	return parts
}

// feeLegend are the Legend's fee kinds and columns.
var feeLegend = []legendEntry{
	{recon.Overcharged, legendFee,
		"A debit cost more than the rate card's price on its day, beyond the card's tolerance (difference = charged − expected); or, field txnCashback, its cashback was short of the card's.",
		"Claim the difference back from the service, quoting the svcOrderId and the rule; if the card is out of date, update it."},
	{recon.Undercharged, legendFee,
		"A debit cost less than the rate card's price on its day, beyond the tolerance (or its cashback was above the card's).",
		"Check the card against the contract; the service may claim the difference later."},
	{recon.Unpriced, legendFee,
		"Debits of a product the rate card has no price for on their days, listed once per product with how many and their total: their fees were not checked.",
		"Add the product's price to the rate card (from the contract) and check again."},
	{"rule", legendColumn,
		"Fees: the price applied (product key, from day, charge or percentage with its bounds) and how it made the expected amount.",
		"Compare it with the contract when a row looks wrong."},
}
