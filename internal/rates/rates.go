// Package rates is the rate card: the prices agreed with the service for
// each product (rates.yaml, parse.go), and what a debit of a product
// should have cost on its day (Lookup, Price.Expected). Package ledger's
// fees stage compares the statement's debits with it; bulkrun's spend cap
// reads the expected debit of an operation from it (Card.Debit).
//
// Money is exact (shopspring/decimal) throughout. A percentage of
// orderValue is rounded to the paisa, half up (0.005 becomes 0.01), and
// then bounded by the price's min and max. A price takes effect at the
// start of its from day in IST (00:00:00 IST), the days of the
// statement's txnDateTime.
package rates

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The statement record's amount fields the rate card prices.
const (
	FieldCharged   = "txnChargedValue"
	FieldSurcharge = "txnSurcharge"
	FieldCashback  = "txnCashback"
	FieldTDS       = "txnTds"
)

// OnTopOfOrderValue is the one value of a price's onTopOf: the debit is
// the order's value plus the price (a fund transfer, a gift card).
const OnTopOfOrderValue = "orderValue"

// Card is a parsed rate card.
type Card struct {
	Path   string // the file as given
	SHA256 string // hex SHA-256 of the file's bytes
	// Tolerance is how far a charge may be from its price without being
	// flagged (|charged − expected| ≤ Tolerance passes).
	Tolerance decimal.Decimal
	products  map[string]*product // by key: CODE or CODE/SUB
	ops       map[string]string   // operations: the product key each debits (bulkrun)
	keys      []string            // the products' keys, in the file's order
}

// product is one product key of the card and its prices, by from day.
type product struct {
	key    string
	prices []*Price // ascending From; only the first may have none
}

// Price is one price of a product, in effect from a day: a fixed Charge,
// or Percent of orderValue bounded by Min and Max; optionally on top of
// orderValue, and the surcharge, cashback and TDS rate the card expects.
type Price struct {
	Key  string // the product key it prices (CODE or CODE/SUB)
	From string // YYYY-MM-DD (IST); "" for always
	Line int    // its line in the file

	Charge  *decimal.Decimal // a fixed charge per debit; nil for a percentage
	Percent *decimal.Decimal // a share of orderValue, in percent
	Min     *decimal.Decimal // percentage only: the least fee
	Max     *decimal.Decimal // percentage only: the most fee
	OnTopOf string           // OnTopOfOrderValue, or "": the debit is the fee alone

	Surcharge *decimal.Decimal // the expected txnSurcharge; nil: not compared
	Cashback  *decimal.Decimal // the expected txnCashback; nil: not compared
	TDS       *decimal.Decimal // the expected txnTds as a percent of txnCashback; nil: not compared
}

// Products lists the card's product keys in the file's order.
func (c *Card) Products() []string { return append([]string(nil), c.keys...) }

// ProductKey is the key a debit of product code and sub-product sub is
// known by: "CODE/SUB", or "CODE" without a sub-product.
func ProductKey(code, sub string) string {
	if sub == "" {
		return code
	}
	return code + "/" + sub
}

// Lookup returns the price in effect on day (YYYY-MM-DD, IST) for a debit
// of product code and sub-product sub: the sub-product's entry
// (CODE/SUB) wins over the product's (CODE) wherever they are in the
// file, when it has a price in effect that day; else the product's. ok is
// false when neither has one: the debit is unpriced.
func (c *Card) Lookup(code, sub, day string) (p *Price, ok bool) {
	if sub != "" {
		if p := c.products[code+"/"+sub].on(day); p != nil {
			return p, true
		}
	}
	if p := c.products[code].on(day); p != nil {
		return p, true
	}
	return nil, false
}

// on is the price of p in effect on day (nil when none: p is nil, or its
// first price starts later).
func (p *product) on(day string) *Price {
	if p == nil {
		return nil
	}
	var in *Price
	for _, pr := range p.prices {
		if pr.From > day {
			break
		}
		in = pr
	}
	return in
}

// hundred turns a percentage into a share.
var hundred = decimal.NewFromInt(100)

