package bulk

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// RefField is the request field that identifies a billable call.
const RefField = "externalRef"

// Table is a CSV input file: its header and records, with the line each
// record starts on.
type Table struct {
	Path    string
	SHA256  string // hex of the file's bytes
	Header  []string
	Records []Record
	// Problems are syntax errors of the file (a bare quote, an unclosed
	// quoted field): the records concerned are left out.
	Problems []Problem
}

// Record is one data record of a Table.
type Record struct {
	Line  int // line of the file the record starts on (the header is line 1)
	Cells []string
}

// Problem is one thing wrong with the input. It prints as
// FILE:LINE: column: reason (the column is left out for whole-row problems).
type Problem struct {
	Line   int
	Column string
	Reason string
}

// Format renders the problem for the named file.
func (p Problem) Format(file string) string {
	if p.Column == "" {
		return fmt.Sprintf("%s:%d: %s", file, p.Line, p.Reason)
	}
	return fmt.Sprintf("%s:%d: %s: %s", file, p.Line, p.Column, p.Reason)
}

// InvalidError lists every problem of an input file. Nothing was sent.
type InvalidError struct {
	Path     string
	Rows     int // data rows in the file
	Problems []Problem
}

func (e *InvalidError) Error() string {
	bad := map[int]bool{}
	for _, p := range e.Problems {
		bad[p.Line] = true
	}
	return fmt.Sprintf("%s: %d problem(s) on %d line(s); nothing was sent", e.Path, len(e.Problems), len(bad))
}

// Lines renders every problem, one per line, in file order.
func (e *InvalidError) Lines() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.Format(e.Path)
	}
	return out
}

// ReadTable reads a CSV file. A missing or empty file or an unreadable
// header is an error; syntax errors of data records are collected in
// Table.Problems.
func ReadTable(path string) (*Table, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	sum := sha256.Sum256(raw)
	t, err := ParseTable(path, raw)
	if err != nil {
		return nil, err
	}
	t.SHA256 = hex.EncodeToString(sum[:])
	return t, nil
}

// ParseTable parses CSV bytes; name is used in messages only.
func ParseTable(name string, raw []byte) (*Table, error) {
	raw = bytes.TrimPrefix(raw, []byte("\uFEFF"))
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1 // column counts are checked per row, with line numbers
	r.ReuseRecord = false
	t := &Table{Path: name}
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file: want a header line naming the request fields", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	t.Header = header
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				t.Problems = append(t.Problems, Problem{Line: pe.StartLine, Reason: "CSV syntax: " + pe.Err.Error()})
				continue
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" && len(header) > 1 {
			continue // a blank line with spaces
		}
		t.Records = append(t.Records, Record{Line: line, Cells: rec})
	}
	return t, nil
}

// Sets are the --set values: field name → text, applied to every row.
type Sets map[string]string

// ParseSets parses "field=value" arguments against the operation's schema.
// Aliases are accepted and stored under the field's name; externalRef cannot
// be set for every row.
func ParseSets(op *svcapi.Operation, args []string) (Sets, error) {
	out := Sets{}
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("--set %q: want field=value, e.g. --set consent=Y", a)
		}
		f, found := op.Field(name)
		if !found {
			return nil, fmt.Errorf("--set %s: %s has no field %q (see bulkrun ops %s)", name, op.Name, name, op.Name)
		}
		if hiding(op, f.Name) == hideNone {
			name = a // quote the whole argument, unless its value is secret
		}
		if f.Name == RefField {
			return nil, fmt.Errorf("--set %s: externalRef must be unique per row; leave it out to derive one per row", name)
		}
		if err := cellError(f, value); err != nil {
			return nil, fmt.Errorf("--set %s: %w", name, err)
		}
		if _, err := f.Convert(value); err != nil {
			return nil, fmt.Errorf("--set %s: %w", name, err)
		}
		out[f.Name] = value
	}
	return out, nil
}

