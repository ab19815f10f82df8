// Package jsonscan is a minimal JSON scanner for the lean decoders of the
// call-log import and the statement sync: one pass over a document that
// validates it as encoding/json does and finds the values of named keys,
// with no map and no struct of the whole document. What it cannot read
// exactly as encoding/json (and svcapi's String, Int and Amount types)
// would, it refuses (ok false): the caller then decodes the document the
// ordinary way. It imports no project package.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting the scanner follows (encoding/json's own
// limit is far higher; a deeper line goes to the full decoder).
const maxDepth = 200

// Span is a value's place in a document: [From, To). From 0 means absent
// (no value of a key starts at 0: its object does).
type Span struct{ From, To int }

// Set reports whether the value is present.
func (s Span) Set() bool { return s.From > 0 }

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipWS returns the index of the first byte at or after i that is not
// white space.
func SkipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// plain marks the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Bytes of eight, for stopsRun.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stopsRun reports whether any of the eight bytes in x is not plain: a
// quote, a backslash or a control character (the classic "has a zero
// byte" and "has a byte less than n" tests, exact as a yes or no).
func stopsRun(x uint64) bool {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0
}

// scanString scans the string at b[i] == '"': the index after its closing
// quote, and whether it holds an escape.
func scanString(b []byte, i int) (end int, esc, ok bool) {
	for i++; i < len(b); {
		// Eight bytes at a time while none ends the run (SWAR), then one.
		for i+8 <= len(b) && !stopsRun(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return 0, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, false, false
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, false, false
					}
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			i++
		}
	}
	return 0, false, false
}

// scanNumber scans the number at b[i] (JSON's grammar).
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
	}
	return i, true
}

// SkipValue scans the value at b[i]; it returns the index after it.
func SkipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '{':
		return scanObjectDepth(b, i, nil, nil, depth+1)
	case c == '[':
		return elements(b, i, depth+1)
	case c == '"':
		end, _, ok := scanString(b, i)
		return end, ok
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	default:
		return scanNumber(b, i)
	}
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

// ScanObject scans the object at b[i] == '{', putting the place of the
// value of each of keys in out (same index). A key of keys given twice, a
// key that matches one of keys only without regard to case (encoding/json
// would take it), or an escaped key, makes it fail.
func ScanObject(b []byte, i int, keys []string, out []Span) (int, bool) {
	end, irregular, ok := scanObject(b, i, keys, out, 0, nil)
	return end, ok && !irregular
}

// Nested scans, for ScanNested, the value of keys[k] that starts at b[i]
// with '{', an object at nesting depth depth: it returns the index after
// it, and false when it is not JSON. It reads what it wants of the object
// as it goes (ScanNested again, with that depth), so that a document is
// scanned once however deep the values read lie.
type Nested func(k, i, depth int) (end int, ok bool)

// ScanNested is ScanObject in one pass over a document with objects
// inside objects to read: the object at b[i] lies at nesting depth depth
// (0 for the document itself), and the object value of a key of keys is
// handed to nested (when not nil) instead of being skipped. It does not
// stop at a key it would refuse (given twice, escaped, or matching one of
// keys only without regard to case): it goes on validating, and reports
// irregular, so that the caller refuses the object only if it reads it.
// ok is false when the object is not JSON.
func ScanNested(b []byte, i, depth int, keys []string, out []Span, nested Nested) (end int, irregular, ok bool) {
	return scanObject(b, i, keys, out, depth, nested)
}

func scanObjectDepth(b []byte, i int, keys []string, out []Span, depth int) (int, bool) {
	end, irregular, ok := scanObject(b, i, keys, out, depth, nil)
	return end, ok && !irregular
}

// scanObject is ScanNested; without keys there is nothing irregular.
func scanObject(b []byte, i int, keys []string, out []Span, depth int, nested Nested) (end int, irregular, ok bool) {
	if depth >= maxDepth || i >= len(b) || b[i] != '{' {
		return 0, false, false
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, false, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false, false
		}
		kend, esc, ok := scanString(b, i)
		if !ok {
			return 0, false, false
		}
		key := b[i+1 : kend-1]
		i = SkipWS(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, false, false
		}
		i = SkipWS(b, i+1)
		want := -1
		if keys != nil {
			var odd bool
			want, odd = wanted(key, esc, keys)
			irregular = irregular || odd
		}
		vstart := i
		if want >= 0 && nested != nil && i < len(b) && b[i] == '{' {
			i, ok = nested(want, i, depth+1)
		} else {
			i, ok = SkipValue(b, i, depth)
		}
		if !ok {
			return 0, false, false
		}
		if want >= 0 {
			irregular = irregular || out[want].Set()
			out[want] = Span{vstart, i}
		}
		i = SkipWS(b, i)
		switch {
		case i < len(b) && b[i] == ',':
			i = SkipWS(b, i+1)
		case i < len(b) && b[i] == '}':
			return i + 1, irregular, true
		default:
			return 0, false, false
		}
	}
}

