// Package redact is svcrecon's one home for hiding sensitive values before
// anything is printed, logged or written (a call log line, the database, an
// export, a results file):
//
//   - a Scrubber learns the values of the secrets (the client secret, the
//     database password, the biometrics of the requests being made) and
//     removes them, in every spelling, from everything it is handed: the
//     API client's answers, the call log, every log line (Handler);
//   - the values of RemovedKeys are removed and those of MaskedKeys masked
//     to their last four characters in JSON documents (JSON);
//   - free text (Text) has card and Aadhaar numbers masked (Numbers),
//     passwords in URLs masked (URLPasswords) and control characters
//     escaped (Escape).
//
// It imports no other package of the project.
package redact

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
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

// Scrub returns s with every spelling of each secret replaced by Marker
// (NewScrubber(secrets...).String: any letter case, JSON- or URL-escaped,
// split by line breaks, base64). Secrets shorter than MinSecret are left.
func Scrub(s string, secrets ...string) string { return scrubberOf(secrets).String(s) }

// scrubberOf is a Scrubber of secrets (their needles are cached: a call
// per field of every line compiles nothing).
func scrubberOf(secrets []string) *Scrubber {
	if len(secrets) == 0 {
		return nil
	}
	return NewScrubber(secrets...)
}

// JSON returns a copy of a JSON document with the values of RemovedKeys
// (at any depth) replaced by Marker and the values of MaskedKeys masked to
// their last four characters. Each secret (the client secret) is replaced
// wherever it appears, in keys and values, in any spelling (Scrubber). A
// document that is not JSON is returned with only the secrets replaced.
func JSON(doc []byte, secrets ...string) []byte { return scrubberOf(secrets).JSON(doc) }

// RawJSON is JSON for a field that must hold JSON: a document that is not
// valid JSON (an HTML error page, a truncated body) is returned as a JSON
// string of its scrubbed text.
func RawJSON(doc []byte, secrets ...string) json.RawMessage { return scrubberOf(secrets).RawJSON(doc) }

// JSON is the package's JSON with the values s removes as the secrets.
func (s *Scrubber) JSON(doc []byte) []byte {
	if len(doc) == 0 {
		return doc
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	out := doc
	if err := dec.Decode(&v); err == nil {
		if b, err := json.Marshal(value(v)); err == nil {
			out = b
		}
	}
	// The search decodes JSON escapes: a secret spelt with them goes too.
	return s.Bytes(out)
}

// RawJSON is the package's RawJSON with the values s removes as the
// secrets.
func (s *Scrubber) RawJSON(doc []byte) json.RawMessage {
	out := s.JSON(doc)
	if len(out) == 0 || json.Valid(out) {
		return out
	}
	b, err := json.Marshal(s.String(string(doc)))
	if err != nil { // a string always marshals; stay safe anyway
		return json.RawMessage(`""`)
	}
	return b
}

func value(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch {
			case IsRemovedKey(k):
				if val != nil {
					x[k] = Marker
				} else {
					x[k] = nil
				}
			case IsMaskedKey(k):
				if s, ok := scalar(val); ok && s != "" {
					x[k] = Last4(s)
				} else {
					x[k] = value(val)
				}
			default:
				x[k] = value(val)
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = value(x[i])
		}
		return x
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
