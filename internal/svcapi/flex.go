package svcapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/internal/recon"

	"github.com/shopspring/decimal"
)

// String is a string field that the service sometimes sends as a number,
// a boolean or null. Numbers keep their exact literal text (a 20-digit id
// stays 20 digits); null and absent decode to "". An object or array, which
// no listed field should be, keeps its compact JSON text rather than
// failing the whole answer.
type String string

// UnmarshalJSON accepts a JSON string, number, boolean, null, object or
// array.
func (s *String) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*s = ""
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = String(v)
	case b[0] == '{' || b[0] == '[':
		// Not expected, but not worth failing a whole answer for: keep
		// the compact JSON text.
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		*s = String(validUTF8(buf.String()))
	default:
		*s = String(b)
	}
	return nil
}

// notAvailable reports whether s is one of the texts the service sends for
// an absent value ("NA", "N/A", "-"), compared case-insensitively.
func notAvailable(s string) bool {
	switch strings.ToLower(s) {
	case "na", "n/a", "-":
		return true
	}
	return false
}

// validUTF8 replaces each byte of s that is not UTF-8 with U+FFFD, as
// encoding/json does when it decodes a string.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Int is an integer field sent as a number or a numeric string.
type Int int64

// UnmarshalJSON accepts 12, "12", 12.0, null, "" and the absent-value texts
// "NA", "N/A" and "-" (all three zero).
func (n *Int) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	if s == "" || s == "null" || notAvailable(s) {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// 12.0 is still 12.
		d, derr := parseDecimal(s)
		if derr != nil || !d.IsInteger() || d.Abs().Cmp(maxInt64) > 0 {
			return fmt.Errorf("want a whole number, got %.40s", b)
		}
		v = d.IntPart()
	}
	*n = Int(v)
	return nil
}

var maxInt64 = decimal.NewFromInt(1<<63 - 1)

// Bool is a boolean field sent as true/false, "true"/"false", 1/0 or "Y"/"N".
type Bool bool

// UnmarshalJSON accepts the boolean spellings the service uses; null, ""
// and the absent-value texts "NA", "N/A" and "-" are false.
func (v *Bool) UnmarshalJSON(b []byte) error {
	s := strings.ToLower(strings.Trim(string(bytes.TrimSpace(b)), `"`))
	switch {
	case s == "true" || s == "1" || s == "y" || s == "yes":
		*v = true
	case s == "false" || s == "0" || s == "n" || s == "no" || s == "" || s == "null" || notAvailable(s):
		*v = false
	default:
		return fmt.Errorf("want a boolean, got %s", b)
	}
	return nil
}

// Amount is an exact decimal amount, sent as a decimal string or a JSON
// number (never read through float64). Valid is false when the field was
// null, absent or empty; Raw keeps text that was not a number (a masked
// balance such as "XXXX") instead of failing. The decoder keeps a number
// of any size: whoever stores one checks it against the bound of an
// amount first (Check).
type Amount struct {
	Decimal decimal.Decimal
	Valid   bool
	Raw     string
}

// UnmarshalJSON decodes a decimal string or number exactly.
func (a *Amount) UnmarshalJSON(b []byte) error {
	*a = Amount{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	s := string(b)
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else if b[0] == '{' || b[0] == '[' || b[0] == 't' || b[0] == 'f' {
		return fmt.Errorf("want an amount, got %.20s", b)
	}
	s = strings.TrimSpace(s)
	a.Raw = s
	if s == "" {
		return nil
	}
	d, err := parseDecimal(s)
	if err != nil {
		return nil // masked or free text: kept in Raw, not Valid
	}
	a.Decimal, a.Valid = d, true
	return nil
}

// Check refuses a valid amount beyond the bound of an amount
// (recon.CheckAmount: 15 integer digits, 4 decimals); the error names its
// text and wraps recon.ErrAmountRange. Text that is not a number (a masked
// balance) and an absent amount pass.
func (a Amount) Check() error {
	if !a.Valid {
		return nil
	}
	if err := recon.CheckAmount(a.Decimal); err != nil {
		return fmt.Errorf("%s is %w", clipAmount(a.Raw), err)
	}
	return nil
}

// clipAmount is an amount's text as an error quotes it: a long one cut,
// with its length.
func clipAmount(s string) string {
	if len(s) <= 24 {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:20]) + fmt.Sprintf("… (%d characters)", len(s))
}

// MarshalJSON writes the exact decimal string, or null.
func (a Amount) MarshalJSON() ([]byte, error) {
	if !a.Valid {
		if a.Raw != "" {
			return json.Marshal(a.Raw)
		}
		return []byte("null"), nil
	}
	return json.Marshal(a.Decimal.String())
}

// String returns the exact decimal text, the raw text, or "".
func (a Amount) String() string {
	if a.Valid {
		return a.Decimal.String()
	}
	return a.Raw
}

// ParseAmount parses a strict amount: text that is not a decimal (or one
// with an absurd exponent, such as 1e999999999) is an error, and so is a
// decimal beyond the bound of an amount (recon.CheckAmount; the error then
// wraps recon.ErrAmountRange). It is the one parse of an amount read as
// text: the sync, the call-log import and the checks use it.
func ParseAmount(s string) (decimal.Decimal, error) {
	d, err := parseDecimal(strings.TrimSpace(s))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%s is not an amount", clipAmount(s))
	}
	if err := recon.CheckAmount(d); err != nil {
		return decimal.Decimal{}, fmt.Errorf("%s is %w", clipAmount(s), err)
	}
	return d, nil
}

// maxExponent bounds the decimal exponent of amounts and numbers read from
// the service. shopspring/decimal keeps "1e2000000000" as a small value
// with a huge exponent; printing it or subtracting it from another amount
// would then allocate gigabytes. No amount needs more than this.
const maxExponent = 64

// parseDecimal is decimal.NewFromString (recon.ParseDecimal) with a
// bounded exponent.
func parseDecimal(s string) (decimal.Decimal, error) {
	d, err := recon.ParseDecimal(s)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if e := d.Exponent(); e > maxExponent || e < -maxExponent {
		return decimal.Decimal{}, fmt.Errorf("exponent of %.40q out of range", s)
	}
	return d, nil
}

// ParseTime reads a service timestamp: "YYYY-MM-DD HH:MM:SS"
// (recon.TimestampLayout) in IST (recon.IST: timestamps the service sends
// without a zone are IST), or RFC 3339 (with or without fractional seconds
// and zone; IST when no zone).
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{recon.TimestampLayout, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, recon.IST); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02 15:04:05.999999999Z07:00", s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("unknown timestamp format %q (want YYYY-MM-DD HH:MM:SS)", s)
}
