package svcapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/svcrecon/svcrecon/internal/jsonscan"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
)

// Config is what a Client needs. Fields map to the environment variables
// named in their comments; main packages fill them from the environment and
// flags.
type Config struct {
	BaseURL      string // SVC_BASE_URL: https, or http on a loopback address
	ClientID     string // SVC_CLIENT_ID
	ClientSecret string // SVC_CLIENT_SECRET
	OutletID     string // SVC_OUTLET_ID: needed by H5 operations only
	EndpointIP   string // SVC_ENDPOINT_IP

	Timeout    time.Duration // per HTTP exchange; default 60s
	MaxRetries int           // read-only operations; default 4 (5 attempts); negative: none
	RetryBase  time.Duration // first back-off; doubles up to RetryMax; default 250ms
	RetryMax   time.Duration // default 8s
	Rate       float64       // calls per second for all calls together; 0: unlimited
	Burst      int           // default 1 (or the rate, rounded up)
	MaxBody    int64         // largest answer read, in bytes; default DefaultMaxBody

	HTTPClient *http.Client     // optional; default an own client with Timeout
	Logger     *slog.Logger     // optional; default discards
	Recorders  []Recorder       // receive every call, redacted
	Now        func() time.Time // optional clock; default time.Now
	// Scrubber removes the secrets from every answer before anything
	// reads it, from the call records and from the client's log lines; the
	// client adds ClientSecret to it, and each request's sensitive values
	// for its own call. Optional: default one of ClientSecret alone.
	Scrubber *redact.Scrubber
}

// Validate checks the settings a client cannot work without, and refuses
// the values it could not send as they are: a base URL with a bad port,
// credentials, a query or a fragment; a control or non-ASCII character in
// a header's value (client id, secret, outlet id); an endpoint IP that is
// not an IP. The error is a *ConfigError naming the environment variable;
// it never quotes the secret.
func (c Config) Validate() error {
	// Every missing setting at once, so that a new user fixes them in one go.
	var missing []string
	for _, s := range []struct{ v, name string }{
		{c.BaseURL, "SVC_BASE_URL"}, {c.ClientID, "SVC_CLIENT_ID"}, {c.ClientSecret, "SVC_CLIENT_SECRET"}, {c.EndpointIP, "SVC_ENDPOINT_IP"},
	} {
		if s.v == "" {
			missing = append(missing, s.name)
		}
	}
	if len(missing) > 1 {
		return &ConfigError{strings.Join(missing, ", "), "not set (export them, or try --sandbox)"}
	}
	if c.BaseURL == "" {
		return &ConfigError{"SVC_BASE_URL", "not set (the service's base URL, e.g. https://api.example.com)"}
	}
	if err := checkBaseURL(c.BaseURL); err != nil {
		return err
	}
	for _, s := range []struct{ v, name string }{
		{c.ClientID, "SVC_CLIENT_ID"}, {c.ClientSecret, "SVC_CLIENT_SECRET"}, {c.EndpointIP, "SVC_ENDPOINT_IP"},
	} {
		if s.v == "" {
			return &ConfigError{s.name, "not set (issued with the service account)"}
		}
	}
	return c.checkValues()
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Client calls the service. It is safe for concurrent use.
type Client struct {
	cfg     Config
	base    *url.URL
	http    *http.Client
	limiter *rate.Limiter
	log     *slog.Logger
	now     func() time.Time
	scrub   *redact.Scrubber
}

// New returns a client for cfg, or a *ConfigError.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 250 * time.Millisecond
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 8 * time.Second
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	c := &Client{cfg: cfg, http: cfg.HTTPClient, log: cfg.Logger, now: cfg.Now, scrub: cfg.Scrubber}
	if c.scrub == nil {
		c.scrub = redact.NewScrubber()
	}
	c.scrub.Learn(cfg.ClientSecret)
	c.base, _ = url.Parse(cfg.BaseURL)
	if c.http == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		// Redirects are not followed: a billable request must reach the
		// service once, at the address configured.
		c.http = &http.Client{Timeout: cfg.Timeout, Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	limit, burst := rate.Inf, cfg.Burst
	if cfg.Rate > 0 {
		limit = rate.Limit(cfg.Rate)
		if burst <= 0 {
			burst = max(1, int(cfg.Rate+0.999))
		}
	}
	c.limiter = rate.NewLimiter(limit, max(burst, 1))
	return c, nil
}

// Secret returns the client secret, for callers that must scrub it from
// their own output.
func (c *Client) Secret() string { return c.cfg.ClientSecret }

// Scrubber returns the scrubber the client removes secrets with (the
// client secret among them), for callers that write what they got from it.
func (c *Client) Scrubber() *redact.Scrubber { return c.scrub }

// Log attribute keys.
const (
	LogOp      = "op"
	LogAttempt = "attempt"
	LogRef     = "externalRef"
	LogStatus  = "statuscode"
)

// Do calls the named operation with a request body (a struct, a map, or raw
// JSON bytes; nil for GET operations). The body is validated against the
// operation's schema first (*ValidationError, nothing sent).
//
// It returns the envelope on success (TXN). Otherwise the error is:
// *Error for a failure statuscode (the envelope is returned too);
// a *PendingError (errors.Is ErrPending) for a billable call whose outcome is
// unknown — TUP, time-out, connection lost after sending, unreadable body;
// a *ResponseError for a read-only call whose body stayed unreadable after
// retries; or the transport error.
func (c *Client) Do(ctx context.Context, opName string, body any) (*Envelope, error) {
	op, ok := Lookup(opName)
	if !ok {
		return nil, fmt.Errorf("unknown operation %q", opName)
	}
	payload, fields, err := encodeBody(body)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", op.Name, err)
	}
	if payload == nil && op.Method != http.MethodGet {
		payload = []byte("{}") // a POST always carries a JSON object
	}
	if err := op.Validate(fields); err != nil {
		return nil, err
	}
	if op.Headers == H5 && c.cfg.OutletID == "" {
		return nil, &ConfigError{"SVC_OUTLET_ID", "not set (needed by " + op.Name + ")"}
	}
	ref := ""
	if v, ok := GetPath(fields, "externalRef"); ok {
		ref, _ = text(v)
	}
	attempts := 1
	if op.ReadOnly() && c.cfg.MaxRetries > 0 {
		attempts += c.cfg.MaxRetries
	}
	// What the service may quote back and must go nowhere: the client's
	// secrets and every sensitive value of this request.
	scr := c.scrub
	if vals := redact.SensitiveValues(payload); len(vals) > 0 {
		scr = scr.With(vals...)
	}
	var lastErr error
	for attempt := 1; attempt <= attempts; attempt++ {
		if attempt > 1 {
			if err := c.sleep(ctx, attempt-1); err != nil {
				return nil, fmt.Errorf("%s: %w (last error: %v)", op.Name, err, lastErr)
			}
		}
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
		env, retry, err := c.once(ctx, op, payload, ref, scr)
		if err == nil || !retry || !op.ReadOnly() {
			return env, err
		}
		lastErr = err
		c.log.WarnContext(ctx, "retrying read-only call", LogOp, op.Name, LogAttempt, attempt, "error", scr.Text(err.Error()))
	}
	return nil, lastErr
}

