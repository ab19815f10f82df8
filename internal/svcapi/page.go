package svcapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/svcrecon/svcrecon/internal/jsonscan"
)

// ErrNotPage is wrapped by the error of a report page call (statement,
// collect orders, billers) whose answer says TXN but is not a well-formed
// page: no data, no meta object, no records array, or an HTTP status other
// than 2xx (a redirect, a server error). Such an answer is a fault of the
// page, retried like an unreadable one, never the end of a walk: only a
// well-formed empty page ends one.
var ErrNotPage = errors.New("not a page")

// Paged reports whether the named operation answers pages (data.meta and
// data.records): the statement, the collect-order statement and the
// biller list.
func Paged(op string) bool {
	switch op {
	case OpStatement, OpCollectOrders, OpBillers:
		return true
	}
	return false
}

// CheckPage checks that a page's data is well formed: a JSON object with a
// meta object and a records array (which may be empty). The error wraps
// ErrNotPage and says what is missing.
func CheckPage(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return fmt.Errorf("%w: no data", ErrNotPage)
	}
	if data[0] != '{' {
		return fmt.Errorf("%w: data is not an object", ErrNotPage)
	}
	meta, records, err := pageMembers(data)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotPage, err)
	}
	switch {
	case len(meta) == 0 || string(meta) == "null":
		return fmt.Errorf("%w: data has no meta", ErrNotPage)
	case meta[0] != '{':
		return fmt.Errorf("%w: data.meta is not an object", ErrNotPage)
	case len(records) == 0 || string(records) == "null":
		return fmt.Errorf("%w: data has no records array", ErrNotPage)
	case records[0] != '[':
		return fmt.Errorf("%w: data.records is not an array", ErrNotPage)
	}
	return nil
}

// pageMembers returns the raw meta and records of a page's data: found by
// the lean scanner, or by encoding/json (which matches keys regardless of
// case, as the decoders of the page do) when the scanner gives up.
func pageMembers(data []byte) (meta, records []byte, err error) {
	var top [2]jsonscan.Span
	if end, ok := jsonscan.ScanObject(data, 0, []string{"meta", "records"}, top[:]); ok && end == len(data) {
		if top[0].Set() {
			meta = data[top[0].From:top[0].To]
		}
		if top[1].Set() {
			records = data[top[1].From:top[1].To]
		}
		return meta, records, nil
	}
	var pg struct {
		Meta    json.RawMessage `json:"meta"`
		Records json.RawMessage `json:"records"`
	}
	if err := json.Unmarshal(data, &pg); err != nil {
		return nil, nil, fmt.Errorf("data is not a JSON object: %w", err)
	}
	return bytes.TrimSpace(pg.Meta), bytes.TrimSpace(pg.Records), nil
}

// pageFault is the fault of a TXN answer to a page operation that is not a
// well-formed page (CheckPage), or came with an HTTP status other than 2xx;
// nil for any other operation or a good page.
func pageFault(op *Operation, status int, env *Envelope) error {
	if !Paged(op.Name) {
		return nil
	}
	var err error
	if status < http.StatusOK || status >= http.StatusMultipleChoices {
		err = fmt.Errorf("%w: a TXN answer with HTTP %d", ErrNotPage, status)
	} else {
		err = CheckPage(env.Data)
	}
	if err == nil {
		return nil
	}
	return &ResponseError{Op: op.Name, HTTPStatus: status, Err: err}
}
