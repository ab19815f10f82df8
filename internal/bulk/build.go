package bulk

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Sets are the --set values: field name → text, applied to every row.
type Sets map[string]string

// String lists the values as field=value, sorted by field; "(none)" when
// there are none.
func (s Sets) String() string {
	if len(s) == 0 {
		return "(none)"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s)) {
		parts = append(parts, k+"="+s[k])
	}
	return strings.Join(parts, " ")
}

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
	b := newBuilder(op, t, sets, runID)
	rows := make([]Row, 0, len(t.Records))
	for _, rec := range t.Records {
		if row, ok := b.row(rec); ok {
			rows = append(rows, row)
		}
	}
	if len(b.probs) > 0 {
		sort.SliceStable(b.probs, func(i, j int) bool { return b.probs[i].Line < b.probs[j].Line })
		return nil, &InvalidError{Path: t.Path, Rows: len(t.Records), Problems: b.probs}
	}
	return rows, nil
}

// builder is Build's state: the columns read from the header, the refs
// seen, the problems found so far.
type builder struct {
	op       *svcapi.Operation
	t        *Table
	sets     Sets
	setNames []string // sorted
	runID    string
	cols     []*svcapi.Field // the field of each column (nil: carried through)
	noColumn map[string]bool // mandatory fields with neither a column nor a --set value
	hasRef   bool            // op has an externalRef field
	width    int             // of derived refs
	refLine  map[string]int  // the line of each ref
	probs    []Problem
}

// newBuilder reads the header: each column's field, and the mandatory
// fields no column or --set value gives (one problem of the header, not one
// of every row).
func newBuilder(op *svcapi.Operation, t *Table, sets Sets, runID string) *builder {
	b := &builder{op: op, t: t, sets: sets, runID: runID, probs: append([]Problem(nil), t.Problems...),
		noColumn: map[string]bool{}, width: RefWidth(t), refLine: map[string]int{}}
	seen := b.columns()
	for n := range sets {
		b.setNames = append(b.setNames, n)
	}
	sort.Strings(b.setNames)
	for _, f := range op.Fields {
		if _, set := sets[f.Name]; f.Req != svcapi.Mandatory || set || seen[f.Name] != "" || f.Name == RefField {
			continue
		}
		b.noColumn[f.Name] = true
		b.problem(1, f.Name, fmt.Sprintf("mandatory column missing: add a %s column, or --set %s=VALUE for every row", f.Name, f.Name))
	}
	_, b.hasRef = op.Field(RefField)
	return b
}

// columns maps the header's columns to the operation's fields and returns
// the column of each field; a column without a name, or the second of one
// field, is a problem.
func (b *builder) columns() map[string]string {
	b.cols = make([]*svcapi.Field, len(b.t.Header))
	seen := map[string]string{}
	for i, name := range b.t.Header {
		if name == "" {
			b.problem(1, fmt.Sprintf("column %d", i+1), "has no name")
			continue
		}
		if !utf8.ValidString(name) {
			b.problem(1, fmt.Sprintf("column %d", i+1), "name not valid UTF-8")
			continue
		}
		f, ok := b.op.Field(name)
		if !ok {
			continue // carried through to the results, never sent (Extra)
		}
		if prev, dup := seen[f.Name]; dup {
			b.problem(1, name, fmt.Sprintf("same field as column %s", prev))
			continue
		}
		seen[f.Name] = name
		b.cols[i] = &f
	}
	return seen
}

func (b *builder) problem(line int, column, reason string) {
	b.probs = append(b.probs, Problem{Line: line, Column: column, Reason: reason})
}

// rowState is what building one row found: the body, the fields whose
// value was refused (reported once), the column each field came from.
type rowState struct {
	line  int
	body  map[string]any
	bad   map[string]bool
	colOf map[string]string
}

