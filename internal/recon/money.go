package recon

import "github.com/shopspring/decimal"

// Money formats an amount exactly, with at least two decimals: "12.50",
// "0.00", "-3.10", "0.125". It never rounds.
func Money(d decimal.Decimal) string {
	if d.Exponent() >= -2 {
		return d.StringFixed(2)
	}
	return d.String()
}

// Exact formats an amount with the decimal places it was written with:
// "1.80" stays "1.80" (decimal.String would write "1.8"), "5" stays "5".
func Exact(d decimal.Decimal) string {
	if e := d.Exponent(); e < 0 {
		return d.StringFixed(-e)
	}
	return d.String()
}
