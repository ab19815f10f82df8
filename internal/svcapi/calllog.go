package svcapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"
)

// CallRecord is one line of the call log (design: the call log). Request and
// Response are redacted before a record is handed to a Recorder.
type CallRecord struct {
	At          time.Time       `json:"at"`
	Operation   string          `json:"operation"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	ExternalRef string          `json:"externalRef,omitempty"`
	Request     json.RawMessage `json:"request,omitempty"`
	HTTPStatus  int             `json:"httpStatus"`
	LatencyMs   int64           `json:"latencyMs"`
	Response    json.RawMessage `json:"response,omitempty"`
	Error       string          `json:"error"`
}

// CallTimeLayout is how CallRecord.At is written: IST with milliseconds.
const CallTimeLayout = "2006-01-02T15:04:05.000-07:00"

// MarshalJSON writes At in IST with milliseconds.
func (r CallRecord) MarshalJSON() ([]byte, error) {
	type plain CallRecord
	return json.Marshal(struct {
		At string `json:"at"`
		plain
	}{r.At.In(IST).Format(CallTimeLayout), plain(r)})
}

// Recorder receives every call the client makes, already redacted.
type Recorder interface {
	Record(ctx context.Context, rec *CallRecord) error
}

// JSONLRecorder writes call records as JSON lines. Safe for concurrent use.
type JSONLRecorder struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONLRecorder returns a recorder writing one line per call to w.
func NewJSONLRecorder(w io.Writer) *JSONLRecorder { return &JSONLRecorder{w: w} }

// Record writes rec as one line.
func (r *JSONLRecorder) Record(_ context.Context, rec *CallRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err = r.w.Write(b)
	return err
}

// Redacted is the text that replaces a removed value.
const Redacted = "[REDACTED]"

// Redact returns a copy of a JSON document with sensitive values removed
// (RedactedKeys, at any depth) and card and Aadhaar numbers masked to their
// last four characters (MaskedKeys). Each extra secret (the client secret)
// is replaced wherever it appears as a substring. A document that is not
// JSON is returned with only the secrets replaced.
func Redact(doc []byte, secrets ...string) []byte {
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
		if b, err := json.Marshal(redactValue(v, secrets)); err == nil {
			out = b
		}
	}
	return scrub(out, secrets...)
}

// RedactJSON is Redact for a field that must hold JSON (a CallRecord's
// Request or Response): a document that is not valid JSON (an HTML error
// page, a truncated body) is returned as a JSON string of its scrubbed text.
func RedactJSON(doc []byte, secrets ...string) json.RawMessage {
	out := Redact(doc, secrets...)
	if len(out) == 0 || json.Valid(out) {
		return out
	}
	b, _ := json.Marshal(ScrubString(string(doc), secrets...))
	return b
}

func scrub(b []byte, secrets ...string) []byte {
	for _, s := range secrets {
		if s != "" && bytes.Contains(b, []byte(s)) {
			b = bytes.ReplaceAll(b, []byte(s), []byte(Redacted))
		}
	}
	return b
}

// ScrubString replaces each secret in s.
func ScrubString(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}

func keyIn(k string, keys []string) bool {
	for _, x := range keys {
		if strings.EqualFold(k, x) {
			return true
		}
	}
	return false
}

// IsRedactedKey reports whether values under this key (any case) are
// removed before anything is written (RedactedKeys).
func IsRedactedKey(k string) bool { return keyIn(k, RedactedKeys) }

// IsMaskedKey reports whether values under this key (any case) are masked
// to their last four characters (MaskedKeys).
func IsMaskedKey(k string) bool { return keyIn(k, MaskedKeys) }

func redactValue(v any, secrets []string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if sk := ScrubString(k, secrets...); sk != k {
				delete(x, k)
				k = sk
			}
			switch {
			case IsRedactedKey(k):
				if val != nil {
					x[k] = Redacted
				} else {
					x[k] = nil
				}
			case IsMaskedKey(k):
				if s, ok := text(val); ok && s != "" {
					x[k] = MaskLast4(ScrubString(s, secrets...))
				} else {
					x[k] = redactValue(val, secrets)
				}
			default:
				x[k] = redactValue(val, secrets)
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], secrets)
		}
		return x
	case string:
		return ScrubString(x, secrets...)
	}
	return v
}

// MaskLast4 masks all but the last four characters of s with X.
func MaskLast4(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return strings.Repeat("X", len(r))
	}
	return strings.Repeat("X", len(r)-4) + string(r[len(r)-4:])
}
