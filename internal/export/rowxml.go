package export

import (
	"encoding/xml"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/xuri/excelize/v2"
)

// A sheet's rows are written as the XML that excelize's
// StreamWriter.SetRow (v2.11) writes for them, byte for byte
// (TestRowXMLAsSetRow and FuzzRowXML compare them), without its cost:
// SetRow builds every cell's reference, value and escaped text in strings
// of their own (half the export's time, and most of its garbage); this
// appends them to one buffer. Only the values xlsxSheet.values makes are
// written: nil, string, float64, int64, bool and time.Time, each in an
// *excelize.Cell with a style; anything else is an error.

// rowXML appends rows of a sheet with cols columns.
type rowXML struct {
	cols []string // the columns' letters
}

func newRowXML(cols int) *rowXML {
	x := &rowXML{cols: make([]string, cols)}
	for i := range cols {
		x.cols[i], _ = excelize.ColumnNumberToName(i + 1) // 1 ≤ i+1 ≤ 16384: our tables are narrow
	}
	return x
}

// appendRow appends row r (1 for the first) of cells vals (each nil, no
// cell, or an *excelize.Cell), of height h points (0: the default).
func (x *rowXML) appendRow(dst []byte, r int, vals []any, h float64) ([]byte, error) {
	if h > excelize.MaxRowHeight {
		return dst, excelize.ErrMaxRowHeight
	}
	dst = append(dst, `<row r="`...)
	dst = strconv.AppendInt(dst, int64(r), 10)
	dst = append(dst, '"')
	if h > 0 {
		dst = append(dst, ` ht="`...)
		dst = strconv.AppendFloat(dst, h, 'f', -1, 64)
		dst = append(dst, `" customHeight="1"`...)
	}
	dst = append(dst, '>')
	for i, v := range vals {
		if v == nil {
			continue
		}
		c, ok := v.(*excelize.Cell)
		if !ok || c.Formula != "" || i >= len(x.cols) {
			return dst, fmt.Errorf("row %d column %d: %T is not a cell the export writes", r, i+1, v)
		}
		var err error
		if dst, err = appendCell(dst, x.cols[i], r, c); err != nil {
			return dst, fmt.Errorf("row %d column %d: %w", r, i+1, err)
		}
	}
	return append(dst, `</row>`...), nil
}

// appendCell appends one cell: <c r="B7" s="3" t="…">…</c>.
func appendCell(dst []byte, col string, r int, c *excelize.Cell) ([]byte, error) {
	dst = append(dst, `<c r="`...)
	dst = append(dst, col...)
	dst = strconv.AppendInt(dst, int64(r), 10)
	dst = append(dst, '"')
	if c.StyleID > 0 {
		dst = append(dst, ` s="`...)
		dst = strconv.AppendInt(dst, int64(c.StyleID), 10)
		dst = append(dst, '"')
	}
	switch v := c.Value.(type) {
	case nil:
		dst = append(dst, '>')
	case string:
		dst = appendInline(dst, v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			dst = appendInline(dst, fmt.Sprint(v))
			break
		}
		dst = append(dst, `><v>`...)
		dst = strconv.AppendFloat(dst, v, 'f', -1, 64)
		dst = append(dst, `</v>`...)
	case int64:
		dst = append(dst, `><v>`...)
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, `</v>`...)
	case bool:
		dst = append(dst, ` t="b"><v>`...)
		dst = append(dst, "01"[b2i(v)])
		dst = append(dst, `</v>`...)
	case time.Time:
		if c.StyleID <= 0 { // SetRow would give it a style of its own
			return dst, fmt.Errorf("a time without a style")
		}
		v = v.Add(time.Duration(zoneOffset(v)) * time.Second)
		if t := excelTime(v); t > 0 {
			dst = append(dst, `><v>`...)
			dst = strconv.AppendFloat(dst, t, 'f', -1, 64)
			dst = append(dst, `</v>`...)
		} else { // before 1900: SetRow writes the time as text
			dst = append(dst, ` t="inlineStr"><is><t>`...)
			dst = append(dst, v.Format(time.RFC3339Nano)...)
			dst = append(dst, `</t></is>`...)
		}
	default:
		return dst, fmt.Errorf("%T is not a value the export writes", v)
	}
	return append(dst, `</c>`...), nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func zoneOffset(t time.Time) int {
	_, off := t.Zone()
	return off
}

