package calllog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// lineWire accepts a call-log record (the design's JSONL format) and tells a
// bare response envelope apart by its statuscode. Fields are decoded one by
// one (fields) so that an error names the field and never quotes the line.
type lineWire struct {
	At          json.RawMessage `json:"at"`
	Operation   json.RawMessage `json:"operation"`
	Method      json.RawMessage `json:"method"`
	Path        json.RawMessage `json:"path"`
	ExternalRef json.RawMessage `json:"externalRef"`
	Request     json.RawMessage `json:"request"`
	HTTPStatus  json.RawMessage `json:"httpStatus"`
	LatencyMs   json.RawMessage `json:"latencyMs"`
	Response    json.RawMessage `json:"response"`
	Error       json.RawMessage `json:"error"`
	StatusCode  json.RawMessage `json:"statuscode"`
}

// fields decodes the record's scalar fields into r.
func (w *lineWire) fields(r *recon.Call) error {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *string
	}{{"at", w.At, &r.At}, {"operation", w.Operation, &r.Operation}, {"method", w.Method, &r.Method},
		{"path", w.Path, &r.Path}, {"externalRef", w.ExternalRef, &r.ExternalRef}, {"error", w.Error, &r.Error}} {
		if len(f.raw) == 0 {
			continue
		}
		var s svcapi.String
		if err := json.Unmarshal(f.raw, &s); err != nil {
			return fmt.Errorf("field %s: want a string", f.name)
		}
		*f.dst = string(s)
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *int64
	}{{"httpStatus", w.HTTPStatus, &r.HTTPStatus}, {"latencyMs", w.LatencyMs, &r.LatencyMs}} {
		if len(f.raw) == 0 {
			continue
		}
		var n svcapi.Int
		if err := json.Unmarshal(f.raw, &n); err != nil {
			return fmt.Errorf("field %s: want a whole number", f.name)
		}
		*f.dst = int64(n)
	}
	return nil
}

// lineHash is the dedup key of a line: the SHA-256 (hex) of its bytes
// without surrounding white space.
func lineHash(line []byte) string {
	sum := sha256.Sum256(bytes.TrimSpace(line))
	return hex.EncodeToString(sum[:])
}

// parseLine turns one non-blank line of a call log into a calls row, with
// every secret (the client secret) replaced wherever it appears in the text
// kept (redact.Marker) and sensitive values removed or masked (redactDoc,
// redactCall). The
// error is the reason the line is bad; it never quotes the line itself, nor
// a secret, and what it quotes of a field (a timestamp, an amount) is free
// text: card and Aadhaar numbers masked, control characters escaped.
func parseLine(line []byte, secrets ...string) (recon.Call, error) {
	r, err := decodeLine(line, secrets)
	redactCall(&r, secrets)
	if err != nil {
		return r, errors.New(redact.Text(redact.Scrub(err.Error(), secrets...)))
	}
	return r, nil
}

// readCall reads one trimmed, non-blank line as a calls row: with the lean
// decoder when it can (fastLine), else with the full one (parseLine), whose
// error is the reason the line is bad. Every line the import or the
// Recorder stores passes through here, by either decoder, so that a row
// the database cannot keep is refused here once (storable).
func readCall(line []byte, secrets []string) (recon.Call, error) {
	r, ok := fastLine(line, secrets)
	if !ok {
		var err error
		if r, err = parseLine(line, secrets...); err != nil {
			return r, err
		}
	}
	return r, storable(&r)
}

// storable refuses a row whose text the calls table keeps holds a NUL
// character (a line spells it \u0000): PostgreSQL's text refuses one
// (SQLSTATE 22021), and with it the whole batch, where SQLite stores it.
// On either backend the line is a bad line instead, the error naming the
// field. (The documents kept are JSON text, which writes a NUL escaped.)
func storable(r *recon.Call) error {
	for _, f := range [...]struct{ name, text string }{{"operation", r.Operation}, {"externalRef", r.ExternalRef},
		{"statuscode", r.StatusCode}, {"orderid", r.OrderID}, {"pool.account", r.Pool.Account}} {
		if strings.IndexByte(f.text, 0) >= 0 {
			return fmt.Errorf("field %s holds a NUL character (\\u0000), which the database cannot store", f.name)
		}
	}
	return nil
}