func encodeBody(body any) ([]byte, map[string]any, error) {
	var payload []byte
	switch b := body.(type) {
	case nil:
		return nil, map[string]any{}, nil
	case []byte:
		payload = b
	case json.RawMessage:
		payload = b
	default:
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, nil, err
		}
	}
	fields := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		return nil, nil, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	if dec.More() {
		return nil, nil, errors.New("request body has data after its JSON object")
	}
	return payload, fields, nil
}

func (c *Client) sleep(ctx context.Context, n int) error {
	d := c.cfg.RetryBase << min(n-1, 16)
	if d > c.cfg.RetryMax || d <= 0 {
		d = c.cfg.RetryMax
	}
	d = d/2 + rand.N(d/2+1) // jitter
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// once makes one HTTP exchange. retry says whether a read-only call may try
// again.
//
// scr removes the secrets from the answer as soon as it is read, before
// anything decodes, keeps or returns a part of it, and from the request
// and the error the call log keeps.
func (c *Client) once(ctx context.Context, op *Operation, payload []byte, ref string, scr *redact.Scrubber) (env *Envelope, retry bool, err error) {
	start := c.now()
	rec := &CallRecord{At: start, Operation: op.Name, Method: op.Method, Path: op.Path, ExternalRef: ref,
		Request: scr.RawJSON(payload)}
	defer func() {
		rec.LatencyMs = c.now().Sub(start).Milliseconds()
		if err != nil {
			rec.Error = scr.Text(err.Error())
		}
		for _, r := range c.cfg.Recorders {
			if rerr := r.Record(ctx, rec); rerr != nil {
				c.log.ErrorContext(ctx, "call log not written", LogOp, op.Name, LogRef, ref, "error", rerr.Error())
			}
		}
	}()

	req, err := c.newRequest(ctx, op, payload)
	if err != nil {
		return nil, false, err
	}
	var wrote atomic.Bool // set on the transport's writing goroutine
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) },
	}))
	resp, err := c.http.Do(req)
	if err != nil {
		err = fmt.Errorf("%s: %w", op.Name, err)
		if op.Billable && wrote.Load() {
			return nil, false, &PendingError{Op: op.Name, ExternalRef: ref, Reason: "no answer after the request was sent", Err: err}
		}
		return nil, ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	rec.HTTPStatus = resp.StatusCode
	raw, rerr := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBody+1))
	if rerr == nil && int64(len(raw)) > c.cfg.MaxBody {
		// Past the cap nothing is decoded, and only the head is kept.
		rec.Response = c.headOnly(raw, fmt.Sprintf("answer larger than the %d-byte cap (--max-body); not read", c.cfg.MaxBody), scr)
		err := fmt.Errorf("answer larger than %d bytes (--max-body)", c.cfg.MaxBody)
		if op.Billable {
			return nil, false, &PendingError{Op: op.Name, ExternalRef: ref, HTTPStatus: resp.StatusCode,
				Reason: fmt.Sprintf("answer too large (HTTP %d)", resp.StatusCode), Err: err}
		}
		return nil, true, &ResponseError{Op: op.Name, HTTPStatus: resp.StatusCode, Err: err}
	}
	// Every field of every answer, whatever its spelling of a secret.
	raw = scr.Bytes(raw)
	split := splitData(raw)
	if len(raw) > 0 {
		rec.Response = c.loggedResponse(op, raw, split, scr)
	}
	if rerr != nil {
		if op.Billable {
			return nil, false, &PendingError{Op: op.Name, ExternalRef: ref, HTTPStatus: resp.StatusCode,
				Reason: fmt.Sprintf("answer broken off (HTTP %d)", resp.StatusCode), Err: rerr}
		}
		return nil, true, &ResponseError{Op: op.Name, HTTPStatus: resp.StatusCode, Err: fmt.Errorf("body broken off: %w", rerr)}
	}
	env, derr := decodeEnvelope(raw, split)
	if derr != nil {
		if op.Billable {
			return nil, false, &PendingError{Op: op.Name, ExternalRef: ref, HTTPStatus: resp.StatusCode,
				Reason: fmt.Sprintf("unreadable answer (HTTP %d)", resp.StatusCode), Err: derr}
		}
		return nil, true, &ResponseError{Op: op.Name, HTTPStatus: resp.StatusCode, Err: derr}
	}
	switch {
	case env.OK():
		if err := pageFault(op, resp.StatusCode, env); err != nil {
			return nil, true, err // a fault of the page: retried, never its end
		}
		return env, false, nil
	case env.Pending():
		return env, false, &PendingError{Op: op.Name, ExternalRef: ref, HTTPStatus: resp.StatusCode,
			Reason: "service answered TUP", Envelope: env}
	}
	apiErr := &Error{Op: op.Name, HTTPStatus: resp.StatusCode, StatusCode: string(env.StatusCode),
		ActCode: string(env.ActCode), Status: string(env.Status), SvcUUID: string(env.SvcUUID)}
	return env, resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests, apiErr
}

