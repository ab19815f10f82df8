package recon

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Call is one logged call (a row of the calls table): a line of a call log
// svcrecon made or imported, read as the ledger needs it. Request and
// Response are the redacted JSON documents (nil: none).
type Call struct {
	ID          int64  // calls.id; 0 before it is stored
	Hash        string // SHA-256 (hex) of the line: the dedup key
	Source      string // file name, "-" for standard input, "svcrecon" for own calls
	Line        int    // line number in Source; 0 for own calls
	At          string // the line's "at", as logged
	TS          string // ordering time, IST TimestampLayout: the envelope timestamp, else "at"
	Operation   string
	Method      string
	Path        string
	ExternalRef string
	HTTPStatus  int64
	LatencyMs   int64
	Error       string
	StatusCode  string
	ActCode     string
	Status      string
	SvcUUID     string
	OrderID     string
	Outcome     CallOutcome
	Pool        PoolEntry
	Request     []byte
	Response    []byte

	// Where the line itself is kept for audit: in its file (SourceID, a
	// calls_sources row), Length bytes at Offset (of the decompressed
	// stream, for a gzip file), its SHA-256 being Hash; or, for a line
	// read from no file (standard input, svcrecon's own calls), redacted
	// in Block, at Offset of its decompressed text.
	SourceID       int64
	Block          *LineBlock
	Offset, Length int64
}

// LineBlock is a run of redacted call-log lines kept in the database,
// deflate-compressed (calls.line_block); ID is set once it is stored.
type LineBlock struct {
	ID   int64
	Data []byte
}

// Debit reports whether the call debited the pool: it succeeded and carries
// a pool entry.
func (c *Call) Debit() bool { return c.Pool.Shape != "" && c.Outcome == CallSuccess }

// PoolEntry is the pool object of a call's answer: the pool account it
// debits and its balances, kept as the exact decimal text (Money) they were
// stored with. Shape is "A" (openingBal, amount, closingBal), "B"
// (openingBalance, paymentAmount, closingBalance), "data" (data-level
// balances) or "" (no pool entry).
type PoolEntry struct {
	Account string
	Shape   string
	Mode    string
	Opening string
	Amount  string
	Closing string
}

// Amounts parses the entry's opening, amount and closing. The error names
// the field that is not an exact decimal.
func (p PoolEntry) Amounts() (opening, amount, closing decimal.Decimal, err error) {
	out := [3]decimal.Decimal{}
	for i, f := range [3]struct{ name, text string }{{"opening", p.Opening}, {"amount", p.Amount}, {"closing", p.Closing}} {
		if out[i], err = parseAmount(f.text); err != nil {
			return decimal.Zero, decimal.Zero, decimal.Zero, fmt.Errorf("pool %s: %w", f.name, err)
		}
	}
	return out[0], out[1], out[2], nil
}

// parseAmount reads an exact decimal amount as stored ("12.50", "-3",
// "0.125"; surrounding space is ignored).
func parseAmount(s string) (decimal.Decimal, error) {
	d, err := ParseDecimal(strings.TrimSpace(s))
	if err != nil {
		return decimal.Zero, fmt.Errorf("%q is not an amount", s)
	}
	return d, nil
}

// ParseDecimal is decimal.NewFromString, the same value at the same
// exponent: a plain decimal of at most 18 digits ([-]digits[.digits], as
// amounts are stored) read in one pass, any other text by
// decimal.NewFromString (the check parses three balances a call).
func ParseDecimal(s string) (decimal.Decimal, error) {
	digits, v, exp := 0, int64(0), int32(0)
	i, point := 0, -1
	if len(s) > 0 && s[0] == '-' {
		i = 1
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' && digits < 18:
			v, digits = v*10+int64(c-'0'), digits+1
		case c == '.' && point < 0 && digits > 0:
			point = i
		default:
			return decimal.NewFromString(s)
		}
	}
	if digits == 0 || point == len(s)-1 {
		return decimal.NewFromString(s)
	}
	if point >= 0 {
		exp = -int32(len(s) - 1 - point)
	}
	if s[0] == '-' {
		v = -v
	}
	return decimal.New(v, exp), nil
}
