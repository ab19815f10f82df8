package redact

import "strings"

// Numbers masks, in free text, every run of digits that is a card number
// (13 to 19 digits passing the Luhn check) or an Aadhaar number (12 digits,
// not starting with 0 or 1, passing the Verhoeff check) to its last four
// digits (Last4), written whole or in groups ("7391 4628 0552" becomes
// "XXXX XXXX 0552"; see grouped). Other numbers (amounts, references, bank
// RRNs that fail the checks, dates) are left alone.
func Numbers(s string) string {
	if !mayHold(s, 12) {
		return s // no run long enough: the common case, no allocation
	}
	return maskRuns(s)
}

// maskRuns rewrites s with every sensitive digit run masked.
func maskRuns(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		if !isDigit(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		if end, ok := grouped(s, i, sensitive); ok {
			b.Write(maskGrouped(nil, s, i, end))
			i = end
			continue
		}
		j := runEnd(s, i)
		run := s[i:j]
		if sensitive(run) {
			run = Last4(run)
		}
		b.WriteString(run)
		i = j
	}
	return b.String()
}

// aadhaar reports whether digits are an Aadhaar number.
func aadhaar(digits string) bool { return len(digits) == 12 && sensitive(digits) }

func sensitive(digits string) bool {
	switch n := len(digits); {
	case n == 12:
		return digits[0] >= '2' && verhoeff(digits)
	case n >= 13 && n <= 19:
		return luhn(digits)
	}
	return false
}

func luhn(d string) bool {
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if (len(d)-1-i)%2 == 1 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return sum%10 == 0
}

var (
	verhoeffD = [10][10]int{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5},
		{2, 3, 4, 0, 1, 7, 8, 9, 5, 6}, {3, 4, 0, 1, 2, 8, 9, 5, 6, 7},
		{4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
		{6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3},
		{8, 7, 6, 5, 9, 3, 2, 1, 0, 4}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
	}
	verhoeffP = [8][10]int{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4},
		{5, 8, 0, 3, 7, 9, 6, 1, 4, 2}, {8, 9, 1, 6, 0, 4, 3, 5, 2, 7},
		{9, 4, 5, 3, 1, 2, 6, 8, 7, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
		{2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8},
	}
)

// verhoeff reports whether d (check digit last) passes the Verhoeff check
// that Aadhaar numbers carry.
func verhoeff(d string) bool {
	c := 0
	for i := 0; i < len(d); i++ {
		c = verhoeffD[c][verhoeffP[i%8][int(d[len(d)-1-i]-'0')]]
	}
	return c == 0
}

// AadhaarJSON masks, in a JSON document (a call-log line), every Aadhaar
// number to its last four digits: a run of exactly 12 digits, not starting
// with 0 or 1, passing the Verhoeff check and not the integer part of a
// decimal, in a string (free text: a status message, a name, a remark) or
// as a bare number, which becomes a string. Card numbers are left to the
// keys that name them (MaskedKeys): ids such as an externalRef hold runs of
// 16 digits. A document without a run of 12 digits is returned as it is.
func AadhaarJSON(doc []byte) []byte { return AadhaarJSONExcept(doc) }

// AadhaarJSONExcept is AadhaarJSON but for the value of each of keys (the
// string or number right after the key, at any depth; keys compared as
// MaskedKeys are: any case, '_' and '-' ignored), which stays as it is:
// the ids and amounts a program reads back from a document it keeps and
// matches on (an orderid, a pool account), which an Aadhaar-shaped number
// of the same 12 digits would otherwise turn into another id.
func AadhaarJSONExcept(doc []byte, keys ...string) []byte {
	if !mayHold(doc, 12) {
		return doc
	}
	keep := keySet(keys)
	var out, key []byte // key: the object key read last
	last, from, inString, kept := 0, 0, false, false
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		switch {
		case inString && c == '\\':
			i++ // an escaped character, never a digit of a run
		case c == '"' && !inString:
			inString, from, kept = true, i+1, keyed(doc, i, key, keep)
		case c == '"':
			inString = false
			if k := skipSpace(doc, i+1); k < len(doc) && doc[k] == ':' {
				key = doc[from:i]
			}
		case isDigit(c):
			if end, ok := grouped(doc, i, aadhaar); ok && inString && !kept {
				out = maskGrouped(append(out, doc[last:i]...), doc, i, end)
				last, i = end, end-1
				continue
			}
			j := runEnd(doc, i)
			if (inString && !kept || !inString && !keyed(doc, i, key, keep)) && aadhaarRun(doc, i, j, inString) {
				out = append(out, doc[last:i]...)
				masked := Last4(string(doc[i:j]))
				if inString {
					out = append(out, masked...)
				} else {
					out = append(append(append(out, '"'), masked...), '"')
				}
				last = j
			}
			i = j - 1
		}
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// keyed reports whether the value that starts at doc[i] is that of key
// (the object key read last) and key is in keep: whether a ':' is the
// character before it, white space aside.
func keyed(doc []byte, i int, key []byte, keep map[string]bool) bool {
	if len(keep) == 0 {
		return false
	}
	k := i - 1
	for k >= 0 && isSpace(doc[k]) {
		k--
	}
	return k >= 0 && doc[k] == ':' && keyIn(key, keep)
}

// skipSpace returns the index of the first byte of doc from i that is not
// JSON white space (len(doc) when none is).
func skipSpace(doc []byte, i int) int {
	for i < len(doc) && isSpace(doc[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// aadhaarRun reports whether doc[i:j], a maximal run of digits, is an
// Aadhaar number to mask: in a string, not beside a decimal point followed
// or preceded by digits; as a bare number, the whole token.
func aadhaarRun(doc []byte, i, j int, inString bool) bool {
	if j-i != 12 || !sensitive(string(doc[i:j])) {
		return false
	}
	digit := func(k int) bool { return k >= 0 && k < len(doc) && isDigit(doc[k]) }
	if j < len(doc) && doc[j] == '.' && digit(j+1) || i > 0 && doc[i-1] == '.' && digit(i-2) {
		return false // the integer or fraction part of a decimal: an amount
	}
	if inString {
		return true
	}
	before := i == 0 || strings.IndexByte(" \t\r\n:,[", doc[i-1]) >= 0
	after := j == len(doc) || strings.IndexByte(" \t\r\n,]}", doc[j]) >= 0
	return before && after
}