func (c *Client) newRequest(ctx context.Context, op *Operation, payload []byte) (*http.Request, error) {
	u := c.base.JoinPath(op.Path)
	var body io.Reader
	if op.Method != http.MethodGet && payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, op.Method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	h := req.Header
	h.Set("Accept", "application/json")
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	h.Set(HeaderAuthCode, "1")
	h.Set(HeaderClientID, c.cfg.ClientID)
	h.Set(HeaderClientSecret, c.cfg.ClientSecret)
	h.Set(HeaderEndpointIP, c.cfg.EndpointIP)
	if op.Headers == H5 {
		h.Set(HeaderOutletID, c.cfg.OutletID)
	}
	if op.HashHeader {
		ts := strconv.FormatInt(c.now().UnixMilli(), 10)
		sum := sha256.Sum256(payload)
		h.Set(HeaderRequestTimestamp, ts)
		// The hash's computation is not shown in the spec and its check is
		// OFF: send client id, timestamp and the body's SHA-256.
		h.Set(HeaderRequestHash, c.cfg.ClientID+"|"+ts+"|"+hex.EncodeToString(sum[:]))
		h.Set(HeaderHashCheck, "OFF")
	}
	return req, nil
}

// Header names of spec §5.
const (
	HeaderAuthCode         = "X-Svc-Auth-Code"
	HeaderClientID         = "X-Svc-Client-Id"
	HeaderClientSecret     = "X-Svc-Client-Secret"
	HeaderEndpointIP       = "X-Svc-Endpoint-Ip"
	HeaderOutletID         = "X-Svc-Outlet-Id"
	HeaderRequestHash      = "X-Svc-Request-Hash"
	HeaderRequestTimestamp = "X-Svc-Request-Timestamp"
	HeaderHashCheck        = "X-Svc-Hash-Check"
)

