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
	if decimals := -exp - trailingZeros(d, digits); decimals > MaxAmountDecimals {
		return fmt.Errorf("%w (more than %d decimals)", ErrAmountRange, MaxAmountDecimals)
	}
	return nil
}

// trailingZeros counts the trailing zeros of the coefficient of d (not
// zero), of digits digits: from its int64 when it has at most 18 digits
// (every amount read: its text was a tenth of the check's parsing), else
// from its text.
func trailingZeros(d decimal.Decimal, digits int) int {
	if digits <= 18 {
		c, n := d.CoefficientInt64(), 0
		for c%10 == 0 {
			c /= 10
			n++
		}
		return n
	}
	coef := d.Coefficient().String()
	return len(coef) - len(strings.TrimRight(coef, "0"))
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

// PlainMoney is Money of an amount's text, written without parsing it when
// the text is a plain decimal: an optional '-', digits with no leading
// zero (but "0" itself), and one or two decimals if any: "12" → "12.00",
// "-3.5" → "-3.50", "0.25" stays. ok is false for any other text (more
// decimals, an exponent, space, "-0", not a number): the caller parses it
// and formats it with Money.
func PlainMoney(s string) (m string, ok bool) {
	i := 0
	if s != "" && s[0] == '-' {
		i = 1
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	digits := j - i
	if digits == 0 || digits > 1 && s[i] == '0' {
		return "", false
	}
	frac := 0
	if j < len(s) {
		if s[j] != '.' {
			return "", false
		}
		k := j + 1
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if frac = k - j - 1; k != len(s) || frac < 1 || frac > 2 {
			return "", false
		}
	}
	if i == 1 && strings.Trim(s[1:], "0.") == "" {
		return "", false // negative zero
	}
	switch frac {
	case 0:
		return s + ".00", true
	case 1:
		return s + "0", true
	}
	return s, true
}
