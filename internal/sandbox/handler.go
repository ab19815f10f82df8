package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// ErrNotImplemented was returned by the API's stubs before the sandbox was
// built. Nothing returns it any more; it is kept for callers that test it.
var ErrNotImplemented = errors.New("sandbox: not implemented yet")

// Status codes the sandbox answers besides TXN and TUP.
const (
	codeAuthCode   = "IAC" // X-Svc-Auth-Code is not 1
	codeAuth       = "UAD" // client id or secret wrong
	codeEndpointIP = "IAN" // X-Svc-Endpoint-Ip missing
	codeOutlet     = "OUI" // X-Svc-Outlet-Id missing or wrong (H5)
	codeParam      = "RPI" // a mandatory field missing or invalid
	codeBalance    = "IAB" // pool balance too low
	codeDuplicate  = "DTX" // externalRef already used
	codeError      = "ERR" // anything else
)

var actCodes = map[string]string{
	codeAuthCode: "CHECK_CREDENTIALS", codeAuth: "CHECK_CREDENTIALS", codeEndpointIP: "CHECK_CREDENTIALS",
	codeOutlet: "CHECK_CREDENTIALS", codeParam: "FIX_REQUEST", codeBalance: "TOPUP_POOL",
	codeDuplicate: "NEW_REFERENCE", codeError: "CONTACT_SUPPORT",
}

type routeKey struct{ method, path string }

var routes = func() map[routeKey]*svcapi.Operation {
	m := map[routeKey]*svcapi.Operation{}
	for _, o := range svcapi.Operations() {
		op, _ := svcapi.Lookup(o.Name)
		if op.Name == svcapi.OpCollectOrders {
			continue // same path as the statement: told apart by isOrder
		}
		m[routeKey{op.Method, op.Path}] = op
	}
	return m
}()

// request is one parsed request.
type request struct {
	op     *svcapi.Operation
	r      *http.Request
	fields map[string]any
	ref    string
}

// ServeHTTP serves every operation of the registry.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := routes[routeKey{r.Method, r.URL.Path}]
	if !ok {
		status := http.StatusNotFound
		for k := range routes {
			if k.path == r.URL.Path {
				status = http.StatusMethodNotAllowed
			}
		}
		s.fail(w, status, codeError, fmt.Sprintf("no operation %s %s", r.Method, r.URL.Path))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		s.fail(w, http.StatusBadRequest, codeError, "request body not readable")
		return
	}
	req := &request{op: op, r: r, fields: map[string]any{}}
	if len(bytes.TrimSpace(body)) > 0 && op.Method != http.MethodGet {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&req.fields); err != nil {
			s.fail(w, http.StatusOK, codeParam, "request body is not a JSON object")
			return
		}
	}
	if op.Name == svcapi.OpStatement && reqText(req.fields, "isOrder", "") == "true" {
		req.op, _ = svcapi.Lookup(svcapi.OpCollectOrders)
	}
	req.ref = reqText(req.fields, "externalRef", "")
	if req.op.Billable && req.ref != "" {
		s.mu.Lock()
		s.calls[req.ref]++
		s.mu.Unlock()
	}
	f := s.roll(req.op)
	if f.latency > 0 {
		t := time.NewTimer(f.latency)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	switch {
	case f.serverError != 0:
		writeServerError(w, f.serverError)
		return
	case f.drop:
		if req.op.Billable && f.dropExecute {
			s.handle(discard{h: http.Header{}}, req, false)
		}
		dropConnection(w)
		return
	}
	s.handle(w, req, f.pending)
}

