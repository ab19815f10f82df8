package recon

import (
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