// appendInline appends a text cell's type and its text, as an inline
// string: t="inlineStr"><is><t>text</t></is>.
func appendInline(dst []byte, s string) []byte {
	dst = append(dst, ` t="inlineStr"><is><t`...)
	var preserve bool
	if plainText(s) {
		preserve = s[0] == ' ' || s[len(s)-1] == ' '
		if preserve {
			dst = append(dst, ` xml:space="preserve"`...)
		}
		dst = append(dst, '>')
		dst = append(dst, s...)
	} else {
		s, preserve = cellText(s)
		if preserve {
			dst = append(dst, ` xml:space="preserve"`...)
		}
		dst = append(dst, '>')
		dst = append(dst, s...)
	}
	return append(dst, `</t></is>`...)
}

// plainText reports whether s is written as it is: ASCII, printable,
// nothing XML escapes and no _ (which may start an escape of excelize's).
func plainText(s string) bool {
	if s == "" || len(s) > excelize.TotalCellChars {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '&', c == '\'', c == '<', c == '>', c == '_':
			return false
		}
	}
	return true
}

// cellText is excelize's trimCellValue(s, true): the text cut to
// TotalCellChars UTF-16 units, XML-escaped but for line feeds, with
// excelize's _xHHHH_ escapes escaped; preserve when it begins or ends with
// a space, tab, CR or LF.
func cellText(s string) (text string, preserve bool) {
	n := 0
	for i, r := range s {
		if n += utf16.RuneLen(r); n > excelize.TotalCellChars {
			s = s[:i]
			break
		}
	}
	if s != "" {
		for _, c := range []byte{9, 10, 13, 32} {
			if s[0] == c || s[len(s)-1] == c {
				preserve = true
				break
			}
		}
		var b strings.Builder
		xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
		s = strings.ReplaceAll(b.String(), "&#xA;", "\n")
	}
	return bstrMarshal(s), preserve
}

var (
	bstrExp       = regexp.MustCompile(`_x[a-fA-F\d]{4}_`)
	bstrEscapeExp = regexp.MustCompile(`x[a-fA-F\d]{4}_`)
)

// bstrMarshal is excelize's: text that looks like its escape of a
// character (_x0041_) gets the escape of _ (_x005F_) before it.
func bstrMarshal(s string) (result string) {
	matches, l, cursor := bstrExp.FindAllStringSubmatchIndex(s, -1), len(s), 0
	for _, match := range matches {
		result += s[cursor:match[0]]
		subStr := s[match[0]:match[1]]
		if subStr == "_x005F_" {
			cursor = match[1]
			if match[1]+6 <= l && bstrEscapeExp.MatchString(s[match[1]:match[1]+6]) {
				_, err := strconv.Unquote(`"\u` + s[match[1]+1:match[1]+5] + `"`)
				if err == nil {
					result += subStr + "x005F" + subStr
					continue
				}
			}
			result += subStr + "x005F_"
			continue
		}
		if bstrExp.MatchString(subStr) {
			cursor = match[1]
			if _, err := strconv.Unquote(`"\u` + s[match[0]+2:match[1]-1] + `"`); err == nil {
				result += "_x005F" + subStr
				continue
			}
		}
	}
	if cursor < l {
		result += s[cursor:]
	}
	return result
}

// Excel's dates (excelize's, of the 1900 date system).
const (
	dayNanoseconds = 24 * time.Hour
	maxDuration    = 290 * 364 * dayNanoseconds
)

var (
	excelMinTime1900      = time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	excelBuggyPeriodStart = time.Date(1900, time.March, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
)

// excelTime is excelize's timeToExcelTime: t (its wall clock taken as
// UTC) as an Excel serial date; 0 before 1900.
func excelTime(t time.Time) float64 {
	date := excelMinTime1900
	if t.Before(date) {
		return 0
	}
	tt, diff, result := t, t.Sub(date), 0.0
	for diff >= maxDuration {
		result += float64(maxDuration / dayNanoseconds)
		tt = tt.Add(-maxDuration)
		diff = tt.Sub(date)
	}
	rem := diff % dayNanoseconds
	result += float64(diff-rem)/float64(dayNanoseconds) + float64(rem)/float64(dayNanoseconds)
	if t.After(excelBuggyPeriodStart) { // Excel's 29 February 1900
		result++
	}
	return result
}
