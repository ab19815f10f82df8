// Package export writes what svcrecon stored as the files analysts open: the
// reconciliation workbook (reconciliation-<from>_<to>.xlsx, excelize's
// StreamWriter) with one CSV file per sheet, and the biller list
// (billers.xlsx / billers.csv with the change log of the last biller sync).
//
// Export reads the database only (the tables of the store's migrations) and
// never calls the service. Rows are streamed from SQLite to the workbook and
// the CSV files in one pass per sheet; no table is held in memory.
//
// Workbook conventions: the header row is frozen and is the header of an
// Excel table (filter buttons); column widths are computed from the header
// and the first rows; amounts are numbers with a 2-decimal format (negative
// deltas in red); dates and date-times are Excel dates; break rows carry a
// red fill, rows that need a look (pending, unsettled over 30 days) a yellow
// one. A sheet longer than Options.MaxRows continues on "Name (2)", "Name
// (3)" … each with its header.
//
// CSV conventions: RFC 4180 (CRLF line ends, quotes only where needed),
// UTF-8 with an optional byte-order mark, the same columns as the sheet,
// amounts as the exact decimal strings stored, dates and times as stored,
// booleans as true/false. summary.csv is a key/value table with the columns
// section, key, value (see summaryPairs).
//
// Sheets: Summary (period, pools, calls, outcomes, breaks, reversals,
// unsettled by age, pending, the statement's debits and credits per day and
// a chart of them), Breaks (the unexplained breaks first, then the
// explained gaps, each by time), Matching (every recon_matches row), Duplicates
// and Pending (its duplicateDebit and pending rows), Reversals, Unsettled
// (the run's rows), Statement (every records column of the period's
// statement records plus reversed) and Orders (the period's collect orders
// plus unsettled, ageDays and ageBucket against the run's as-of date; older
// unsettled orders are on Unsettled).
//
// Card and Aadhaar numbers that appear in free-text columns (the narration
// values) are masked to their last four digits; nothing of a call's request
// is exported.
package export

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
)

// Format says which files to write.
type Format string

// The formats.
const (
	FormatXLSX Format = "xlsx"
	FormatCSV  Format = "csv"
	FormatBoth Format = "both"
)

// ParseFormat checks a --format value ("" means both).
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "":
		return FormatBoth, nil
	case FormatXLSX, FormatCSV, FormatBoth:
		return Format(s), nil
	}
	return "", fmt.Errorf("format %q: want xlsx, csv or both", s)
}

func (f Format) xlsx() bool { return f == FormatXLSX || f == FormatBoth || f == "" }
func (f Format) csv() bool  { return f == FormatCSV || f == FormatBoth || f == "" }

// ExcelMaxRows is Excel's row limit per sheet.
const ExcelMaxRows = 1048576

// Options configure an export.
type Options struct {
	// From and To are the period (dates; their own wall-clock date is used).
	From, To time.Time
	// Dir is the output directory (created when missing).
	Dir string
	// Format is xlsx, csv or both ("" = both).
	Format Format
	// BOM starts every CSV file with a UTF-8 byte-order mark (for Excel).
	BOM bool
	// MaxRows is the number of rows per sheet including the header; a longer
	// sheet continues on "Name (2)" … Default ExcelMaxRows.
	MaxRows int
	// Log receives one line per sheet; nil discards.
	Log *slog.Logger
	// Progress, when set, shows a progress bar for the long sheets
	// (Statement, Orders) on this writer (a terminal) or logs progress lines.
	Progress io.Writer
}

func (o *Options) defaults() {
	if o.MaxRows < 2 || o.MaxRows > ExcelMaxRows {
		o.MaxRows = ExcelMaxRows
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Format == "" {
		o.Format = FormatBoth
	}
	if o.Dir == "" {
		o.Dir = "."
	}
}

// Files are the paths written.
type Files struct {
	Workbook string   // "" when no workbook was asked for
	CSV      []string // in sheet order
}

// Paths lists every file written, the workbook first.
func (f Files) Paths() []string {
	var out []string
	if f.Workbook != "" {
		out = append(out, f.Workbook)
	}
	return append(out, f.CSV...)
}

// ErrNoRun is matched (errors.Is) by the error Reconciliation returns when
// the period has no current reconciliation run.
var ErrNoRun = errors.New("no reconciliation run")

// NoRunError says that no current (not superseded, state ok)
// reconciliation run exists for the period.
type NoRunError struct{ From, To string }

func (e *NoRunError) Error() string {
	return fmt.Sprintf("no reconciliation run for %s..%s; run reconcile check first", e.From, e.To)
}

// Is makes errors.Is(err, ErrNoRun) true.
func (e *NoRunError) Is(target error) bool { return target == ErrNoRun }

// run is the reconciliation run exported.
type run struct {
	id         int64
	from, to   string
	asOf       string
	finishedAt string
	summary    string
}

// currentRun finds the newest run of the period that is not superseded and
// finished ok.
func currentRun(ctx context.Context, db *sql.DB, from, to string) (*run, error) {
	r := &run{from: from, to: to}
	var fin sql.NullString
	err := db.QueryRowContext(ctx, `SELECT id, as_of, finished_at, summary FROM recon_runs
		WHERE period_from = ? AND period_to = ? AND superseded_by IS NULL AND state = 'ok'
		ORDER BY id DESC LIMIT 1`, from, to).Scan(&r.id, &r.asOf, &fin, &r.summary)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &NoRunError{From: from, To: to}
	}
	if err != nil {
		return nil, fmt.Errorf("find reconciliation run %s..%s: %w", from, to, err)
	}
	r.finishedAt = fin.String
	if r.asOf == "" {
		r.asOf = to
	}
	return r, nil
}

