package export

import (
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// CellKind says how a column's text is written to a workbook cell. CSV
// files always get the text itself (booleans as true/false).
type CellKind int

// The cell kinds.
const (
	Text     CellKind = iota
	Amount            // exact decimal text: a number, #,##0.00
	Delta             // an amount whose negatives show red
	Date              // YYYY-MM-DD: an Excel date
	DateTime          // YYYY-MM-DD HH:MM:SS (IST): an Excel date-time
	Stamp             // svcrecon's RFC 3339 UTC time: an Excel date-time in IST
	Int               // an integer
	Bool              // 0/1 or false/true: TRUE/FALSE
	Prose             // text of sentences: wrapped in a wide column
)

// cellKinds maps a record field's type to its cell kind.
var cellKinds = map[recon.FieldType]CellKind{
	recon.Text: Text, recon.Amount: Amount, recon.Date: Date, recon.DateTime: DateTime,
}

// Column is one column of a table: its header and cell kind. Mask masks
// card and Aadhaar numbers in its text (redact.Numbers).
type Column struct {
	Name string
	Kind CellKind
	Mask bool
}

// Mark is how a whole row is highlighted in the workbook.
type Mark int

// The row marks.
const (
	MarkNone  Mark = iota
	MarkBreak      // red fill: a break, a mismatch, a missing reversal
	MarkLook       // yellow fill: pending, explained gaps, old unsettled orders
	MarkMuted      // grey text: removed billers
	MarkGood       // green fill: a verdict or a check that holds
)

// Table is one sheet of a workbook and its CSV file.
type Table struct {
	Sheet   string // sheet name; continuation sheets add " (2)" …
	File    string // CSV file name; "" writes no CSV file (the workbook only)
	Columns []Column
	// Note, when set, is a sentence about the sheet, written in its header
	// row to the right of the table (the workbook only; the printed area
	// stays the table's columns).
	Note string
	// Count, when set, counts the rows for the progress bar.
	Count func() (int64, error)
	// Portrait prints the sheet on portrait pages (default landscape).
	Portrait bool
	// Keys is how many leading columns identify a row: they are repeated
	// at the left of every page when the sheet prints more than one page
	// wide.
	Keys int
	// Choices are the values a column's cells offer as a drop-down in the
	// workbook (column index → values; a blank is allowed).
	Choices map[int][]string
}

// Row is one row of a table: a text per column ("" is an empty cell) and
// its highlight.
type Row struct {
	Cells []string
	Mark  Mark
}

// Rows is an ordered stream of a table's rows. The writer reads each row
// before it asks for the next, so a stream may reuse its Cells.
type Rows = iter.Seq2[Row, error]

// cellValue converts a stored value to what a workbook cell holds: a
// float64 for amounts, a time.Time (IST wall clock) for dates, an int64, a
// bool, or the text itself when it does not parse.
//
// An amount is a number cell only when the float64 keeps it exactly: its
// shortest decimal reads back as the amount (exactFloat). One that does
// not — beyond 15 or so significant digits, "99999999999999.99" would be
// 99999999999999.98 — is a text cell holding the exact amount: a wrong
// figure that sums is worse than a right one that does not.
func cellValue(k CellKind, s string) any {
	switch k {
	case Amount, Delta:
		if plainDecimal(s) {
			// The only float: the cell write. ParseFloat rounds the exact
			// decimal text to the nearest float64.
			if f, err := strconv.ParseFloat(s, 64); err == nil && exactFloat(s, f) {
				return f
			}
		}
	case Date:
		if t, err := time.ParseInLocation(recon.DateLayout, s, recon.IST); err == nil {
			return t
		}
	case DateTime:
		if t, err := time.ParseInLocation(recon.TimestampLayout, s, recon.IST); err == nil {
			return t
		}
	case Stamp:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.In(recon.IST)
		}
	case Int:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case Bool:
		return s == "1" || s == "true"
	}
	return s
}

// csvText is a cell's CSV text: the text itself, booleans as true/false,
// and unless raw, formula-safe (formulaLike): a cell a spreadsheet could
// take for a formula gets a leading ' so that one opening the file never
// evaluates it, unless it is a plain number ("-2.50" stays a number, in
// any column, so that a spreadsheet sums it). Every CSV file the export
// writes (bulk results too) goes through it.
func csvText(k CellKind, s string, raw bool) string {
	if k == Bool && s != "" {
		return strconv.FormatBool(s == "1" || s == "true")
	}
	if raw || s == "" || plainDecimal(s) || !formulaLike(s) {
		return s
	}
	return "'" + s
}