// decodeLine is parseLine before the secrets are scrubbed from the row's text.
func decodeLine(line []byte, secrets []string) (recon.Call, error) {
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("\ufeff"))) // a byte-order mark
	r := recon.Call{Hash: lineHash(line)}
	w, err := readWire(line)
	if err != nil {
		return r, err
	}
	var env *svcapi.Envelope
	var op *svcapi.Operation
	if len(w.StatusCode) > 0 {
		env, err = bareEnvelope(&r, line, secrets)
	} else {
		env, op, err = w.record(&r, secrets)
	}
	if err != nil {
		return r, err
	}
	if env != nil {
		setEnvelope(&r, env)
	}
	if err := setTime(&r, env); err != nil {
		return r, err
	}
	r.Outcome = outcome(env, op, r.Error)
	if env != nil && env.OK() && carriesPool(op, env) {
		if err := setPool(&r, op, env); err != nil {
			return r, err
		}
	}
	if op != nil && !op.LogsData() && r.Response != nil {
		r.Response = svcapi.WithoutData(r.Response)
	}
	return r, nil
}

// readWire reads a trimmed line as a call record (or a bare envelope,
// told apart by its statuscode); the error says why it is neither, without
// quoting it.
func readWire(line []byte) (lineWire, error) {
	var w lineWire
	switch {
	case len(line) == 0:
		return w, errors.New("no JSON object, only a byte-order mark")
	case line[0] == '[' && json.Valid(line):
		return w, errors.New("a JSON array, not an object (a line must be one JSON object)")
	case line[0] != '{':
		return w, errors.New("not JSON (a line must be one JSON object)")
	}
	if err := json.Unmarshal(line, &w); err != nil {
		var se *json.SyntaxError
		switch {
		case strings.Contains(err.Error(), "unexpected end of JSON input"):
			return w, errors.New("truncated JSON object")
		case errors.As(err, &se):
			return w, fmt.Errorf("malformed JSON: %s", jsonReason(err))
		}
		return w, fmt.Errorf("unreadable call record: %s", jsonReason(err))
	}
	return w, nil
}

// bareEnvelope reads a line that is a response envelope (the operation is
// unknown) and keeps it, redacted, as the call's response.
func bareEnvelope(r *recon.Call, line []byte, secrets []string) (*svcapi.Envelope, error) {
	env, err := svcapi.DecodeEnvelope(line)
	if err != nil {
		return nil, envelopeReason(err)
	}
	r.Response = redactDoc(line, secrets)
	return env, nil
}

// record reads a call record's fields and documents into r: its
// operation (nil when unknown), and the envelope of its response (nil
// when it has none: an error, or a body that was not JSON).
func (w *lineWire) record(r *recon.Call, secrets []string) (*svcapi.Envelope, *svcapi.Operation, error) {
	if err := w.fields(r); err != nil {
		return nil, nil, err
	}
	if r.Operation == "" && r.At == "" && len(w.Response) == 0 && r.Error == "" {
		return nil, nil, errors.New("no statuscode: neither a call record nor a response envelope")
	}
	op, _ := svcapi.Lookup(r.Operation)
	if len(w.Request) > 0 && string(w.Request) != "null" {
		r.Request = redactDoc(w.Request, secrets)
	}
	var env *svcapi.Envelope
	resp := bytes.TrimSpace(w.Response)
	switch {
	case len(resp) == 0 || string(resp) == "null":
	case resp[0] == '{':
		e, err := svcapi.DecodeEnvelope(resp)
		if err != nil {
			return nil, op, fmt.Errorf("response: %w", envelopeReason(err))
		}
		env = e
		r.Response = redactDoc(resp, secrets)
	default:
		// A body that was not JSON, logged as a string: no envelope.
		r.Response = redactDoc(resp, secrets)
	}
	if env == nil && r.Error == "" {
		return nil, op, errors.New("no response envelope and no error")
	}
	return env, op, nil
}

// setEnvelope copies the envelope's fields a calls row keeps, and
// data.externalRef when the record named none.
func setEnvelope(r *recon.Call, env *svcapi.Envelope) {
	r.StatusCode = string(env.StatusCode)
	r.ActCode = string(env.ActCode)
	r.Status = string(env.Status)
	r.SvcUUID = string(env.SvcUUID)
	r.OrderID = string(env.OrderID)
	if r.ExternalRef == "" {
		r.ExternalRef = dataExternalRef(env)
	}
}

