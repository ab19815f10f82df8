package sandbox

import (
	"net/http"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// fate is what the fault dice decided for one request.
type fate struct {
	latency     time.Duration
	serverError int  // HTTP status, 0 for none
	drop        bool // close the connection without an answer
	dropExecute bool // a dropped billable call was executed anyway
	pending     bool // a billable call answers TUP (executed)
}

// roll draws the faults of one request. Every request draws the same
// number of dice, so the sequence of fates depends only on the seed and
// the order of requests.
func (s *Sandbox) roll(op *svcapi.Operation) fate {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	r5xx, rDrop, rExec, rPend, rKind := s.dice.Float64(), s.dice.Float64(), s.dice.Float64(), s.dice.Float64(), s.dice.IntN(3)
	out := fate{latency: f.Latency}
	switch {
	case r5xx < f.ServerError:
		out.serverError = []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}[rKind]
	case rDrop < f.Drop:
		out.drop = true
		out.dropExecute = rExec < 0.5
	case op.Billable && rPend < f.Pending:
		out.pending = true
	}
	return out
}

const badGatewayPage = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>
`

// writeServerError answers a 5xx with an HTML page, plain text or nothing.
func writeServerError(w http.ResponseWriter, status int) {
	switch status {
	case http.StatusBadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		w.Write([]byte(badGatewayPage)) //nolint:errcheck
	case http.StatusServiceUnavailable:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		w.Write([]byte("upstream connect error or disconnect/reset before headers\n")) //nolint:errcheck
	default:
		w.WriteHeader(status) // empty body
	}
}

// dropConnection closes the connection without answering.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // HTTP/2 or a recorder: abort the stream
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}