// row builds the request of one record: its cells, then the --set values,
// its ref, and the operation's validation. false for a record whose columns
// do not match the header (no row).
func (b *builder) row(rec Record) (Row, bool) {
	if len(rec.Cells) != len(b.t.Header) {
		b.problem(rec.Line, "", fmt.Sprintf("has %d columns, the header has %d", len(rec.Cells), len(b.t.Header)))
		return Row{}, false
	}
	rs := &rowState{line: rec.Line, body: map[string]any{}, bad: map[string]bool{}, colOf: map[string]string{}}
	b.cells(rs, rec.Cells)
	b.applySets(rs)
	ref := b.ref(rs)
	b.validate(rs)
	return Row{Line: rec.Line, Ref: ref, Body: rs.body, Secrets: rowSecrets(b.op, rs.body)}, true
}

// cells converts the record's non-empty cells of the operation's fields
// into the body; a cell that is not valid UTF-8, too long or of the wrong
// type is a problem.
func (b *builder) cells(rs *rowState, cells []string) {
	for i, cell := range cells {
		f := b.cols[i]
		if !utf8.ValidString(cell) {
			col := b.t.Header[i]
			if !utf8.ValidString(col) {
				col = fmt.Sprintf("column %d", i+1)
			}
			b.problem(rs.line, col, "not valid UTF-8")
			if f != nil {
				rs.bad[f.Name] = true
			}
			continue
		}
		if f == nil || cell == "" {
			continue
		}
		rs.colOf[f.Name] = b.t.Header[i]
		if err := cellError(*f, cell); err != nil {
			b.problem(rs.line, b.t.Header[i], err.Error())
			rs.bad[f.Name] = true
			continue
		}
		v, err := f.Convert(cell)
		if err != nil {
			b.problem(rs.line, b.t.Header[i], err.Error())
			rs.bad[f.Name] = true
			continue
		}
		svcapi.SetPath(rs.body, f.Name, v)
	}
}

// applySets fills the fields the row leaves empty with the --set values.
func (b *builder) applySets(rs *rowState) {
	for _, n := range b.setNames {
		if _, present := svcapi.GetPath(rs.body, n); present || rs.bad[n] {
			continue
		}
		f, _ := b.op.Field(n)
		v, err := f.Convert(b.sets[n]) // checked by ParseSets, unless sets did not come from it
		if err != nil {
			b.problem(rs.line, "--set "+n, err.Error())
			rs.bad[n] = true
			continue
		}
		svcapi.SetPath(rs.body, n, v)
	}
}

// ref returns the row's externalRef, derived when the row has none; one
// that is not alphanumeric, or used on an earlier line, is a problem.
func (b *builder) ref(rs *rowState) string {
	ref, _ := rs.body[RefField].(string)
	switch {
	case ref == "":
		ref = DeriveRef(b.runID, rs.line, b.width)
		if b.hasRef {
			rs.body[RefField] = ref
		}
	case !alphanumeric(ref):
		b.problem(rs.line, rs.colOf[RefField], fmt.Sprintf("%q is not alphanumeric", ref))
		rs.bad[RefField] = true
	}
	if first, dup := b.refLine[ref]; dup {
		b.problem(rs.line, RefField, fmt.Sprintf("%q already used on line %d", ref, first))
	} else {
		b.refLine[ref] = rs.line
	}
	return ref
}

// validate checks the body against the operation (mandatory and
// conditional fields, enumerations), leaving out what was reported.
func (b *builder) validate(rs *rowState) {
	var ve *svcapi.ValidationError
	if err := b.op.Validate(rs.body); errors.As(err, &ve) {
		for _, fe := range ve.Fields {
			if rs.bad[fe.Field] || b.noColumn[fe.Field] {
				continue // already reported
			}
			col := rs.colOf[fe.Field]
			if col == "" {
				col = fe.Field
			}
			b.problem(rs.line, col, fe.Reason)
		}
	} else if err != nil {
		b.problem(rs.line, "", err.Error())
	}
}
