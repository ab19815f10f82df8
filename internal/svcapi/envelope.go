package svcapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/jsonscan"
)

// Status codes of the envelope (spec §7, design).
const (
	StatusSuccess = "TXN" // success
	StatusPending = "TUP" // pending: look the outcome up with txnStatus
)

// Envelope is the response envelope every operation answers with (spec §2.1).
// Data is kept raw: decode it with DecodeData into the operation's payload.
type Envelope struct {
	StatusCode   String          `json:"statuscode"`
	ActCode      String          `json:"actcode"`
	Status       String          `json:"status"`
	Data         json.RawMessage `json:"data,omitempty"`
	Timestamp    String          `json:"timestamp"`
	SvcUUID      String          `json:"svc_uuid"`
	OrderID      String          `json:"orderid"`
	Environment  String          `json:"environment"`
	InternalCode String          `json:"internalCode"`
}

// ErrNotEnvelope is wrapped by DecodeEnvelope when a body is JSON but not a
// response envelope (no statuscode).
var ErrNotEnvelope = errors.New("not a response envelope")

// DecodeEnvelope decodes a response body. The literal text "null" in orderid
// becomes "". A body that is not JSON, is truncated, or has no statuscode is
// an error.
func DecodeEnvelope(body []byte) (*Envelope, error) {
	return decodeEnvelope(body, splitData(body))
}

// dataSplit is a body as the lean scanner split it (jsonscan.Cut): the
// envelope without its data member, and where the data is. ok false: the
// body is left to encoding/json whole.
type dataSplit struct {
	whole []byte        // the body split, which data indexes
	rest  []byte        // the body without its data member
	data  jsonscan.Span // where the data member's value is in whole
	ok    bool
}

// splitData splits a body that is a plain JSON object; a page of a report
// is then scanned once, not decoded whole to find its envelope.
func splitData(body []byte) dataSplit {
	rest, data, ok := jsonscan.Cut(body, "data")
	return dataSplit{body, rest, data, ok}
}

// decodeEnvelope is DecodeEnvelope for a body already split (or not).
func decodeEnvelope(body []byte, split dataSplit) (*Envelope, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errors.New("empty body")
	}
	if body[0] != '{' {
		return nil, fmt.Errorf("not JSON: starts with %q", snippet(body, 20))
	}
	var env Envelope
	if split.ok {
		if err := json.Unmarshal(split.rest, &env); err != nil {
			return nil, fmt.Errorf("malformed JSON: %w", err)
		}
		if split.data.Set() {
			env.Data = json.RawMessage(split.whole[split.data.From:split.data.To])
		}
	} else if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if env.StatusCode == "" {
		return nil, ErrNotEnvelope
	}
	if strings.EqualFold(string(env.OrderID), "null") {
		env.OrderID = ""
	}
	if len(env.Data) > 0 && string(env.Data) == "null" {
		env.Data = nil
	}
	return &env, nil
}

// OK reports whether the call succeeded (statuscode TXN).
func (e *Envelope) OK() bool { return e.StatusCode == StatusSuccess }

// Pending reports whether the call's outcome is not known yet (TUP).
func (e *Envelope) Pending() bool { return e.StatusCode == StatusPending }

// DecodeData decodes the data member into v. Absent data leaves v untouched.
func (e *Envelope) DecodeData(v any) error {
	if len(e.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("decode data: %w", err)
	}
	return nil
}

func snippet(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// Pool is a pool debit object (spec §2.2), of either shape. Opening − Amount
// should equal Closing; CheckArithmetic says by how much it does not.
type Pool struct {
	Shape       PoolShape
	Account     string
	ReferenceID string
	Mode        string
	Opening     decimal.Decimal
	Amount      decimal.Decimal
	Closing     decimal.Decimal
}

// Delta is Opening − Amount − Closing: zero when the pool object adds up.
func (p Pool) Delta() decimal.Decimal { return p.Opening.Sub(p.Amount).Sub(p.Closing) }

// poolWire accepts both shapes.
type poolWire struct {
	Account        String `json:"account"`
	ReferenceID    String `json:"referenceId"`
	Mode           String `json:"mode"`
	OpeningBal     Amount `json:"openingBal"`
	Amount         Amount `json:"amount"`
	ClosingBal     Amount `json:"closingBal"`
	OpeningBalance Amount `json:"openingBalance"`
	PaymentAmount  Amount `json:"paymentAmount"`
	ClosingBalance Amount `json:"closingBalance"`
	PayableValue   Amount `json:"payableValue"`
}

// UnmarshalJSON decodes shape A or shape B. A present amount that is not a
// number is an error; null leaves p unchanged.
func (p *Pool) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil // by convention a no-op, as for encoding/json itself
	}
	var w poolWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch {
	case w.OpeningBal.Raw != "" || w.ClosingBal.Raw != "":
		p.Shape = PoolA
		return p.set(w, w.OpeningBal, "openingBal", w.Amount, "amount", w.ClosingBal, "closingBal")
	case (w.OpeningBalance.Raw != "" || w.ClosingBalance.Raw != "") && w.PaymentAmount.Raw == "" && w.PayableValue.Raw != "":
		// The data-level balances, as MarshalJSON writes a PoolData pool.
		p.Shape = PoolData
		return p.set(w, w.OpeningBalance, "openingBalance", w.PayableValue, "payableValue", w.ClosingBalance, "closingBalance")
	case w.OpeningBalance.Raw != "" || w.ClosingBalance.Raw != "":
		p.Shape = PoolB
		return p.set(w, w.OpeningBalance, "openingBalance", w.PaymentAmount, "paymentAmount", w.ClosingBalance, "closingBalance")
	}
	return errors.New("pool object has neither openingBal nor openingBalance")
}