// handle checks headers and fields and answers the operation. pending turns
// a billable success into a TUP answer (the transaction is executed).
func (s *Sandbox) handle(w http.ResponseWriter, req *request, pending bool) {
	h := req.r.Header
	switch {
	case h.Get(svcapi.HeaderAuthCode) != "1":
		s.fail(w, http.StatusUnauthorized, codeAuthCode, "Invalid auth code: X-Svc-Auth-Code must be 1")
		return
	case h.Get(svcapi.HeaderClientID) != s.creds.ClientID || h.Get(svcapi.HeaderClientSecret) != s.creds.ClientSecret:
		s.fail(w, http.StatusUnauthorized, codeAuth, "Unauthorized: unknown client id or wrong client secret")
		return
	case strings.TrimSpace(h.Get(svcapi.HeaderEndpointIP)) == "":
		s.fail(w, http.StatusOK, codeEndpointIP, "Endpoint IP missing: send X-Svc-Endpoint-Ip")
		return
	case req.op.Headers == svcapi.H5 && h.Get(svcapi.HeaderOutletID) != s.creds.OutletID:
		s.fail(w, http.StatusOK, codeOutlet, "Outlet id missing or unknown: send X-Svc-Outlet-Id")
		return
	}
	if err := req.op.Validate(req.fields); err != nil {
		var ve *svcapi.ValidationError
		msg := err.Error()
		if errors.As(err, &ve) {
			parts := make([]string, len(ve.Fields))
			for i, f := range ve.Fields {
				parts[i] = f.Error()
			}
			msg = strings.Join(parts, "; ")
		}
		s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: "+msg)
		return
	}
	switch req.op.Name {
	case svcapi.OpStatement, svcapi.OpCollectOrders:
		s.serveStatement(w, req)
	case svcapi.OpBillers:
		s.serveBillers(w, req)
	case svcapi.OpAepsBanks:
		s.ok(w, "Bank list fetched", mustJSON(s.w.aepsBanks), "")
	case svcapi.OpVerifyBankAccountBanks:
		s.ok(w, "Bank list fetched", mustJSON(s.w.bankList), "")
	case svcapi.OpTxnStatus:
		s.serveTxnStatus(w, req)
	default:
		s.serveBillable(w, req, pending)
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the sandbox's own values are marshalled
	}
	return b
}

// svcUUID returns the next request reference.
func (s *Sandbox) svcUUID() string {
	s.mu.Lock()
	s.uuids++
	n := s.uuids
	s.mu.Unlock()
	return uuidFrom(mix(uint64(s.opts.Seed), n, 1), mix(uint64(s.opts.Seed), n, 2))
}

func (s *Sandbox) stamp() string { return s.now().In(recon.IST).Format(recon.TimestampLayout) }

// envelope writes a response envelope stamped now; data is raw JSON or nil
// (absent).
func (s *Sandbox) envelope(code, status string, data []byte, orderID string) []byte {
	return buildEnvelope(code, status, data, orderID, s.stamp(), s.svcUUID())
}

// buildEnvelope writes a response envelope. An empty orderID is null.
func buildEnvelope(code, status string, data []byte, orderID, timestamp, uuid string) []byte {
	b := appendEnvelopeHead(make([]byte, 0, len(data)+320), code, status, data != nil)
	b = append(b, data...)
	return appendEnvelopeTail(b, orderID, timestamp, uuid)
}

// appendEnvelopeHead writes an envelope up to its data (the "data" key
// when withData).
func appendEnvelopeHead(b []byte, code, status string, withData bool) []byte {
	b = append(b, `{"statuscode":`...)
	b = appendStr(b, code)
	b = append(b, `,"actcode":`...)
	if a, ok := actCodes[code]; ok {
		b = appendStr(b, a)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"status":`...)
	b = appendStr(b, status)
	if withData {
		b = append(b, `,"data":`...)
	}
	return b
}

// appendEnvelopeTail writes the rest of an envelope after its data.
func appendEnvelopeTail(b []byte, orderID, timestamp, uuid string) []byte {
	b = append(b, `,"timestamp":`...)
	b = appendStr(b, timestamp)
	b = append(b, `,"svc_uuid":`...)
	b = appendStr(b, uuid)
	b = append(b, `,"orderid":`...)
	if orderID == "" {
		b = append(b, "null"...)
	} else {
		b = appendStr(b, orderID)
	}
	return append(b, `,"environment":"SANDBOX","internalCode":null}`...)
}

// pageBuffers hold the answers of report pages (up to a megabyte each)
// between requests, so that serving pages does not make garbage at their
// rate.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// okPage answers a report page: the envelope, with the data that page
// appends to it, written in one buffer.
func (s *Sandbox) okPage(w http.ResponseWriter, status string, page func([]byte) []byte) {
	buf := pageBuffers.Get().(*[]byte)
	b := appendEnvelopeHead((*buf)[:0], svcapi.StatusSuccess, status, true)
	b = page(b)
	b = appendEnvelopeTail(b, "", s.stamp(), s.svcUUID())
	writeJSON(w, http.StatusOK, b)
	*buf = b
	pageBuffers.Put(buf)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client went away
}

func (s *Sandbox) ok(w http.ResponseWriter, status string, data []byte, orderID string) {
	writeJSON(w, http.StatusOK, s.envelope(svcapi.StatusSuccess, status, data, orderID))
}

func (s *Sandbox) fail(w http.ResponseWriter, httpStatus int, code, status string) {
	writeJSON(w, httpStatus, s.envelope(code, status, nil, ""))
}

// discard is a ResponseWriter that throws the answer away (a dropped
// connection whose transaction was executed).
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
