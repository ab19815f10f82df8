package svcapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// FieldError says what is wrong with one field of a request.
type FieldError struct {
	Field  string
	Reason string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Reason }

// ValidationError is returned for a request that breaks its operation's
// schema. Nothing was sent.
type ValidationError struct {
	Op     string
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Error()
	}
	return fmt.Sprintf("%s: invalid request: %s", e.Op, strings.Join(parts, "; "))
}

// GetPath returns the value at a dotted path of a decoded JSON object.
func GetPath(m map[string]any, path string) (any, bool) {
	cur := any(m)
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = obj[part]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// SetPath sets the value at a dotted path, creating nested objects.
func SetPath(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// text renders a decoded JSON scalar as the text a person would type.
func text(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// present reports whether the field (or an alias) has a non-empty value.
func (f Field) lookup(body map[string]any) (any, bool) {
	for _, name := range append([]string{f.Name}, f.Aliases...) {
		if v, ok := GetPath(body, name); ok && v != nil {
			if s, isText := text(v); isText && s == "" {
				continue
			}
			return v, true
		}
	}
	return nil, false
}

// Validate checks a request body, decoded from JSON (json.Number or float64
// numbers), against the operation's schema: mandatory and conditionally
// mandatory fields, types and enumerations. It returns nil or a
// *ValidationError listing every bad field.
func (op *Operation) Validate(body map[string]any) error {
	var errs []FieldError
	for _, f := range op.Fields {
		v, ok := f.lookup(body)
		if !ok {
			if f.Req == Mandatory || (f.Req == Conditional && f.When != nil && f.When.holds(op, body)) {
				reason := "missing mandatory field"
				if f.Req == Conditional {
					reason = "missing, mandatory " + f.When.String()
				}
				errs = append(errs, FieldError{f.Name, reason})
			}
			continue
		}
		if err := f.Check(v); err != nil {
			errs = append(errs, FieldError{f.Name, err.Error()})
		}
	}
	if len(errs) > 0 {
		return &ValidationError{Op: op.Name, Fields: errs}
	}
	return nil
}

func (c *Condition) holds(op *Operation, body map[string]any) bool {
	f, ok := op.Field(c.Field)
	if !ok {
		f = Field{Name: c.Field}
	}
	v, ok := f.lookup(body)
	if !ok {
		return false
	}
	s, _ := text(v)
	for _, want := range c.Equals {
		if s == want {
			return true
		}
	}
	return false
}

// Check reports whether a decoded JSON value fits the field's type and
// enumeration.
func (f Field) Check(v any) error {
	s, scalar := text(v)
	if !scalar {
		return fmt.Errorf("want a %s, got an object or array", f.Type)
	}
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	if n := f.MaxLen(); len(s) > n {
		return fmt.Errorf("%d bytes long, longer than the %d this field takes", len(s), n)
	}
	if f.Redacted {
		// A secret is never quoted back, not even in an error.
		if err := f.checkValue(s); err != nil {
			return errors.New("not a valid value (not shown: the field is secret)")
		}
		return nil
	}
	return f.checkValue(s)
}

// Length limits of request fields, in bytes of UTF-8.
const (
	maxFieldLen      = 1 << 10   // names, numbers, codes, addresses
	maxLongFieldLen  = 256 << 10 // biometric capture data (pidData, hmac, certificates …)
	maxQuotedInError = 40        // how much of a bad value an error quotes
)

// MaxLen is the longest value the field takes: the biometric capture data
// and secret fields are long by nature (an encrypted PID block runs to tens
// of KiB); every other field is short.
func (f Field) MaxLen() int {
	if f.Redacted || strings.HasPrefix(f.Name, "biometricData.") {
		return maxLongFieldLen
	}
	return maxFieldLen
}

// quote quotes a bad value for an error, clipped.
func quote(s string) string {
	if len(s) > maxQuotedInError {
		s = strings.ToValidUTF8(s[:maxQuotedInError], "") + "…"
	}
	return strconv.Quote(s)
}

// checkValue checks a scalar's text against the field's type and
// enumeration.
func (f Field) checkValue(s string) error {
	switch f.Type {
	case TypeInteger:
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Errorf("%s is not a whole number", quote(s))
		}
	case TypeDecimal:
		d, err := parseDecimal(s)
		if err != nil {
			return fmt.Errorf("%s is not a decimal amount", quote(s))
		}
		if err := recon.CheckAmount(d); err != nil {
			return fmt.Errorf("%s is %w", clipAmount(s), err)
		}
		if d.Sign() <= 0 {
			return fmt.Errorf("amount %s must be above zero", s)
		}
	case TypeBoolean:
		if _, err := strconv.ParseBool(s); err != nil {
			return fmt.Errorf("%s is not true or false", quote(s))
		}
	case TypeDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("%s is not a date YYYY-MM-DD", quote(s))
		}
	}
	if len(f.Enum) > 0 {
		for _, e := range f.Enum {
			if s == e {
				return nil
			}
		}
		return fmt.Errorf("%s is not one of %s", quote(s), strings.Join(f.Enum, ", "))
	}
	return nil
}

// Convert turns text (a CSV cell, a --set value) into the JSON value the
// field's type asks for: integers and booleans become JSON numbers and
// booleans; everything else stays a string, so leading zeros survive.
func (f Field) Convert(s string) (any, error) {
	switch f.Type {
	case TypeInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", s)
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	case TypeBoolean:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", s)
		}
		return b, nil
	}
	return s, nil
}