// MarshalJSON writes the pool in its wire shape (A: openingBal, amount,
// closingBal; B: openingBalance, paymentAmount, closingBalance; data-level:
// openingBalance, payableValue, closingBalance) with exact decimal strings,
// so that UnmarshalJSON reads it back.
func (p Pool) MarshalJSON() ([]byte, error) {
	type kv struct {
		k string
		v string
	}
	var fields []kv
	add := func(k, v string, always bool) {
		if always || v != "" {
			fields = append(fields, kv{k, v})
		}
	}
	switch p.Shape {
	case PoolB:
		add("referenceId", p.ReferenceID, false)
		add("openingBalance", p.Opening.String(), true)
		add("paymentAmount", p.Amount.String(), true)
		add("mode", p.Mode, false)
		add("closingBalance", p.Closing.String(), true)
	case PoolData:
		add("openingBalance", p.Opening.String(), true)
		add("payableValue", p.Amount.String(), true)
		add("mode", p.Mode, false)
		add("closingBalance", p.Closing.String(), true)
	default:
		add("account", p.Account, false)
		add("referenceId", p.ReferenceID, false)
		add("openingBal", p.Opening.String(), true)
		add("mode", p.Mode, false)
		add("amount", p.Amount.String(), true)
		add("closingBal", p.Closing.String(), true)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (p *Pool) set(w poolWire, open Amount, on string, amt Amount, an string, cl Amount, cn string) error {
	p.Account, p.ReferenceID, p.Mode = string(w.Account), string(w.ReferenceID), string(w.Mode)
	for _, f := range []struct {
		a    Amount
		name string
		dst  *decimal.Decimal
	}{{open, on, &p.Opening}, {amt, an, &p.Amount}, {cl, cn, &p.Closing}} {
		if !f.a.Valid {
			if f.a.Raw == "" {
				return fmt.Errorf("pool.%s missing", f.name)
			}
			return fmt.Errorf("pool.%s %q is not an amount", f.name, f.a.Raw)
		}
		*f.dst = f.a.Decimal
	}
	return nil
}

// ErrNoPool is returned by ExtractPool when a response carries no pool debit.
var ErrNoPool = errors.New("no pool object")

// ExtractPool finds the pool debit of a successful response: data.pool (shape
// A or B), or, for name abbreviation and balance inquiry, the data-level
// openingBalance, payableValue and closingBalance (payableValue is the
// amount charged; transactionValue is the value of the transaction itself).
// It returns ErrNoPool (errors.Is) when there is none.
func ExtractPool(env *Envelope) (Pool, error) {
	if env == nil || len(env.Data) == 0 || env.Data[0] != '{' {
		return Pool{}, ErrNoPool
	}
	var d struct {
		Pool           json.RawMessage `json:"pool"`
		OpeningBalance Amount          `json:"openingBalance"`
		PayableValue   Amount          `json:"payableValue"`
		ClosingBalance Amount          `json:"closingBalance"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return Pool{}, fmt.Errorf("decode data: %w", err)
	}
	if len(d.Pool) > 0 && string(d.Pool) != "null" {
		var p Pool
		if err := json.Unmarshal(d.Pool, &p); err != nil {
			return Pool{}, fmt.Errorf("data.pool: %w", err)
		}
		return p, nil
	}
	if d.OpeningBalance.Raw == "" && d.ClosingBalance.Raw == "" {
		return Pool{}, ErrNoPool
	}
	return dataPool(d.OpeningBalance, d.PayableValue, d.ClosingBalance)
}

// dataPool is the pool debit a balance inquiry and a name abbreviation
// report in their data: openingBalance, payableValue, closingBalance.
func dataPool(open, amount, closing Amount) (Pool, error) {
	p := Pool{Shape: PoolData, Mode: "DR"}
	for _, f := range []struct {
		a    Amount
		name string
		dst  *decimal.Decimal
	}{{open, "openingBalance", &p.Opening}, {amount, "payableValue", &p.Amount}, {closing, "closingBalance", &p.Closing}} {
		if !f.a.Valid {
			return Pool{}, fmt.Errorf("data.%s %q is not an amount", f.name, f.a.Raw)
		}
		*f.dst = f.a.Decimal
	}
	return p, nil
}