// setPool reads the pool debit of a successful answer into r.Pool (none
// is fine unless op answers with one) and checks its values (checkPool).
func setPool(r *recon.Call, op *svcapi.Operation, env *svcapi.Envelope) error {
	p, err := svcapi.ExtractPool(env)
	switch {
	case errors.Is(err, svcapi.ErrNoPool):
		if op != nil && op.Pool != svcapi.PoolNone {
			return fmt.Errorf("envelope without pool (%s answers with a pool object)", op.Name)
		}
		return nil
	case err != nil:
		return fmt.Errorf("%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "data.pool: "), "decode data: "))
	}
	r.Pool.Account = p.Account
	r.Pool.Shape = string(p.Shape)
	r.Pool.Mode = p.Mode
	r.Pool.Opening = recon.Money(p.Opening)
	r.Pool.Amount = recon.Money(p.Amount)
	r.Pool.Closing = recon.Money(p.Closing)
	if err := checkPool(p.Shape, r.Pool); err != nil {
		r.Pool = recon.PoolEntry{}
		return err
	}
	return nil
}

// carriesPool says whether a successful envelope may carry a pool debit:
// read-only operations never debit, and a transaction-status answer reports
// an earlier call's debit rather than making one.
func carriesPool(op *svcapi.Operation, env *svcapi.Envelope) bool {
	if op != nil {
		return op.Billable
	}
	return !bytes.Contains(env.Data, []byte(`"transactionStatusCode"`))
}

// outcome classifies a call: TXN success; TUP pending; a billable (or
// unknown) operation with an error and no envelope pending; else failed.
func outcome(env *svcapi.Envelope, op *svcapi.Operation, errText string) recon.CallOutcome {
	switch {
	case env != nil && env.OK():
		return recon.CallSuccess
	case env != nil && env.Pending():
		return recon.CallPending
	case env == nil && errText != "" && (op == nil || op.Billable):
		return recon.CallPending
	}
	return recon.CallFailed
}

// setTime sets r.TS from the envelope timestamp, else from "at", in IST.
func setTime(r *recon.Call, env *svcapi.Envelope) error {
	if env != nil && strings.TrimSpace(string(env.Timestamp)) != "" {
		t, err := svcapi.ParseTime(string(env.Timestamp))
		if err != nil {
			return fmt.Errorf("timestamp %q: unknown format (want YYYY-MM-DD HH:MM:SS)", clip(string(env.Timestamp), 40))
		}
		r.TS = t.In(recon.IST).Format(recon.TimestampLayout)
		return nil
	}
	if strings.TrimSpace(r.At) == "" {
		return errors.New("no time: neither a response timestamp nor \"at\"")
	}
	t, err := svcapi.ParseTime(r.At)
	if err != nil {
		return fmt.Errorf("at %q: unknown timestamp format (want RFC 3339)", clip(r.At, 40))
	}
	r.TS = t.In(recon.IST).Format(recon.TimestampLayout)
	return nil
}

// dataExternalRef returns data.externalRef of an envelope, or "".
func dataExternalRef(env *svcapi.Envelope) string {
	if len(env.Data) == 0 || env.Data[0] != '{' || !bytes.Contains(env.Data, []byte(`"externalRef"`)) {
		return ""
	}
	var d struct {
		ExternalRef svcapi.String `json:"externalRef"`
	}
	if json.Unmarshal(env.Data, &d) != nil {
		return ""
	}
	return string(d.ExternalRef)
}

func envelopeReason(err error) error {
	if errors.Is(err, svcapi.ErrNotEnvelope) {
		return errors.New("no statuscode: not a response envelope")
	}
	if strings.Contains(err.Error(), "unexpected end of JSON input") {
		return errors.New("truncated JSON object")
	}
	return errors.New(jsonReason(err))
}

// jsonReason shortens a decode error to a reason without the line's text.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s: want %s, got %s", te.Field, te.Type, te.Value)
	}
	return clip(err.Error(), 200)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// checkPool refuses pool values no pool account can have: a negative
// amount on a DR pool object, a balance or amount with more than
// maxIntDigits integer digits or more than maxDecimals decimals. It reads
// the entry's exact text (recon.Money: trailing zeros beyond two decimals
// dropped). The error names the field as the pool object spells it.
func checkPool(shape svcapi.PoolShape, e recon.PoolEntry) error {
	names := [3]string{"openingBal", "amount", "closingBal"}
	switch shape {
	case svcapi.PoolB:
		names = [3]string{"openingBalance", "paymentAmount", "closingBalance"}
	case svcapi.PoolData:
		names = [3]string{"openingBalance", "payableValue", "closingBalance"}
	}
	if strings.HasPrefix(e.Amount, "-") && strings.EqualFold(strings.TrimSpace(e.Mode), "DR") {
		return fmt.Errorf("pool %s %s is negative on a DR (debit) pool object", names[1], clip(e.Amount, 40))
	}
	for i, v := range [3]string{e.Opening, e.Amount, e.Closing} {
		whole, frac, _ := strings.Cut(strings.TrimPrefix(v, "-"), ".")
		if len(whole) > maxIntDigits {
			return fmt.Errorf("pool %s has more than %d integer digits: no pool holds that much", names[i], maxIntDigits)
		}
		if len(strings.TrimRight(frac, "0")) > maxDecimals {
			return fmt.Errorf("pool %s %s has more than %d decimals", names[i], clip(v, 40), maxDecimals)
		}
	}
	return nil
}