// Call calls an operation and decodes its data into a new D. On a failure
// the envelope (when there was one) and the error are returned.
func Call[D any](ctx context.Context, c *Client, op string, req any) (*Envelope, *D, error) {
	env, err := c.Do(ctx, op, req)
	if err != nil {
		return env, nil, err
	}
	d := new(D)
	if err := env.DecodeData(d); err != nil {
		return env, nil, fmt.Errorf("%s: %w", op, err)
	}
	return env, d, nil
}

// TxnStatus looks up the outcome of a billable call by its externalRef and
// the IST day it was made. The returned status is TXN (success), TUP (still
// pending) or another code (failed).
func (c *Client) TxnStatus(ctx context.Context, day time.Time, externalRef string) (*TxnStatusData, error) {
	_, d, err := Call[TxnStatusData](ctx, c, OpTxnStatus, TxnStatusRequest{
		TransactionDate: day.In(recon.IST).Format(time.DateOnly), ExternalRef: externalRef})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// loggedResponse is the response as the call log keeps it: redacted, and
// without its data member when the operation does not log it
// (Operation.LogsData). Nothing is computed when nothing records. A body
// the lean scanner split (valid JSON, its data found) is not scanned again.
func (c *Client) loggedResponse(op *Operation, raw []byte, split dataSplit, scr *redact.Scrubber) json.RawMessage {
	if len(c.cfg.Recorders) == 0 {
		return nil
	}
	switch {
	case split.ok && !op.LogsData():
		raw = split.rest
	case split.ok:
	case len(raw) > loggedHead && !json.Valid(raw):
		return c.headOnly(raw, fmt.Sprintf("not JSON, %d bytes; only the first %d kept", len(raw), loggedHead), scr)
	case !op.LogsData():
		raw = WithoutData(raw)
	}
	return scr.RawJSON(raw)
}

// DefaultMaxBody is the largest answer a client reads unless Config.MaxBody
// says otherwise: 32 MiB, far above any page of the service.
const DefaultMaxBody = 32 << 20

// loggedHead is how much of an answer that is too large or not JSON the
// call log keeps.
const loggedHead = 1024

// headOnly is what the call log keeps of an answer it cannot keep whole:
// a JSON object with a note and the first KiB as text, secrets scrubbed.
func (c *Client) headOnly(raw []byte, note string, scr *redact.Scrubber) json.RawMessage {
	if len(c.cfg.Recorders) == 0 {
		return nil
	}
	// Scrub a little past the cut, so that a secret straddling it goes whole.
	longest := 0
	for _, sec := range scr.Values() {
		longest = max(longest, len(sec))
	}
	// A spelling may be longer than the value itself (escaped, base64).
	head := scr.String(string(raw[:min(len(raw), loggedHead+6*longest)]))
	head = strings.ToValidUTF8(head[:min(len(head), loggedHead)], "\uFFFD")
	b, err := json.Marshal(struct {
		Note string `json:"note"`
		Head string `json:"head"`
	}{note, head})
	if err != nil {
		return nil
	}
	return b
}

// WithoutData returns a response envelope without its data member; a body
// that is not a JSON object, or has no data, is returned as it is.
func WithoutData(resp []byte) []byte {
	if !bytes.Contains(resp, []byte(`"data"`)) {
		return resp
	}
	if rest, _, ok := jsonscan.Cut(resp, "data"); ok {
		return rest
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(resp, &m) != nil {
		return resp
	}
	if _, ok := m["data"]; !ok {
		return resp
	}
	delete(m, "data")
	b, err := json.Marshal(m)
	if err != nil {
		return resp
	}
	return b
}
