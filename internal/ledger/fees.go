package ledger

import (
	"context"
	"fmt"
	"iter"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// The fees stage (design: fees; issue 27): with a rate card, each debit
// record of the period's statement is priced by its product on its IST day
// (rates.Card.Lookup) and its txnChargedValue compared with the price
// (difference = charged − expected): beyond the card's tolerance it is
// overcharged or undercharged. A price that names the surcharge, cashback
// or TDS rate has the record's txnSurcharge, txnCashback and txnTds
// compared too, each a finding of its own (a cashback short of the card's
// is overcharged). Reversed debits are priced like any other; credits are
// not priced. A product with no price on a debit's day is listed once, as
// unpriced, with how many debits and their total: never passed silently.

// DebitReader is what the fees stage reads (a part of CheckStore).
type DebitReader interface {
	// CheckDebits yields the window's statement debit (DR) records, in
	// time order, with the amounts the rate card prices.
	CheckDebits(ctx context.Context, w Window) iter.Seq2[Debit, error]
}

// Debit is a debit record of the period's statement as the fees stage
// reads it: its product, its time (IST) and its amounts as stored ("" is
// none: zero).
type Debit struct {
	SvcOrderID, TxnDateTime     string
	ProductCode, SubProductCode string
	Charged, OrderValue         string // txnChargedValue, orderValue
	Surcharge, Cashback, TDS    string // txnSurcharge, txnCashback, txnTds
	Reversed                    bool   // it carries a reversalSvcOrderId
}

// Fee is one finding of the fees stage (recon_fees): a debit's amount
// other than its price, or a product without a price. Amounts are exact
// decimal text (recon.Money).
type Fee struct {
	Kind                        string // recon.Overcharged, Undercharged or Unpriced
	SvcOrderID                  string // the debit's; "" for unpriced
	TxnDateTime                 string // the debit's (unpriced: the first such debit's)
	ProductCode, SubProductCode string
	Field                       string // the amount compared (rates.FieldCharged …); "" for unpriced
	Expected                    string // what the price expects ("" for unpriced)
	Charged                     string // the record's amount (unpriced: the debits' total txnChargedValue)
	Difference                  string // Charged − Expected ("" for unpriced)
	Rule                        string // the price applied and how, or why there is none
	Debits                      int    // unpriced: how many debits; else 1
	Reversed                    bool   // the debit was reversed (priced all the same)
}

// Product is the fee's product key, as the rate card names it (CODE/SUB).
func (f *Fee) Product() string { return rates.ProductKey(f.ProductCode, f.SubProductCode) }

// feeStage prices the debits.
type feeStage struct {
	card     *rates.Card
	emit     func(f Fee, amount decimal.Decimal) // the tally's
	charges  map[*rates.Price]string             // a fixed charge's text (Money), for the quick equal case
	unpriced map[string]*unpricedProduct         // by product key
	order    []string                            // unpriced products in order of first debit
	priced   int
}

// unpricedProduct gathers the debits of a product without a price.
type unpricedProduct struct {
	fee       Fee
	total     decimal.Decimal
	last, key string
}

func newFeeStage(card *rates.Card, emit func(Fee, decimal.Decimal)) *feeStage {
	return &feeStage{card: card, emit: emit, charges: map[*rates.Price]string{}, unpriced: map[string]*unpricedProduct{}}
}

// debit prices one debit record. The error is for an amount that is no
// decimal.
func (s *feeStage) debit(d *Debit) error {
	day := d.TxnDateTime
	if len(day) >= len(recon.DateLayout) {
		day = day[:len(recon.DateLayout)]
	}
	p, ok := s.card.Lookup(d.ProductCode, d.SubProductCode, day)
	if !ok {
		return s.notPriced(d, day)
	}
	s.priced++
	if s.plainEqual(p, d.Charged) {
		return nil
	}
	am, err := readAmounts(d, p)
	if err != nil {
		return fmt.Errorf("fees: record %s: %w", d.SvcOrderID, err)
	}
	s.compare(d, rates.FieldCharged, p.Expected(am.orderValue), am.charged, p.Explain(am.orderValue), false)
	if p.Surcharge != nil {
		s.compare(d, rates.FieldSurcharge, *p.Surcharge, am.surcharge, p.ExplainField(rates.FieldSurcharge, am.cashback), false)
	}
	if p.Cashback != nil {
		s.compare(d, rates.FieldCashback, *p.Cashback, am.cashback, p.ExplainField(rates.FieldCashback, am.cashback), true)
	}
	if p.TDS != nil {
		s.compare(d, rates.FieldTDS, p.ExpectedTDS(am.cashback), am.tds, p.ExplainField(rates.FieldTDS, am.cashback), false)
	}
	return nil
}

// plainEqual is the common case, decided without decimals: a fixed charge
// alone, and the record's txnChargedValue is that charge written plainly.
func (s *feeStage) plainEqual(p *rates.Price, charged string) bool {
	if p.Charge == nil || p.OnTopOf != "" || p.Surcharge != nil || p.Cashback != nil || p.TDS != nil {
		return false
	}
	want, ok := s.charges[p]
	if !ok {
		want = recon.Money(*p.Charge)
		s.charges[p] = want
	}
	m, ok := recon.PlainMoney(charged)
	return ok && m == want
}

// amounts are a debit's amounts the price needs, read.
type amounts struct {
	charged, orderValue, surcharge, cashback, tds decimal.Decimal
}

// readAmounts reads the amounts of d that price p compares or needs.
func readAmounts(d *Debit, p *rates.Price) (amounts, error) {
	var am amounts
	read := func(dst *decimal.Decimal, s, field string, need bool) error {
		if !need || s == "" {
			return nil
		}
		v, err := decimal.NewFromString(s)
		if err != nil {
			return fmt.Errorf("%s %q: not an amount", field, s)
		}
		*dst = v
		return nil
	}
	for _, f := range []struct {
		dst         *decimal.Decimal
		text, field string
		need        bool
	}{
		{&am.charged, d.Charged, rates.FieldCharged, true},
		{&am.orderValue, d.OrderValue, "orderValue", p.NeedsOrderValue()},
		{&am.surcharge, d.Surcharge, rates.FieldSurcharge, p.Surcharge != nil},
		{&am.cashback, d.Cashback, rates.FieldCashback, p.Cashback != nil},
		{&am.tds, d.TDS, rates.FieldTDS, p.TDS != nil},
	} {
		if err := read(f.dst, f.text, f.field, f.need); err != nil {
			return am, err
		}
	}
	return am, nil
}

// compare flags field of d when actual differs from expected beyond the
// tolerance: more is overcharged, less undercharged (for the cashback,
// money back, the other way round).
func (s *feeStage) compare(d *Debit, field string, expected, actual decimal.Decimal, rule string, cashback bool) {
	diff := actual.Sub(expected)
	if diff.Abs().LessThanOrEqual(s.card.Tolerance) {
		return
	}
	kind := recon.Overcharged
	if diff.IsNegative() != cashback {
		kind = recon.Undercharged
	}
	s.emit(Fee{Kind: kind, SvcOrderID: d.SvcOrderID, TxnDateTime: d.TxnDateTime, ProductCode: d.ProductCode,
		SubProductCode: d.SubProductCode, Field: field, Expected: recon.Money(expected), Charged: recon.Money(actual),
		Difference: recon.Money(diff), Rule: rule, Debits: 1, Reversed: d.Reversed}, diff.Abs())
}

// notPriced adds a debit of a product without a price on its day.
func (s *feeStage) notPriced(d *Debit, day string) error {
	charged, err := decimal.NewFromString(d.Charged)
	if err != nil && d.Charged != "" {
		return fmt.Errorf("fees: record %s: %s %q: not an amount", d.SvcOrderID, rates.FieldCharged, d.Charged)
	}
	key := rates.ProductKey(d.ProductCode, d.SubProductCode)
	u := s.unpriced[key]
	if u == nil {
		u = &unpricedProduct{key: key, fee: Fee{Kind: recon.Unpriced, TxnDateTime: d.TxnDateTime,
			ProductCode: d.ProductCode, SubProductCode: d.SubProductCode}}
		s.unpriced[key] = u
		s.order = append(s.order, key)
	}
	u.fee.Debits++
	u.total = u.total.Add(charged)
	u.last = day
	return nil
}

// end lists each product without a price once, in the order of its first
// debit: how many debits, their total, and their days.
func (s *feeStage) end() {
	for _, key := range s.order {
		u := s.unpriced[key]
		first := u.fee.TxnDateTime
		if len(first) >= len(recon.DateLayout) {
			first = first[:len(recon.DateLayout)]
		}
		days := first
		if u.last != first {
			days += " to " + u.last
		}
		u.fee.Charged = recon.Money(u.total)
		u.fee.Rule = fmt.Sprintf("no price for %s in the rate card on its %d debits' days (%s)", key, u.fee.Debits, days)
		s.emit(u.fee, u.total)
	}
}

// feeTally is the summary stage's count of the fee findings (nil: no rate
// card, the fees were not checked).
type feeTally struct {
	card            *rates.Card
	stage           *feeStage
	kinds           counts
	unpricedProduct int
	listed          []Fee // the first maxReportRows, for the report
}

// fee writes a fee finding and counts it; amount is what it counts for
// (the difference's absolute value, or an unpriced product's total).
func (t *tally) fee(f Fee, amount decimal.Decimal) {
	t.out.Fee(f)
	ft := t.fees
	ft.kinds.n[f.Kind] += f.Debits
	ft.kinds.sum[f.Kind] = ft.kinds.sum[f.Kind].Add(amount)
	if f.Kind == recon.Unpriced {
		ft.unpricedProduct++
	}
	if len(ft.listed) < maxReportRows {
		ft.listed = append(ft.listed, f)
	}
}

// fill puts the fee counts in s (nothing without a rate card).
func (ft *feeTally) fill(s *recon.Summary) {
	if ft == nil {
		return
	}
	fs := &recon.FeeSummary{RateCard: ft.card.Path, SHA256: ft.card.SHA256, UnpricedProducts: ft.unpricedProduct,
		Kinds: map[string]recon.CountSum{}}
	if ft.stage != nil {
		fs.Priced = ft.stage.priced
	}
	for _, k := range recon.FeeKinds {
		fs.Kinds[k] = ft.kinds.countSum(k)
	}
	s.Fees = fs
}

// fees returns the first fee findings (nil without a rate card).
func (ft *feeTally) fees() []Fee {
	if ft == nil {
		return nil
	}
	return ft.listed
}
