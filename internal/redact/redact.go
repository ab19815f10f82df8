// Package redact is svcrecon's one home for hiding sensitive values before
// anything is written (a call log line, the database, an export, a results
// file): secrets are replaced by Marker, the values of RemovedKeys are
// removed, card and Aadhaar numbers are masked to their last four
// characters (MaskedKeys in JSON documents, Numbers in free text).
//
// It imports no other package of the project.
package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marker is the text that replaces a removed value or a secret.
const Marker = "[REDACTED]"

// RemovedKeys are the request and response keys whose values are removed
// before anything is written (design: the call log).
var RemovedKeys = []string{"encryptedAadhaar", "pidData", "sessionKey", "hmac", "cardPin"}

// MaskedKeys are the keys whose values are masked to their last four
// characters.
var MaskedKeys = []string{"cardNumber", "aadhaarNumber", "aadhaar", "aadhaarNo", "uid"}

// normKey appends k to dst the way keys are compared: ASCII letters lower
// case, '_' and '-' left out ("Aadhaar_Number" and "aadhaar-number" are
// "aadhaarnumber").
func normKey[T string | []byte](dst []byte, k T) []byte {
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c == '_' || c == '-':
		case c >= 'A' && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// keySet is a list of keys, normalized (normKey).
func keySet(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[string(normKey(nil, k))] = true
	}
	return m
}

var (
	removedKeys = keySet(RemovedKeys)
	maskedKeys  = keySet(MaskedKeys)
)

// maxKeyLen bounds the normalized length of the keys compared (64: far
// longer than any of RemovedKeys and MaskedKeys).
const maxKeyLen = 64

// keyIn reports whether k, normalized, is in set; it allocates nothing.
func keyIn[T string | []byte](k T, set map[string]bool) bool {
	n := 0
	for i := 0; i < len(k); i++ {
		if k[i] != '_' && k[i] != '-' {
			n++
		}
	}
	if n == 0 || n > maxKeyLen {
		return false
	}
	var buf [maxKeyLen]byte
	return set[string(normKey(buf[:0], k))]
}

// IsRemovedKey reports whether values under this key are removed before
// anything is written (RemovedKeys). Keys match ignoring case, '_' and '-':
// "PID_DATA" is "pidData".
func IsRemovedKey(k string) bool { return keyIn(k, removedKeys) }

// IsMaskedKey reports whether values under this key are masked to their
// last four characters (MaskedKeys). Keys match ignoring case, '_' and '-':
// "Aadhaar_Number" is "aadhaarNumber".
func IsMaskedKey(k string) bool { return keyIn(k, maskedKeys) }

// IsSensitiveKeyBytes reports whether values under this key, held as bytes
// (a JSON document being scanned), are removed or masked (IsRemovedKey or
// IsMaskedKey); it allocates nothing.
func IsSensitiveKeyBytes(k []byte) bool { return keyIn(k, removedKeys) || keyIn(k, maskedKeys) }

// Last4 masks all but the last four characters of s with X; a value of
// four characters or fewer is masked whole.
func Last4(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return strings.Repeat("X", len(r))
	}
	return strings.Repeat("X", len(r)-4) + string(r[len(r)-4:])
}

// Scrub replaces each (non-empty) secret in s with Marker: as it is, and
// as JSON spells it inside a string (escaped, with or without HTML
// escapes), so a secret quoted back in a broken-off JSON body goes too.
func Scrub(s string, secrets ...string) string {
	for _, sec := range secrets {
		if plain(sec) { // the common case, with no spelling but itself: no allocation
			if strings.Contains(s, sec) {
				s = strings.ReplaceAll(s, sec, Marker)
			}
			continue
		}
		for _, form := range forms(sec) {
			s = strings.ReplaceAll(s, form, Marker)
		}
	}
	return s
}

