package svcapi

import (
	"errors"
	"fmt"

	"github.com/svcrecon/svcrecon/internal/redact"
)

// ErrPending is matched (errors.Is) by every error that leaves a billable
// call's outcome unknown: a TUP answer, a time-out or connection loss after
// the request was sent, an unreadable body. Such a call must not be sent
// again; look its outcome up with txnStatus.
var ErrPending = errors.New("pending: outcome unknown, look it up with txnStatus")

// Error is a call the service answered with a statuscode other than TXN or
// TUP: the call failed and nothing was charged.
type Error struct {
	Op         string
	HTTPStatus int
	StatusCode string
	ActCode    string
	Status     string
	SvcUUID    string
}

// Error is the failure as free text (redact.Text): the service's fields
// with their control characters escaped and card and Aadhaar numbers
// masked, so that it may be printed, logged and stored as it is. (The
// client removed the secrets from the answer before it was decoded.)
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s: %s", e.Op, e.StatusCode, e.Status)
	if e.ActCode != "" {
		s += " (actcode " + e.ActCode + ")"
	}
	if e.SvcUUID != "" {
		s += " [svc_uuid " + e.SvcUUID + "]"
	}
	return redact.Text(s)
}

// PendingError describes why a billable call is pending. It matches
// ErrPending with errors.Is and unwraps to its cause.
type PendingError struct {
	Op          string
	ExternalRef string
	Reason      string
	HTTPStatus  int       // the HTTP status of the answer; 0 when none came
	Envelope    *Envelope // the TUP answer, when there was one
	Err         error     // the transport or decode error, when there was one
}

func (e *PendingError) Error() string {
	s := fmt.Sprintf("%s: pending", e.Op)
	if e.ExternalRef != "" {
		s += " (externalRef " + e.ExternalRef + ")"
	}
	s += ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return redact.Text(s)
}

// Is makes errors.Is(err, ErrPending) true.
func (e *PendingError) Is(target error) bool { return target == ErrPending }

// Unwrap returns the underlying transport or decode error.
func (e *PendingError) Unwrap() error { return e.Err }

// ResponseError is a response that could not be read as an envelope (HTML,
// truncated, not JSON, or its body broken off) from a read-only operation,
// or a TXN answer to a page operation that is not a well-formed page
// (ErrNotPage), after its retries.
type ResponseError struct {
	Op         string
	HTTPStatus int
	Err        error
}

func (e *ResponseError) Error() string {
	return redact.Text(fmt.Sprintf("%s: unreadable response (HTTP %d): %v", e.Op, e.HTTPStatus, e.Err))
}

// Unwrap returns the decode error.
func (e *ResponseError) Unwrap() error { return e.Err }

// ConfigError names a missing or invalid setting.
type ConfigError struct {
	Setting string // the environment variable, e.g. SVC_CLIENT_SECRET
	Reason  string
}

func (e *ConfigError) Error() string { return e.Setting + ": " + e.Reason }

// Unauthorized reports whether the service refused the request's
// credentials (HTTP 401 or 403): nothing was executed, and every other
// request with the same configuration will be refused too. (The spec gives
// no meaning to failure statuscodes, so the HTTP status decides.)
func (e *Error) Unauthorized() bool {
	return e.HTTPStatus == 401 || e.HTTPStatus == 403
}