// The limits of a pool value (checkPool): the bound of an amount.
const (
	maxIntDigits = recon.MaxAmountDigits
	maxDecimals  = recon.MaxAmountDecimals
)

// redactCall hides, in a row both decoders made (parseLine, fastLine),
// what no text of it may keep: every secret replaced (scrubberOf), card and
// Aadhaar numbers masked to their last four in its free text (redact.
// Numbers), Aadhaar numbers in its documents masked (redact.
// AadhaarJSONExcept; the documents' sensitive keys and secrets are
// redactDoc's) but in the values of matchKeys.
//
// The row's ids, externalRef, orderid and pool account, keep their
// digits, as the statement records they are matched with keep theirs (a
// transaction's svcOrderId and clientOrderId, a pool's account): an id
// is no Aadhaar data, and masking one that happens to be 12 digits
// passing the Verhoeff check (one such number in ten) would leave its call
// unmatched, or two ids ending alike taken for one, in finance's
// reconciliation.
func redactCall(r *recon.Call, secrets []string) {
	if anySecret(secrets) {
		sc := scrubberOf(secrets)
		for _, f := range []*string{&r.At, &r.TS, &r.Operation, &r.Method, &r.Path, &r.ExternalRef, &r.Error,
			&r.StatusCode, &r.ActCode, &r.Status, &r.SvcUUID, &r.OrderID, &r.Pool.Account, &r.Pool.Mode} {
			*f = sc.String(*f)
		}
	}
	for _, f := range []*string{&r.At, &r.Operation, &r.Method, &r.Path, &r.Error, &r.StatusCode, &r.ActCode,
		&r.Status, &r.SvcUUID, &r.Pool.Mode} {
		*f = redact.Numbers(*f)
	}
	r.Request = redact.AadhaarJSONExcept(r.Request, matchKeys...)
	r.Response = redact.AadhaarJSONExcept(r.Response, matchKeys...)
}

// matchKeys are the keys of a document a calls row keeps (a
// transaction-status look-up's answer) whose values stay as sent, Aadhaar-
// shaped or not (redactCall): the ids the check resolves a pending call to
// and matches it by (orderid, externalRef, the pool's account and
// referenceId) and the amounts it reads (txnValue, the pool's).
var matchKeys = append([]string{"orderid", "externalRef", "txnValue"}, poolKeys[:]...)

// scrubbers holds a compiled Scrubber per list of secrets (joined by
// NUL): an import scrubs every text of every line with the same one, and
// compiling its spellings for each text cost a third of the decoding.
var scrubbers sync.Map

// scrubberOf returns the Scrubber of secrets, compiled once.
func scrubberOf(secrets []string) *redact.Scrubber {
	key := strings.Join(secrets, "\x00")
	if s, ok := scrubbers.Load(key); ok {
		return s.(*redact.Scrubber)
	}
	s, _ := scrubbers.LoadOrStore(key, redact.NewScrubber(secrets...))
	return s.(*redact.Scrubber)
}

func anySecret(secrets []string) bool {
	for _, s := range secrets {
		if s != "" {
			return true
		}
	}
	return false
}

// needsRedact reports whether a JSON document may hold something to
// redact: a secret, a quoted string that is a sensitive key (redact.
// IsSensitiveKey: any case, '_' and '-' ignored), or an escape that could
// spell either. A document without is stored as it is, which spares a full
// decode and re-encode per line.
func needsRedact(doc []byte, secrets []string) bool {
	escaped := bytes.IndexByte(doc, '\\') >= 0
	for _, s := range secrets {
		if s != "" && (escaped || bytes.Contains(doc, []byte(s))) {
			return true
		}
	}
	return redact.MayHoldSensitiveKey(doc)
}

// redactDoc returns the document with sensitive values removed or masked
// and the secrets replaced (svcapi.RedactJSON), skipping the work when
// nothing to redact can be in it.
func redactDoc(doc []byte, secrets []string) []byte {
	if !needsRedact(doc, secrets) {
		return bytes.Clone(doc)
	}
	return svcapi.RedactJSON(doc, secrets...)
}
