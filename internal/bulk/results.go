package bulk

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svcrecon/svcrecon/internal/export"
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
	var d flatDoc
	err = entries(ctx, rs.DB, rs.Run.ID, func(e Entry) error {
		worker = worker || e.Worker != ""
		d.load(e.Response)
		for i := range d.items {
			if k := d.key(i); !seen[string(k)] {
				seen[string(k)] = true
				keys = append(keys, string(k))
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
	var d flatDoc // every answer's data, read in turn
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
			sc := redact.NewScrubber(rs.secrets(hide, rec)...) // one a row: its values compiled once
			cells = append(cells, e.State, sc.String(e.StatusCode), sc.String(e.Status), sc.String(e.OrderID))
			if addRef {
				cells = append(cells, e.Ref)
			}
			cells = append(cells, e.PoolAmount, sc.String(e.Error))
			if rc.addWorker {
				cells = append(cells, e.Worker)
			}
			d.load(e.Response)
			for k := range d.items { // not i: the closure's own i walks the input records
				data[pos[string(d.key(k))]] = sc.String(d.value(k))
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
