package svcapi

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
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
	}{r.At.In(recon.IST).Format(CallTimeLayout), plain(r)})
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

// Redacted is the text that replaces a removed value (redact.Marker).
const Redacted = redact.Marker

// Redact returns a copy of a JSON document with sensitive values removed
// (RedactedKeys, at any depth) and card and Aadhaar numbers masked to their
// last four characters (MaskedKeys). Each extra secret (the client secret)
// is replaced wherever it appears as a substring. A document that is not
// JSON is returned with only the secrets replaced. See redact.JSON.
func Redact(doc []byte, secrets ...string) []byte { return redact.JSON(doc, secrets...) }

// RedactJSON is Redact for a field that must hold JSON (a CallRecord's
// Request or Response): a document that is not valid JSON (an HTML error
// page, a truncated body) is returned as a JSON string of its scrubbed text.
func RedactJSON(doc []byte, secrets ...string) json.RawMessage {
	return redact.RawJSON(doc, secrets...)
}

// IsRedactedKey reports whether values under this key (any case) are
// removed before anything is written (RedactedKeys).
func IsRedactedKey(k string) bool { return redact.IsRemovedKey(k) }

// MaskLast4 masks all but the last four characters of s with X (redact.Last4).
func MaskLast4(s string) string { return redact.Last4(s) }