// Row is a validated input row, ready to send.
type Row struct {
	Line int
	Ref  string         // the externalRef of the call (from the file, or derived)
	Body map[string]any // the request body (ref included when the operation has the field)
	// Secrets are the body's values of sensitive fields (pidData, hmac,
	// sessionKey, encryptedAadhaar, card and Aadhaar numbers …), longest
	// first: scrubbed by value from whatever the service answers.
	Secrets []string
}

// cellError checks what every cell must be before its type: valid UTF-8
// and no longer than the field takes (svcapi.Field.Check says which,
// without quoting the value).
func cellError(f svcapi.Field, cell string) error {
	if utf8.ValidString(cell) && len(cell) <= f.MaxLen() {
		return nil
	}
	return f.Check(cell)
}

// Extra returns the input columns that are not fields of op, in file
// order: Build leaves them out of the requests (they are never sent) and
// the results carry them through.
func Extra(op *svcapi.Operation, t *Table) []string {
	var out []string
	for _, name := range t.Header {
		if _, ok := op.Field(name); !ok && name != "" {
			out = append(out, name)
		}
	}
	return out
}

// DeriveRef returns the externalRef of a row whose file gave none: "B", the
// run id and the line number zero-padded to width digits. It is alphanumeric
// and the same every time the run resumes.
func DeriveRef(runID string, line, width int) string {
	return fmt.Sprintf("B%s%0*d", runID, width, line)
}

// RefWidth is the line-number width of derived refs for a table: at least 6
// digits, more for longer files.
func RefWidth(t *Table) int {
	last := 1
	if n := len(t.Records); n > 0 {
		last = t.Records[n-1].Line
	}
	return max(6, len(strconv.Itoa(last)))
}

