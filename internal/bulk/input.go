package bulk

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/redact"
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
// FILE:LINE: column: reason (the column is left out for whole-row
// problems), as free text: what a reason quotes of a cell has its card and
// Aadhaar numbers masked and its control characters escaped (redact.Text).
type Problem struct {
	Line   int
	Column string
	Reason string
}

// Format renders the problem for the named file.
func (p Problem) Format(file string) string {
	if p.Column == "" {
		return redact.Text(fmt.Sprintf("%s:%d: %s", file, p.Line, p.Reason))
	}
	return redact.Text(fmt.Sprintf("%s:%d: %s: %s", file, p.Line, p.Column, p.Reason))
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

// The budgets of a bulk input file (the README lists them): every row is
// held, built and checked before the first call, so a file is bounded in
// bytes and in rows, and its records in length.
const (
	MaxInputBytes = 64 << 20
	MaxInputRows  = 100000
	MaxInputLine  = 1 << 20 // one line of the file: a record, or part of one with quoted line breaks
)

// ReadTable reads a CSV file. A missing or empty file, one that is not a
// regular file (a FIFO, a device: a run reads its file again on resume),
// a file beyond its budgets (MaxInputBytes, MaxInputLine, MaxInputRows: a
// *budget.Error) or an unreadable header is an error; syntax errors of
// data records are collected in Table.Problems.
func ReadTable(path string) (*Table, error) {
	raw, err := budget.ReadFile(path, MaxInputBytes, "a bulk input file")
	var be *budget.Error
	if errors.As(err, &be) {
		be.Reason += " (split it into files of at most " + budget.Size(MaxInputBytes) + " and " + strconv.Itoa(MaxInputRows) + " rows)"
		return nil, be
	}
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

// ParseTable parses CSV bytes; name is used in messages only. A line
// longer than MaxInputLine, or more than MaxInputRows records, is a
// *budget.Error.
func ParseTable(name string, raw []byte) (*Table, error) {
	if n := budget.LongLine(raw, MaxInputLine); n > 0 {
		return nil, &budget.Error{Input: name, Line: n, Reason: "line longer than " + budget.Size(MaxInputLine) +
			", the longest a bulk input line may be (a cell holds at most 256 KiB)"}
	}
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
		if len(t.Records) == MaxInputRows {
			return nil, &budget.Error{Input: name, Line: line, Reason: fmt.Sprintf(
				"more than %d rows, the most a bulk input file may hold: split it", MaxInputRows)}
		}
		t.Records = append(t.Records, Record{Line: line, Cells: rec})
	}
	return t, nil
}

// ReadInput reads the run's input file and checks it is the file the run
// started with (same SHA-256): the journal matches rows by line. A changed
// file is an *InputChangedError.
func (r *Run) ReadInput() (*Table, error) {
	table, err := ReadTable(r.InputPath)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	if table.SHA256 != r.InputSHA256 {
		return nil, &InputChangedError{Run: r, SHA256: table.SHA256}
	}
	return table, nil
}

// InputChangedError is a run's input file that changed since the run
// started: its rows cannot be matched to the journal.
type InputChangedError struct {
	Run    *Run
	SHA256 string // the file's SHA-256 now
}

func (e *InputChangedError) Error() string {
	return fmt.Sprintf("run %s: %s changed since the run started (sha256 %.12s…, was %.12s…); its rows cannot be matched to the journal",
		e.Run.ID, e.Run.InputPath, e.SHA256, e.Run.InputSHA256)
}
