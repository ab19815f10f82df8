package recon

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

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

// The bound of an amount: at most MaxAmountDigits integer digits (below
// 10^15; no pool, debit or transfer comes near it) and at most
// MaxAmountDecimals decimals (trailing zeros not counted; the service's
// amounts have two, a computed fee or TDS four). An amount beyond it —
// a 401-digit txnChargedValue, a transfer of 1e29 — is refused where it is
// read (CheckAmount): from the service (the page is a fault, named with
// its day and page), from a call log (named with its file and line), from
// a CSV row. It is never stored.
const (
	MaxAmountDigits   = 15
	MaxAmountDecimals = 4
)

// ErrAmountRange is wrapped by the errors of CheckAmount and
// CheckAmountText.
var ErrAmountRange = errors.New("beyond the bound of an amount")

// CheckAmount refuses an amount beyond the bound (MaxAmountDigits,
// MaxAmountDecimals). The error wraps ErrAmountRange.
func CheckAmount(d decimal.Decimal) error {
	if d.IsZero() {
		return nil
	}
	digits, exp := int(d.NumDigits()), int(d.Exponent())
	if digits+exp > MaxAmountDigits || digits > 1000 {
		return fmt.Errorf("%w (more than %d integer digits)", ErrAmountRange, MaxAmountDigits)
	}
	if exp >= 0 {
		return nil
	}
	coef := d.Coefficient().String()
	if decimals := -exp - (len(coef) - len(strings.TrimRight(coef, "0"))); decimals > MaxAmountDecimals {
		return fmt.Errorf("%w (more than %d decimals)", ErrAmountRange, MaxAmountDecimals)
	}
	return nil
}

// CheckAmountText is CheckAmount for a plain decimal text ([-]digits[.digits],
// as the service and the database write amounts), without parsing it:
// leading zeros of the integer part and trailing zeros of the decimals
// are not counted. Text that is not a plain decimal is not checked (nil).
func CheckAmountText(s string) error {
	whole, frac, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(s), "-"), ".")
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return nil
			}
		}
	}
	if len(strings.TrimLeft(whole, "0")) > MaxAmountDigits {
		return fmt.Errorf("%w (more than %d integer digits)", ErrAmountRange, MaxAmountDigits)
	}
	if len(strings.TrimRight(frac, "0")) > MaxAmountDecimals {
		return fmt.Errorf("%w (more than %d decimals)", ErrAmountRange, MaxAmountDecimals)
	}
	return nil
}