// plain reports whether a secret has no spelling but itself: it is not
// empty, and JSON escapes none of its bytes (forms would return it alone).
func plain(secret string) bool {
	for i := 0; i < len(secret); i++ {
		switch c := secret[i]; {
		case c < 0x20, c >= utf8.RuneSelf, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return secret != ""
}

func scrubBytes(b []byte, secrets ...string) []byte {
	for _, sec := range secrets {
		if plain(sec) {
			if bytes.Contains(b, []byte(sec)) {
				b = bytes.ReplaceAll(b, []byte(sec), []byte(Marker))
			}
			continue
		}
		for _, form := range forms(sec) {
			if bytes.Contains(b, []byte(form)) {
				b = bytes.ReplaceAll(b, []byte(form), []byte(Marker))
			}
		}
	}
	return b
}

// forms are the spellings of a secret Scrub replaces: itself, and its JSON
// string escapes (Go's, which escapes <, > and &, and the plain one).
func forms(secret string) []string {
	if secret == "" {
		return nil
	}
	out := []string{secret}
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(secret) != nil {
			continue
		}
		e := strings.TrimSuffix(b.String(), "\n")
		e = e[1 : len(e)-1]
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// JSON returns a copy of a JSON document with the values of RemovedKeys
// (at any depth) replaced by Marker and the values of MaskedKeys masked to
// their last four characters. Each secret (the client secret) is replaced
// wherever it appears, in keys and values. A document that is not JSON is
// returned with only the secrets replaced.
func JSON(doc []byte, secrets ...string) []byte {
	if len(doc) == 0 {
		return doc
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	out := doc
	if err := dec.Decode(&v); err == nil {
		// Scrub the decoded strings too: a secret holding a character that
		// JSON escapes (<, >, &, ") would survive a scrub of the bytes alone.
		if b, err := json.Marshal(value(v, secrets)); err == nil {
			out = b
		}
	}
	return scrubBytes(out, secrets...)
}

// RawJSON is JSON for a field that must hold JSON: a document that is not
// valid JSON (an HTML error page, a truncated body) is returned as a JSON
// string of its scrubbed text.
func RawJSON(doc []byte, secrets ...string) json.RawMessage {
	out := JSON(doc, secrets...)
	if len(out) == 0 || json.Valid(out) {
		return out
	}
	b, err := json.Marshal(Scrub(string(doc), secrets...))
	if err != nil { // a string always marshals; stay safe anyway
		return json.RawMessage(`""`)
	}
	return b
}

func value(v any, secrets []string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if sk := Scrub(k, secrets...); sk != k {
				delete(x, k)
				k = sk
			}
			switch {
			case IsRemovedKey(k):
				if val != nil {
					x[k] = Marker
				} else {
					x[k] = nil
				}
			case IsMaskedKey(k):
				if s, ok := scalar(val); ok && s != "" {
					x[k] = Last4(Scrub(s, secrets...))
				} else {
					x[k] = value(val, secrets)
				}
			default:
				x[k] = value(val, secrets)
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = value(x[i], secrets)
		}
		return x
	case string:
		return Scrub(x, secrets...)
	}
	return v
}

// scalar renders a scalar of a document decoded with UseNumber as text.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// Shortest values SensitiveValues collects: a shorter one (a flag, a
// digit) would blank out unrelated text wherever it appears.
const (
	minRemovedValue = 4 // pidData, hmac, sessionKey, encryptedAadhaar, cardPin
	minMaskedValue  = 8 // card and Aadhaar numbers
)

// SensitiveValues returns the values of the sensitive keys of a JSON
// request (at any depth): what must be scrubbed by value wherever the
// service quotes it back (a status message, an error, a body). A document
// that is not JSON has none.
func SensitiveValues(doc []byte) []string {
	if len(doc) == 0 || !MayHoldSensitiveKey(doc) {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				s, ok := scalar(val)
				switch {
				case ok && IsRemovedKey(k) && len(s) >= minRemovedValue,
					ok && IsMaskedKey(k) && len(s) >= minMaskedValue:
					out = append(out, s)
				default:
					walk(val)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// MayHoldSensitiveKey reports whether a JSON document may hold a
// sensitive key: a cheap look at its quoted strings before decoding it. A
// \u escape could spell a key, so a document with one may.
func MayHoldSensitiveKey(doc []byte) bool {
	if bytes.IndexByte(doc, '\\') >= 0 {
		return mayHoldEscaped(doc)
	}
	for i := 0; ; {
		j := bytes.IndexByte(doc[i:], '"')
		if j < 0 {
			return false
		}
		start := i + j + 1
		k := bytes.IndexByte(doc[start:], '"')
		if k < 0 {
			return false
		}
		if IsSensitiveKeyBytes(doc[start : start+k]) {
			return true
		}
		i = start + k + 1
	}
}

// mayHoldEscaped is MayHoldSensitiveKey for a document with escapes.
func mayHoldEscaped(doc []byte) bool {
	in, start := false, 0
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case !in:
			if c == '"' {
				in, start = true, i+1
			}
		case c == '\\':
			if i+1 < len(doc) && doc[i+1] == 'u' {
				return true
			}
			i++
		case c == '"':
			in = false
			if IsSensitiveKeyBytes(doc[start:i]) {
				return true
			}
		}
	}
	return false
}
