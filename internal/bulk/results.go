package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/jsonscan"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Result columns added after the input's own columns, before the flattened
// data.* columns. ColumnRef is left out when the input has an externalRef
// column.
const (
	ColumnOutcome    = "outcome" // success, failed, pending or unsent
	ColumnStatusCode = "statuscode"
	ColumnStatus     = "status"
	ColumnOrderID    = "orderid"
	ColumnRef        = "externalRef"
	ColumnPoolAmount = "poolAmount" // the pool debit, exact decimal
	ColumnError      = "error"
	// ColumnWorker is the worker that sent the row (host:pid:random), for
	// a run that several workers shared (PostgreSQL); the column is there
	// only then.
	ColumnWorker = "worker"
)

// DefaultResultsPath is where the results CSV of an input goes by default:
// beside it, named <input>.results.csv.
func DefaultResultsPath(input string) string { return input + ".results.csv" }

// XLSXPath is the workbook written beside a results CSV.
func XLSXPath(resultsCSV string) string {
	return strings.TrimSuffix(resultsCSV, filepath.Ext(resultsCSV)) + ".xlsx"
}

// KV is one flattened response value.
type KV struct{ Key, Value string }

// FlattenData flattens the data member of a response envelope (JSON) into
// dotted keys in document order, prefixed "data.": objects are walked,
// arrays are kept as compact JSON text, null is "". A data member that is an
// array is one key, "data". Not JSON: nil.
//
// It is read by a lean scanner (jsonscan) in one pass; a document the
// scanner does not take (nested past its depth) goes to encoding/json,
// which reads it the same way (FuzzFlattenData).
func FlattenData(envelope []byte) []KV {
	if out, ok := flattenLean(envelope); ok {
		return out
	}
	return flattenJSON(envelope)
}

// flattenJSON is FlattenData through encoding/json.
func flattenJSON(envelope []byte) []KV {
	var top map[string]json.RawMessage
	if json.Unmarshal(envelope, &top) != nil {
		return nil
	}
	data, ok := top["data"]
	if !ok {
		return nil
	}
	var out []KV
	flatten("data", data, &out)
	return out
}

func flatten(key string, raw json.RawMessage, out *[]KV) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	switch raw[0] {
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if _, err := dec.Token(); err != nil {
			return
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return
			}
			k, _ := tok.(string)
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return
			}
			flatten(key+"."+k, v, out)
		}
	case '[':
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			*out = append(*out, KV{key, buf.String()})
		}
	case '"':
		var s string
		json.Unmarshal(raw, &s)
		*out = append(*out, KV{key, s})
	case 'n':
		*out = append(*out, KV{key, ""})
	default:
		*out = append(*out, KV{key, string(raw)})
	}
}

// flattenLean is FlattenData by jsonscan; ok false when the scanner does
// not take the document (it is then not JSON, or nested too deep).
func flattenLean(b []byte) (out []KV, ok bool) {
	i := jsonscan.SkipWS(b, 0)
	var data jsonscan.Span
	end, ok := members(b, i, 0, func(key string, v jsonscan.Span) bool {
		if key == "data" {
			data = v // the last one, as encoding/json keeps it
		}
		return true
	})
	if !ok || jsonscan.SkipWS(b, end) != len(b) {
		return nil, false
	}
	if !data.Set() {
		return nil, true
	}
	return out, flattenSpan(b, "data", data, 1, &out)
}

// flattenSpan is flatten of the value at s of b, which members has
// scanned already (it is valid JSON).
func flattenSpan(b []byte, key string, s jsonscan.Span, depth int, out *[]KV) bool {
	v := b[s.From:s.To]
	switch v[0] {
	case '{':
		_, ok := members(b, s.From, depth, func(k string, e jsonscan.Span) bool {
			return flattenSpan(b, key+"."+k, e, depth+1, out)
		})
		return ok
	case '[':
		var buf bytes.Buffer
		if json.Compact(&buf, v) == nil {
			*out = append(*out, KV{key, buf.String()})
		}
	case '"':
		*out = append(*out, KV{key, text(v)})
	case 'n':
		*out = append(*out, KV{key, ""})
	default:
		*out = append(*out, KV{key, string(v)})
	}
	return true
}

// flattenDepth bounds the objects flattenLean follows into (deeper ones go
// to encoding/json).
const flattenDepth = 64