// Fee is the price's fee for an order of orderValue: the charge, or the
// percentage of orderValue rounded to the paisa half up, then raised to
// Min and lowered to Max.
func (p *Price) Fee(orderValue decimal.Decimal) decimal.Decimal {
	if p.Charge != nil {
		return *p.Charge
	}
	fee := orderValue.Mul(*p.Percent).Div(hundred).Round(2)
	if p.Min != nil && fee.LessThan(*p.Min) {
		fee = *p.Min
	}
	if p.Max != nil && fee.GreaterThan(*p.Max) {
		fee = *p.Max
	}
	return fee
}

// NeedsOrderValue says whether the expected charge depends on orderValue.
func (p *Price) NeedsOrderValue() bool { return p.Charge == nil || p.OnTopOf != "" }

// Expected is the txnChargedValue the price expects of a debit whose
// orderValue is orderValue: the fee, plus orderValue when the price is on
// top of it.
func (p *Price) Expected(orderValue decimal.Decimal) decimal.Decimal {
	fee := p.Fee(orderValue)
	if p.OnTopOf == OnTopOfOrderValue {
		return orderValue.Add(fee)
	}
	return fee
}

// ExpectedTDS is the txnTds the price expects of a debit whose cashback
// is cashback: TDS percent of it, rounded to the paisa half up.
func (p *Price) ExpectedTDS(cashback decimal.Decimal) decimal.Decimal {
	return cashback.Mul(*p.TDS).Div(hundred).Round(2)
}

// name is the price as the rules name it: its key, and its from day.
func (p *Price) name() string {
	if p.From == "" {
		return p.Key
	}
	return p.Key + " from " + p.From
}

// Explain says how the price makes the expected charge of a debit whose
// orderValue is orderValue, for a finance reader: "LIT from 2026-10-15:
// charge 15.00", "UPIC: 1.5% of orderValue 2000.00 = 30.00, max 25.00",
// "DMT/IMPS: orderValue 1000.00 + charge 5.90".
func (p *Price) Explain(orderValue decimal.Decimal) string {
	var b strings.Builder
	b.WriteString(p.name() + ": ")
	if p.OnTopOf != "" {
		b.WriteString("orderValue " + recon.Money(orderValue) + " + ")
	}
	if p.Charge != nil {
		b.WriteString("charge " + recon.Money(*p.Charge))
		return b.String()
	}
	share := orderValue.Mul(*p.Percent).Div(hundred).Round(2)
	b.WriteString(p.Percent.String() + "% of orderValue " + recon.Money(orderValue) + " = " + recon.Money(share))
	switch fee := p.Fee(orderValue); {
	case p.Min != nil && fee.Equal(*p.Min) && !share.Equal(fee):
		b.WriteString(", min " + recon.Money(*p.Min))
	case p.Max != nil && fee.Equal(*p.Max) && !share.Equal(fee):
		b.WriteString(", max " + recon.Money(*p.Max))
	}
	return b.String()
}

// ExplainField says what the price expects of an amount field other than
// txnChargedValue: "IDV: surcharge 0.00", "IDV: TDS 5% of txnCashback
// 1.00 = 0.05".
func (p *Price) ExplainField(field string, cashback decimal.Decimal) string {
	switch field {
	case FieldSurcharge:
		return p.name() + ": surcharge " + recon.Money(*p.Surcharge)
	case FieldCashback:
		return p.name() + ": cashback " + recon.Money(*p.Cashback)
	}
	return p.name() + ": TDS " + p.TDS.String() + "% of txnCashback " + recon.Money(cashback) + " = " +
		recon.Money(p.ExpectedTDS(cashback))
}

// Debit is the expected debit of one call of operation op on day (IST),
// for bulkrun's spend cap: the txnChargedValue its product's price
// expects, a fixed charge or a percentage's Max. ok is false when the
// card names no product for op (operations), the product has no price
// that day, or the debit depends on the order (on top of orderValue, or a
// percentage without a max).
func (c *Card) Debit(op, day string) (decimal.Decimal, bool) {
	key, ok := c.ops[op]
	if !ok {
		return decimal.Zero, false
	}
	switch p := c.products[key].on(day); {
	case p == nil || p.OnTopOf != "":
		return decimal.Zero, false
	case p.Charge != nil:
		return *p.Charge, true
	case p.Max != nil:
		return *p.Max, true
	}
	return decimal.Zero, false
}