// formulaLike reports whether a spreadsheet could take text for a formula
// (OWASP's rule, widened): it begins with TAB or CR, or its first
// character after any leading spaces, tabs, CRs, LFs and double quotes is
// =, +, -, @ or their full-width forms ＝ ＋ － ＠ (U+FF1D, U+FF0B,
// U+FF0D, U+FF20), which some spreadsheets read as the ASCII ones. A
// plain number after the leading blanks (" -12.50") is not a formula.
func formulaLike(s string) bool {
	if s[0] == '\t' || s[0] == '\r' {
		return true
	}
	rest := strings.TrimLeft(s, " \t\r\n\"")
	r, _ := utf8.DecodeRuneInString(rest)
	switch r {
	case '=', '+', '-', '@':
		return !plainDecimal(rest)
	case '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20':
		return true
	}
	return false
}

// plainDecimal reports whether s is a plain decimal number: an optional
// sign, digits, and at most one point with digits after it (no exponent,
// no NaN or Inf, which ParseFloat would take).
func plainDecimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	digits, point := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point && digits > 0 && i < len(s)-1:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// exactFloat reports whether f, the float64 nearest the plain decimal s,
// is s exactly: f's shortest decimal is s less any sign +, leading zeros
// of the integer part and trailing zeros of the fraction. It allocates
// nothing: it runs for every amount cell of a workbook.
func exactFloat(s string, f float64) bool {
	var buf [32]byte
	out := strconv.AppendFloat(buf[:0], f, 'f', -1, 64)
	neg, digits := canonicalDecimal(s)
	if len(out) > 0 && out[0] == '-' != neg {
		return false
	}
	if neg {
		out = out[1:]
	}
	if digits[0] == '.' { // no units: f's decimal has a 0 before the point
		return len(out) > 0 && out[0] == '0' && string(out[1:]) == digits
	}
	return string(out) == digits
}

// canonicalDecimal is the plain decimal s as strconv.FormatFloat writes
// its value, its sign apart: no +, no leading zeros before the units (and
// so none at all before a point: ".5"), no trailing zeros after the point,
// and no point with nothing after it.
func canonicalDecimal(s string) (neg bool, digits string) {
	neg = s[0] == '-'
	s = strings.TrimLeft(s, "+-")
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s = strings.TrimLeft(s, "0"); s == "" {
		s = "0"
	}
	return neg, s
}

// displayWidth estimates how many characters a value takes in its cell.
func displayWidth(k CellKind, s string) int {
	switch k {
	case Amount, Delta:
		if d, err := decimal.NewFromString(s); err == nil {
			ip := d.Abs().Truncate(0).String()
			n := len(ip) + (len(ip)-1)/3 + 3
			if d.IsNegative() {
				n++
			}
			return n
		}
	case Date:
		return 12 // with the indent
	case DateTime, Stamp:
		return 22
	case Bool:
		return 5
	}
	return utf8.RuneCountInString(s)
}

// wrapWidth is the widest a text column gets, in characters: longer text
// wraps in it, onto as many lines as it takes.
const wrapWidth = 40

// widths computes column widths from the header and a sample of rows, and
// which columns wrap: prose, and text longer than wrapWidth.
func widths(cols []Column, sample []Row) (out []float64, wrap []bool) {
	out, wrap = make([]float64, len(cols)), make([]bool, len(cols))
	for i, c := range cols {
		n := len(c.Name) + 3 // the filter button
		for _, r := range sample {
			if i < len(r.Cells) {
				if m := displayWidth(c.Kind, r.Cells[i]); m > n {
					n = m
				}
			}
		}
		out[i] = float64(min(max(n+2, 8), 60))
		if c.Kind == Prose || c.Kind == Text && out[i] > wrapWidth {
			out[i], wrap[i] = min(out[i], wrapWidth), true
		}
	}
	return out, wrap
}

// lineHeight is the height in points of a line of 11 pt type.
const lineHeight = 15

// rowHeight caps a row's height in points at Excel's maximum, 409 pt
// (excelize.MaxRowHeight; a taller row is refused: ErrMaxRowHeight). A
// cell with more lines than that shows keeps its whole text.
func rowHeight(h float64) float64 { return min(h, excelize.MaxRowHeight) }

// lines estimates how many lines text takes wrapped in a column width
// characters wide: a line holds a little less than width characters of
// Calibri (room for the word that does not fit).
func lines(text string, width float64) int {
	per := max(int(width)-2, 1)
	n := 0
	for para := range strings.SplitSeq(text, "\n") {
		n += max((utf8.RuneCountInString(para)+per-1)/per, 1)
	}
	return n
}