// wanted is the index in keys of the object key key (escaped when esc),
// or -1; odd when the key is one a lean reader refuses: escaped, not
// ASCII, or one of keys without regard to case only.
func wanted(key []byte, esc bool, keys []string) (k int, odd bool) {
	if esc || !ascii(key) {
		return -1, true
	}
	for k, name := range keys {
		if string(key) == name {
			return k, false
		}
		if len(key) == len(name) && bytes.EqualFold(key, []byte(name)) {
			return -1, true
		}
	}
	return -1, false
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Text reads a value as svcapi.String does: a string's text, a number's
// or boolean's literal, "" for null or absent; false for an object or an
// array.
func Text(b []byte, s Span) (string, bool) {
	if !s.Set() {
		return "", true
	}
	v := b[s.From:s.To]
	switch v[0] {
	case '"':
		if bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
			return string(v[1 : len(v)-1]), true
		}
		var out string
		if json.Unmarshal(v, &out) != nil {
			return "", false
		}
		return out, true
	case 'n':
		return "", true
	case '{', '[':
		return "", false
	}
	return string(v), true
}

// Int reads a whole number as svcapi.Int does (a number or a numeric
// string; 0 when absent or null); false for anything else.
func Int(b []byte, s Span) (int64, bool) {
	if !s.Set() {
		return 0, true
	}
	v := b[s.From:s.To]
	if v[0] == '"' {
		v = v[1 : len(v)-1]
	}
	if string(v) == "null" {
		return 0, true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// Amount reads an amount's text as svcapi.Amount does (a decimal string
// or number, trimmed; "" when absent or null); false for any other value.
func Amount(b []byte, s Span) (string, bool) {
	if !s.Set() {
		return "", true
	}
	v := b[s.From:s.To]
	switch v[0] {
	case '"':
		if bytes.IndexByte(v, '\\') >= 0 {
			return "", false
		}
		return strings.TrimSpace(string(v[1 : len(v)-1])), true
	case 'n':
		return "", true
	case '{', '[', 't', 'f':
		return "", false
	}
	return string(v), true
}

// Objects scans the array at b[i] == '[' whose elements are objects,
// each once: as ScanObject does, with the places of the values of keys in
// out (cleared before each), then fn with the element's place. An element
// that is not an object or that ScanObject refuses, or fn returning false,
// stops it (ok false). Each element is scanned once, not once to find its end
// and again to read it.
func Objects(b []byte, i int, keys []string, out []Span, fn func(e Span) bool) (end int, ok bool) {
	return array(b, i, 1, func(i int) (int, bool) {
		clear(out)
		end, ok := scanObjectDepth(b, i, keys, out, 2) // as elements nests it
		return end, ok && fn(Span{i, end})
	})
}

// elements scans the array at b[i] == '[' at nesting depth.
func elements(b []byte, i, depth int) (end int, ok bool) {
	return array(b, i, depth, func(i int) (int, bool) { return SkipValue(b, i, depth) })
}

// array scans the array at b[i] == '[' at nesting depth, each element
// with element (which returns the index after it).
func array(b []byte, i, depth int, element func(i int) (int, bool)) (end int, ok bool) {
	if depth >= maxDepth || i >= len(b) || b[i] != '[' {
		return 0, false
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		if i, ok = element(i); !ok {
			return 0, false
		}
		i = SkipWS(b, i)
		switch {
		case i < len(b) && b[i] == ',':
			i = SkipWS(b, i+1)
		case i < len(b) && b[i] == ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// Cut scans the document b, which must be one JSON object (white space
// around it allowed), and returns it without its member named key: rest is
// b itself when there is no such member, else a new slice; val is the place
// of that member's value in b. It validates the whole document as it goes
// (ScanObject, whose refusals it shares: key given twice, and any escaped
// or non-ASCII key, or one that matches key only without regard to case),
// then cuts the member with one comma. It fails (ok false) on what is not
// valid JSON; the caller then takes the ordinary path.
func Cut(b []byte, key string) (rest []byte, val Span, ok bool) {
	i := SkipWS(b, 0)
	var out [1]Span
	end, ok := ScanObject(b, i, []string{key}, out[:])
	if !ok || SkipWS(b, end) != len(b) {
		return nil, Span{}, false
	}
	val = out[0]
	if !val.Set() {
		return b, Span{}, true
	}
	// The member is `"key" : value`, its key as given (ScanObject matched
	// it exactly, unescaped): walk back from the value to the key's quote.
	j := val.From - 1
	for isWS(b[j]) {
		j--
	}
	j-- // the colon
	for isWS(b[j]) {
		j--
	}
	kstart := j - len(key) - 1 // the key's opening quote
	from, to := kstart, val.To
	if after := SkipWS(b, val.To); b[after] == ',' { // and the comma after it, up to the next key
		to = SkipWS(b, after+1)
	} else { // the last member: the comma before it, if any
		k := kstart - 1
		for isWS(b[k]) {
			k--
		}
		if b[k] == ',' {
			from = k
		}
	}
	rest = make([]byte, 0, len(b)-(to-from))
	rest = append(append(rest, b[:from]...), b[to:]...)
	return rest, val, true
}