// members scans the object at b[i] == '{' and calls fn with each member's
// key (unquoted) and value, in document order, while fn returns true. It
// returns the index after the object; false when b[i:] is not an object of
// valid JSON, is nested deeper than flattenDepth, or fn returned false.
func members(b []byte, i, depth int, fn func(key string, v jsonscan.Span) bool) (int, bool) {
	if depth > flattenDepth || i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = jsonscan.SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		kend, ok := jsonscan.SkipValue(b, i, depth)
		if !ok {
			return 0, false
		}
		key := text(b[i:kend])
		i = jsonscan.SkipWS(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		vstart := jsonscan.SkipWS(b, i+1)
		if i, ok = jsonscan.SkipValue(b, vstart, depth); !ok {
			return 0, false
		}
		if !fn(key, jsonscan.Span{From: vstart, To: i}) {
			return 0, false
		}
		i = jsonscan.SkipWS(b, i)
		switch {
		case i < len(b) && b[i] == ',':
			i = jsonscan.SkipWS(b, i+1)
		case i < len(b) && b[i] == '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// text is the text of a JSON string (quotes included, valid): as it is
// when it has no escape and is valid UTF-8, else as encoding/json reads it.
func text(q []byte) string {
	in := q[1 : len(q)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in)
	}
	var s string
	json.Unmarshal(q, &s)
	return s
}

// Results writes a run's results file(s) from its journal and its input
// table, in input order. Secret (the client secret), the row's sensitive
// cells and the run's sensitive --set values are scrubbed by value from
// every text the service answered (status, error, data).
type Results struct {
	DB     Journal
	Run    *Run
	Table  *Table
	Op     *svcapi.Operation
	Secret string
}

// resultColumns is the shape of a results file: its header, the
// flattened data keys in first-seen order, and whether the externalRef and
// worker columns are added.
type resultColumns struct {
	header, keys      []string
	addRef, addWorker bool
}

// columns returns the shape of the results file.
func (rs *Results) columns(ctx context.Context) (rc resultColumns, err error) {
	var header, keys []string
	header = append([]string{}, rs.Table.Header...)
	hasRef := false
	for _, h := range rs.Table.Header {
		if f, ok := rs.Op.Field(h); ok && f.Name == RefField {
			hasRef = true
		}
	}
	header = append(header, ColumnOutcome, ColumnStatusCode, ColumnStatus, ColumnOrderID)
	if !hasRef {
		header = append(header, ColumnRef)
	}
	header = append(header, ColumnPoolAmount, ColumnError)
	seen := map[string]bool{}
	worker := false
	err = entries(ctx, rs.DB, rs.Run.ID, func(e Entry) error {
		worker = worker || e.Worker != ""
		for _, kv := range FlattenData(e.Response) {
			if !seen[kv.Key] {
				seen[kv.Key] = true
				keys = append(keys, kv.Key)
			}
		}
		return nil
	})
	// An input column named like a column of the results (status, a data
	// key …) is carried through as input.NAME: every name stays unique,
	// so the workbook's header stays filterable.
	if worker {
		header = append(header, ColumnWorker)
	}
	added := header[len(rs.Table.Header):]
	for i, h := range rs.Table.Header {
		if slices.Contains(added, h) || seen[h] {
			header[i] = "input." + h
		}
	}
	return resultColumns{header: append(header, keys...), keys: keys, addRef: !hasRef, addWorker: worker}, err
}

// sensitive returns, per input column, how its cells must be hidden
// (hiding).
func (rs *Results) sensitive() []string {
	out := make([]string, len(rs.Table.Header))
	for i, h := range rs.Table.Header {
		out[i] = hiding(rs.Op, h)
	}
	return out
}

// carried returns, per input column, whether it is carried through
// without being sent (Extra): free text, whose card and Aadhaar numbers
// are masked in the results.
func (rs *Results) carried() []bool {
	out := make([]bool, len(rs.Table.Header))
	for i, h := range rs.Table.Header {
		_, field := rs.Op.Field(h)
		out[i] = !field
	}
	return out
}

// secrets returns the values scrubbed from the answers to a row: the
// client secret, the run's sensitive --set values and the row's sensitive
// cells, longest first.
func (rs *Results) secrets(hide []string, rec Record) []string {
	out := []string{rs.Secret}
	for k, v := range rs.Run.Settings.Sets {
		if hiding(rs.Op, k) != hideNone && v != redact.Marker {
			out = append(out, v)
		}
	}
	for c, v := range rec.Cells {
		if c < len(hide) && hide[c] != hideNone && v != "" {
			out = append(out, v)
		}
	}
	return sortSecrets(out)
}

// table returns the results' columns (poolAmount and the pool object's
// amounts are amounts, everything else text) and their rows in input order: every input row, with its
// journal entry's outcome where it was sent.
func (rs *Results) table(ctx context.Context) ([]export.Column, export.Rows, error) {
	rc, err := rs.columns(ctx)
	if err != nil {
		return nil, nil, err
	}
	cols := make([]export.Column, len(rc.header))
	for i, h := range rc.header {
		cols[i] = export.Column{Name: h}
	}
	amount := len(rs.Table.Header) + 4 // outcome, statuscode, status, orderid
	if rc.addRef {
		amount++
	}
	cols[amount].Kind = export.Amount
	pool := poolAmountKeys(rs.Op.Pool)
	for i, k := range rc.keys {
		if slices.Contains(pool, k) {
			cols[len(rc.header)-len(rc.keys)+i].Kind = export.Amount
		}
	}
	rows := func(yield func(export.Row, error) bool) {
		err := rs.each(ctx, rc, func(cells []string) error {
			if !yield(export.Row{Cells: cells}, nil) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			yield(export.Row{}, err)
		}
	}
	return cols, rows, nil
}

// poolAmountKeys are the flattened data keys of an operation's pool
// object (svcapi.PoolShape) that carry amounts: numbers in the workbook.
func poolAmountKeys(shape svcapi.PoolShape) []string {
	switch shape {
	case svcapi.PoolA:
		return []string{"data.pool.openingBal", "data.pool.amount", "data.pool.closingBal"}
	case svcapi.PoolB:
		return []string{"data.pool.openingBalance", "data.pool.paymentAmount", "data.pool.closingBalance"}
	case svcapi.PoolData:
		return []string{"data.openingBalance", "data.payableValue", "data.closingBalance"}
	}
	return nil
}

// inputCells appends a record's cells to cells as the results show them:
// a sensitive one hidden (hide), the free text of a carried column with
// its card and Aadhaar numbers masked (free); as many as the header has.
func inputCells(cells []string, rec Record, hide []string, free []bool) []string {
	for c, v := range rec.Cells {
		switch {
		case v == "":
		case hide[c] == hideRemove:
			v = redact.Marker
		case hide[c] == hideMask:
			v = redact.Last4(v)
		case free[c]:
			v = redact.Numbers(v)
		}
		cells = append(cells, v)
	}
	for len(cells) < len(hide) {
		cells = append(cells, "")
	}
	return cells
}

// errStopped ends a walk of the journal whose reader stopped early.
var errStopped = errors.New("stopped")

// each calls fn with every row of the results in input order.
func (rs *Results) each(ctx context.Context, rc resultColumns, fn func(cells []string) error) error {
	width, keys, addRef := len(rc.header), rc.keys, rc.addRef
	hide, free := rs.sensitive(), rs.carried()
	refWidth := RefWidth(rs.Table)
	pos := make(map[string]int, len(keys))
	for k, key := range keys {
		pos[key] = k
	}
	recs := rs.Table.Records
	i := 0
	row := func(rec Record, e *Entry) error {
		cells := inputCells(make([]string, 0, width), rec, hide, free)
		data := make([]string, len(keys))
		if e == nil {
			cells = append(cells, OutcomeUnsent, "", "", "")
			if addRef { // no externalRef column: the ref is derived
				cells = append(cells, DeriveRef(rs.Run.ID, rec.Line, refWidth))
			}
			cells = append(cells, "", "")
			if rc.addWorker {
				cells = append(cells, "")
			}
		} else {
			// The journal is scrubbed when written; scrubbing again keeps
			// journals written before that, or by a process that lacked a
			// secret, out of the results.
			sec := rs.secrets(hide, rec)
			cells = append(cells, e.State, redact.Scrub(e.StatusCode, sec...), redact.Scrub(e.Status, sec...),
				redact.Scrub(e.OrderID, sec...))
			if addRef {
				cells = append(cells, e.Ref)
			}
			cells = append(cells, e.PoolAmount, redact.Scrub(e.Error, sec...))
			if rc.addWorker {
				cells = append(cells, e.Worker)
			}
			for _, kv := range FlattenData(e.Response) {
				data[pos[kv.Key]] = redact.Scrub(kv.Value, sec...)
			}
		}
		return fn(append(cells, data...))
	}
	err := entries(ctx, rs.DB, rs.Run.ID, func(e Entry) error {
		for i < len(recs) && recs[i].Line < e.Line {
			if err := row(recs[i], nil); err != nil {
				return err
			}
			i++
		}
		if i < len(recs) && recs[i].Line == e.Line {
			if err := row(recs[i], &e); err != nil {
				return err
			}
			i++
		}
		return nil
	})
	if err != nil {
		return err
	}
	for ; i < len(recs); i++ {
		if err := row(recs[i], nil); err != nil {
			return err
		}
	}
	return nil
}

// write writes the results as format at path through export's table
// writer: to a temporary file beside it, renamed when complete.
func (rs *Results) write(ctx context.Context, path string, format export.Format, lf bool) error {
	cols, rows, err := rs.table(ctx)
	if err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	w, err := export.NewWriter(export.Options{Dir: dir, Format: format, LF: lf,
		Title: "Results of bulk run " + rs.Run.ID, Run: "bulk run " + rs.Run.ID}, name)
	if err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	defer w.Abort()
	if err := w.Write(ctx, export.Table{Sheet: "Results", File: name, Columns: cols}, rows); err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	if _, err := w.Finish(); err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	return nil
}

// WriteCSV (re)writes the results CSV at path: written to a temporary file
// beside it and renamed, so the file is always complete.
func (rs *Results) WriteCSV(ctx context.Context, path string) error {
	return rs.write(ctx, path, export.FormatCSV, true)
}

// WriteXLSX (re)writes the results as a workbook at path: one sheet,
// Results, with the header frozen (and filterable when its names are
// unique), poolAmount and the pool object's amounts (data.pool.amount …)
// numbers with two decimals, everything else text.
func (rs *Results) WriteXLSX(ctx context.Context, path string) error {
	return rs.write(ctx, path, export.FormatXLSX, false)
}