// Reconciliation exports the current reconciliation run of the period
// o.From..o.To: reconciliation-<from>_<to>.xlsx with the sheets Summary,
// Breaks, Matching, Duplicates, Reversals, Unsettled, Pending, Statement and
// Orders, and/or one CSV file per sheet (summary.csv … orders.csv) in o.Dir.
// Without a current run of the period it returns a *NoRunError (ErrNoRun).
// Files are written under temporary names and renamed when complete; on
// error nothing half-written is left under a final name.
func Reconciliation(ctx context.Context, db *store.DB, o Options) (Files, error) {
	o.defaults()
	from, to := o.From.Format(time.DateOnly), o.To.Format(time.DateOnly)
	if to < from {
		return Files{}, fmt.Errorf("export %s..%s: the period ends before it starts", from, to)
	}
	r, err := currentRun(ctx, db.DB, from, to)
	if err != nil {
		return Files{}, err
	}
	sum, err := parseSummary(r.summary)
	if err != nil {
		return Files{}, fmt.Errorf("export run %d: %w", r.id, err)
	}
	daily, err := dailyTotals(ctx, db.DB, from, to)
	if err != nil {
		return Files{}, err
	}
	o.Log.Info("export reconciliation", "from", from, "to", to, "run", r.id, "dir", o.Dir, "format", string(o.Format))
	w, err := newWriter(o, fmt.Sprintf("reconciliation-%s_%s.xlsx", from, to))
	if err != nil {
		return Files{}, err
	}
	defer w.abort()
	if err := w.summary(r, sum, daily); err != nil {
		return Files{}, err
	}
	for _, s := range reconSheets(r) {
		if err := w.sheet(ctx, db.DB, s); err != nil {
			return Files{}, err
		}
	}
	// The sheets were read in separate queries: make sure a check of the
	// same period did not replace the run (and delete its rows) meanwhile.
	var superseded sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT superseded_by FROM recon_runs WHERE id = ?`, r.id).Scan(&superseded); err != nil {
		return Files{}, fmt.Errorf("export run %d: recheck: %w", r.id, err)
	}
	if superseded.Valid {
		return Files{}, fmt.Errorf("export %s..%s: run %d was replaced by run %d during the export; export again", from, to, r.id, superseded.Int64)
	}
	return w.finish()
}

// Billers exports the biller list: billers.xlsx with the sheets Billers and
// Changes (the change log of the last biller sync), and/or billers.csv and
// billers-changes.csv, in dir (o.Dir when dir is ""). o.From, o.To are not
// used.
func Billers(ctx context.Context, db *store.DB, dir string, o Options) (Files, error) {
	if dir != "" {
		o.Dir = dir
	}
	o.defaults()
	o.Log.Info("export billers", "dir", o.Dir, "format", string(o.Format))
	w, err := newWriter(o, "billers.xlsx")
	if err != nil {
		return Files{}, err
	}
	defer w.abort()
	syncID, err := lastBillerSync(ctx, db.DB)
	if err != nil {
		return Files{}, err
	}
	for _, s := range billerSheets(syncID) {
		if err := w.sheet(ctx, db.DB, s); err != nil {
			return Files{}, err
		}
	}
	return w.finish()
}

// output is a file written under a temporary name and renamed on commit.
type output struct {
	f     *os.File
	final string
}

func create(dir, name string) (*output, error) {
	f, err := os.CreateTemp(dir, "."+name+".*.partial")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Join(dir, name), err)
	}
	return &output{f: f, final: filepath.Join(dir, name)}, nil
}

func (o *output) commit() (string, error) {
	if err := o.f.Close(); err != nil {
		os.Remove(o.f.Name())
		return "", fmt.Errorf("write %s: %w", o.final, err)
	}
	if err := os.Chmod(o.f.Name(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", o.final, err)
	}
	if err := os.Rename(o.f.Name(), o.final); err != nil {
		os.Remove(o.f.Name())
		return "", fmt.Errorf("write %s: %w", o.final, err)
	}
	return o.final, nil
}

func (o *output) discard() {
	o.f.Close()
	os.Remove(o.f.Name())
}