func alphanumeric(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// Build maps every record of t to a request body of op and validates all of
// them. It returns the rows in file order, or an *InvalidError listing every
// problem of the file (header, syntax, column counts, cells that are not
// valid UTF-8 or longer than their field takes, types, enumerations,
// mandatory and conditional fields, duplicate or non-alphanumeric
// externalRefs).
//
// Columns that are not fields of op (Extra) are left out of the requests:
// they are never sent, and the results carry them through.
//
// A non-empty cell wins over a --set value of the same field; --set fills
// empty cells and missing columns. Empty cells are left out of the body.
// Rows without an externalRef get DeriveRef(runID, line, RefWidth(t)).
func Build(op *svcapi.Operation, t *Table, sets Sets, runID string) ([]Row, error) {
	probs := append([]Problem(nil), t.Problems...)
	cols := make([]*svcapi.Field, len(t.Header))
	seen := map[string]string{}
	for i, name := range t.Header {
		if name == "" {
			probs = append(probs, Problem{Line: 1, Column: fmt.Sprintf("column %d", i+1), Reason: "has no name"})
			continue
		}
		if !utf8.ValidString(name) {
			probs = append(probs, Problem{Line: 1, Column: fmt.Sprintf("column %d", i+1), Reason: "name not valid UTF-8"})
			continue
		}
		f, ok := op.Field(name)
		if !ok {
			continue // carried through to the results, never sent (Extra)
		}
		if prev, dup := seen[f.Name]; dup {
			probs = append(probs, Problem{Line: 1, Column: name, Reason: fmt.Sprintf("same field as column %s", prev)})
			continue
		}
		seen[f.Name] = name
		cols[i] = &f
	}
	setNames := make([]string, 0, len(sets))
	for n := range sets {
		setNames = append(setNames, n)
	}
	sort.Strings(setNames)
	// A mandatory field with neither a column nor a --set value is one
	// problem of the header, not one of every row.
	noColumn := map[string]bool{}
	for _, f := range op.Fields {
		if _, set := sets[f.Name]; f.Req != svcapi.Mandatory || set || seen[f.Name] != "" || f.Name == RefField {
			continue
		}
		noColumn[f.Name] = true
		probs = append(probs, Problem{Line: 1, Column: f.Name,
			Reason: fmt.Sprintf("mandatory column missing: add a %s column, or --set %s=VALUE for every row", f.Name, f.Name)})
	}
	_, hasRef := op.Field(RefField)
	width := RefWidth(t)
	refLine := map[string]int{}
	rows := make([]Row, 0, len(t.Records))
	for _, rec := range t.Records {
		if len(rec.Cells) != len(t.Header) {
			probs = append(probs, Problem{Line: rec.Line,
				Reason: fmt.Sprintf("has %d columns, the header has %d", len(rec.Cells), len(t.Header))})
			continue
		}
		body := map[string]any{}
		bad := map[string]bool{}
		colOf := map[string]string{}
		for i, cell := range rec.Cells {
			f := cols[i]
			if !utf8.ValidString(cell) {
				col := t.Header[i]
				if !utf8.ValidString(col) {
					col = fmt.Sprintf("column %d", i+1)
				}
				probs = append(probs, Problem{Line: rec.Line, Column: col, Reason: "not valid UTF-8"})
				if f != nil {
					bad[f.Name] = true
				}
				continue
			}
			if f == nil || cell == "" {
				continue
			}
			colOf[f.Name] = t.Header[i]
			if err := cellError(*f, cell); err != nil {
				probs = append(probs, Problem{Line: rec.Line, Column: t.Header[i], Reason: err.Error()})
				bad[f.Name] = true
				continue
			}
			v, err := f.Convert(cell)
			if err != nil {
				probs = append(probs, Problem{Line: rec.Line, Column: t.Header[i], Reason: err.Error()})
				bad[f.Name] = true
				continue
			}
			svcapi.SetPath(body, f.Name, v)
		}
		for _, n := range setNames {
			if _, present := svcapi.GetPath(body, n); present || bad[n] {
				continue
			}
			f, _ := op.Field(n)
			v, err := f.Convert(sets[n]) // checked by ParseSets, unless sets did not come from it
			if err != nil {
				probs = append(probs, Problem{Line: rec.Line, Column: "--set " + n, Reason: err.Error()})
				bad[n] = true
				continue
			}
			svcapi.SetPath(body, n, v)
		}
		ref, _ := body[RefField].(string)
		switch {
		case ref == "":
			ref = DeriveRef(runID, rec.Line, width)
			if hasRef {
				body[RefField] = ref
			}
		case !alphanumeric(ref):
			probs = append(probs, Problem{Line: rec.Line, Column: colOf[RefField], Reason: fmt.Sprintf("%q is not alphanumeric", ref)})
			bad[RefField] = true
		}
		if first, dup := refLine[ref]; dup {
			probs = append(probs, Problem{Line: rec.Line, Column: RefField, Reason: fmt.Sprintf("%q already used on line %d", ref, first)})
		} else {
			refLine[ref] = rec.Line
		}
		var ve *svcapi.ValidationError
		if err := op.Validate(body); errors.As(err, &ve) {
			for _, fe := range ve.Fields {
				if bad[fe.Field] || noColumn[fe.Field] {
					continue // already reported
				}
				col := colOf[fe.Field]
				if col == "" {
					col = fe.Field
				}
				probs = append(probs, Problem{Line: rec.Line, Column: col, Reason: fe.Reason})
			}
		} else if err != nil {
			probs = append(probs, Problem{Line: rec.Line, Reason: err.Error()})
		}
		rows = append(rows, Row{Line: rec.Line, Ref: ref, Body: body, Secrets: rowSecrets(op, body)})
	}
	if len(probs) > 0 {
		sort.SliceStable(probs, func(i, j int) bool { return probs[i].Line < probs[j].Line })
		return nil, &InvalidError{Path: t.Path, Rows: len(t.Records), Problems: probs}
	}
	return rows, nil
}
