package bulk

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// How a sensitive value is hidden wherever it is written.
const (
	hideNone   = ""
	hideRemove = "redact" // replaced by redact.Marker
	hideMask   = "mask"   // masked to its last four characters
)

// hiding says how values of the column or field name (of op, when it is
// one of its fields) are hidden: fields the registry marks Redacted and
// keys redact removes are removed, card and Aadhaar numbers are masked.
func hiding(op *svcapi.Operation, name string) string {
	f, _ := op.Field(name)
	last := name[strings.LastIndex(name, ".")+1:]
	switch {
	case f.Redacted || redact.IsRemovedKey(last):
		return hideRemove
	case redact.IsMaskedKey(last):
		return hideMask
	}
	return hideNone
}

// redacted returns the values as stored and shown: the value of every
// sensitive field (hiding) is redact.Marker. The real values stay with the
// process that was given them.
func (s Sets) redacted(op *svcapi.Operation) Sets {
	if s == nil {
		return nil
	}
	out := make(Sets, len(s))
	for k, v := range s {
		if hiding(op, k) != hideNone {
			v = redact.Marker
		}
		out[k] = v
	}
	return out
}

// Withheld lists, sorted, the fields whose --set values were not stored
// because they are secret: each must be given again to send the run's rows.
func (s Sets) Withheld() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s)) {
		if s[k] == redact.Marker {
			out = append(out, k)
		}
	}
	return out
}

// WithheldError refuses to send the rows of a run whose secret --set values
// were not stored (they are stored redacted) and were not given again.
// It matches ErrRefused (bulkrun exits 2); nothing was sent.
type WithheldError struct {
	RunID   string
	Command string // the command to give them with, e.g. "bulkrun resume 7KQ2M"
	Fields  []string
}

func (e *WithheldError) Error() string {
	sets := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		sets[i] = "--set " + f + "=VALUE"
	}
	return fmt.Sprintf("run %s was started with secret --set values, which are not stored: give them again: %s %s",
		e.RunID, e.Command, strings.Join(sets, " "))
}

// Unwrap returns ErrRefused.
func (e *WithheldError) Unwrap() error { return ErrRefused }

// Restore returns the run's --set values with the withheld ones replaced
// by given (parsed by ParseSets), for sending the run's rows. A withheld
// value not given is a *WithheldError naming command; a given field the
// run has no withheld value for is an error too (a run keeps the --set
// values it started with).
func (s Sets) Restore(runID, command string, given Sets) (Sets, error) {
	out := maps.Clone(s)
	for _, k := range slices.Sorted(maps.Keys(given)) {
		if s[k] != redact.Marker {
			return nil, fmt.Errorf("--set %s: run %s keeps the --set values it started with (%s); only secret ones, not stored, are given again",
				k, runID, s)
		}
		out[k] = given[k]
	}
	if missing := out.Withheld(); len(missing) > 0 {
		return nil, &WithheldError{RunID: runID, Command: command, Fields: missing}
	}
	return out, nil
}

// rowSecrets returns the values of a request body that must never be
// written, longest first (so a secret holding another goes whole): those
// of op's sensitive fields (hiding).
func rowSecrets(op *svcapi.Operation, body map[string]any) []string {
	var out []string
	for _, f := range op.Fields {
		if hiding(op, f.Name) == hideNone {
			continue
		}
		if v, ok := svcapi.GetPath(body, f.Name); ok {
			if s, isText := v.(string); isText && s != "" && s != redact.Marker {
				out = append(out, s)
			}
		}
	}
	return sortSecrets(out)
}

// sortSecrets orders secrets longest first, for redact.Scrub.
func sortSecrets(s []string) []string {
	slices.SortStableFunc(s, func(a, b string) int { return len(b) - len(a) })
	return s
}

// scrubbedError is an error whose text has secrets scrubbed by value; it
// unwraps to the original error, for errors.Is and As.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// scrubErr returns err with each of secrets scrubbed from its text (nil
// stays nil).
func scrubErr(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := redact.Scrub(err.Error(), secrets...)
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg: msg, err: err}
}
