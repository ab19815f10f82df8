package bulk

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/store"
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
// array is one key, "data".
func FlattenData(envelope []byte) []KV {
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

// Results writes a run's results file(s) from its journal and its input
// table, in input order.
type Results struct {
	DB     *store.DB
	Run    *Run
	Table  *Table
	Op     *svcapi.Operation
	Secret string
}

// columns returns the header of the results file and the flattened data keys
// in first-seen order.
func (rs *Results) columns(ctx context.Context) (header, keys []string, addRef bool, err error) {
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
	err = entries(ctx, rs.DB, rs.Run.ID, func(e Entry) error {
		for _, kv := range FlattenData(e.Response) {
			if !seen[kv.Key] {
				seen[kv.Key] = true
				keys = append(keys, kv.Key)
			}
		}
		return nil
	})
	return append(header, keys...), keys, !hasRef, err
}

// sensitive returns, per input column, how its cells must be hidden:
// "redact", "mask" or "".
func (rs *Results) sensitive() []string {
	out := make([]string, len(rs.Table.Header))
	for i, h := range rs.Table.Header {
		f, _ := rs.Op.Field(h)
		last := h[strings.LastIndex(h, ".")+1:]
		switch {
		case f.Redacted || svcapi.IsRedactedKey(last):
			out[i] = "redact"
		case svcapi.IsMaskedKey(last):
			out[i] = "mask"
		}
	}
	return out
}

// each calls fn with the header, then with every row of the results in input
// order.
func (rs *Results) each(ctx context.Context, fn func(cells []string) error) error {
	header, keys, addRef, err := rs.columns(ctx)
	if err != nil {
		return err
	}
	if err := fn(header); err != nil {
		return err
	}
	hide := rs.sensitive()
	width := RefWidth(rs.Table)
	pos := make(map[string]int, len(keys))
	for k, key := range keys {
		pos[key] = k
	}
	recs := rs.Table.Records
	i := 0
	row := func(rec Record, e *Entry) error {
		cells := make([]string, 0, len(header))
		for c, v := range rec.Cells {
			switch {
			case v == "":
			case hide[c] == "redact":
				v = svcapi.Redacted
			case hide[c] == "mask":
				v = svcapi.MaskLast4(v)
			}
			cells = append(cells, v)
		}
		for len(cells) < len(rs.Table.Header) {
			cells = append(cells, "")
		}
		data := make([]string, len(keys))
		if e == nil {
			cells = append(cells, OutcomeUnsent, "", "", "")
			if addRef { // no externalRef column: the ref is derived
				cells = append(cells, DeriveRef(rs.Run.ID, rec.Line, width))
			}
			cells = append(cells, "", "")
		} else {
			cells = append(cells, e.State, e.StatusCode, e.Status, e.OrderID)
			if addRef {
				cells = append(cells, e.Ref)
			}
			cells = append(cells, e.PoolAmount, e.Error)
			for _, kv := range FlattenData(e.Response) {
				data[pos[kv.Key]] = kv.Value
			}
		}
		return fn(append(cells, data...))
	}
	err = entries(ctx, rs.DB, rs.Run.ID, func(e Entry) error {
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

// WriteCSV (re)writes the results CSV at path: written to a temporary file
// beside it and renamed, so the file is always complete.
func (rs *Results) WriteCSV(ctx context.Context, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := csv.NewWriter(tmp)
	err = rs.each(ctx, func(cells []string) error { return w.Write(cells) })
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	return nil
}

// WriteXLSX (re)writes the results as a workbook at path (one sheet, header
// frozen, poolAmount as a number with two decimals, everything else text).
func (rs *Results) WriteXLSX(ctx context.Context, path string) error {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Results"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	amountStyle, err := f.NewStyle(&excelize.Style{NumFmt: 2})
	if err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	n, amountCol := 0, -1
	err = rs.each(ctx, func(cells []string) error {
		n++
		row := make([]any, len(cells))
		for i, c := range cells {
			row[i] = c
			if n == 1 && c == ColumnPoolAmount {
				amountCol = i
			}
			if n > 1 && i == amountCol && c != "" {
				if d, err := decimal.NewFromString(c); err == nil {
					v, _ := d.Float64() // an Excel number cell: the only place money is a float
					row[i] = excelize.Cell{StyleID: amountStyle, Value: v}
				}
			}
		}
		cell, _ := excelize.CoordinatesToCellName(1, n)
		return sw.SetRow(cell, row)
	})
	if err == nil {
		err = sw.Flush()
	}
	if err == nil {
		err = f.SaveAs(path)
	}
	if err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	return nil
}
