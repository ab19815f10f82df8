// Package export writes what svcrecon stored as the files analysts open: the
// reconciliation workbook (reconciliation-<from>_<to>.xlsx, excelize's
// StreamWriter) with one CSV file per sheet, and the biller list
// (billers.xlsx / billers.csv with the change log of the last biller sync).
//
// Export reads the store only, through the interfaces it declares (Reports,
// BillerReports), and never calls the service. Rows are streamed from the
// store to the workbook and the CSV files in one pass per sheet; no table is
// held in memory. Writer, the one table writer, also writes bulk results.
//
// How a table is written (for speed, memory and disk, at any length): its
// rows are read from the store in a goroutine of their own (the store
// reads ahead), made into cell values and CSV records by Writer.Write's
// goroutine, and written by two more at once, the sheet and the CSV file
// (pipe: a few batches of rows in flight, whatever the table's length).
// excelize's StreamWriter writes each sheet's header row, column widths,
// panes, table and print setup; the rows themselves are written as the
// XML its SetRow would write (rowXML, byte for byte) and deflated, in
// blocks on every CPU, into a temporary file beside the workbook while
// they are made; when excelize writes the workbook, its zip writer
// (zipWriter) puts them in their sheet. So the workbook is deflated while
// it is written, and the disk holds the deflated rows, not their XML.
//
// Workbook conventions: the header row is frozen and is the header of an
// Excel table (filter buttons); column widths are computed from the header
// and the first rows; amounts are numbers with a 2-decimal format (negative
// deltas in red); dates and date-times are Excel dates, every time shown
// with its zone (IST); break rows carry a red fill, rows that need a look
// (pending, unsettled over 30 days) a yellow one; text longer than 40
// characters wraps, its row as high as it needs. Every sheet prints on A4
// (the Summary and the Legend portrait, the others landscape), one page
// wide when that prints its type at 8 pt or more, else at 75% across
// pages (printSetup), its header row repeated on every page, with a footer
// naming the sheet, the page and the run. The document properties name
// svcrecon, its version and the time of writing. A sheet longer than
// Options.MaxRows continues on "Name (2)", "Name (3)" … each with its
// header.
//
// CSV conventions: RFC 4180 (CRLF line ends, quotes only where needed),
// UTF-8 with an optional byte-order mark, the same columns as the sheet,
// amounts as the exact decimal strings stored, dates and times as stored,
// booleans as true/false; text cells a spreadsheet could take for a
// formula (=, +, -, @ or their full-width forms after any leading blanks
// and quotes, or a leading TAB or CR: formulaLike) get a leading ' (OWASP's
// rule against formula injection, widened) unless they are plain numbers or Options.CSVRaw is set. summary.csv is a key/value table
// with the columns section, key, value, holding what the Summary sheet
// shows (see summaryPairs).
//
// Files: each is written to a temporary file in its directory
// (.NAME.<digits>.partial, mode 0666 less the umask), synced and renamed,
// so a final name holds a whole file or the previous one; a rewrite never
// widens the mode of the file it replaces, and removes the temporary files
// that killed writes of the same file left behind.
//
// Evidence (Options.Evidence, evidence.go): the Exceptions sheet
// (exceptions.csv) with the run's exceptions and those it resolved, an
// analyst's Decision (a drop-down), Assignee and Note to hand back; the
// columns exception and life at the end of Breaks, Matching, Duplicates,
// Reversals, Unsettled and Pending; the Summary's run id, manifest digest,
// exceptions new, carried over and resolved, and sign-offs (rows at the
// end of summary.csv); an incomplete period's verdict.
//
// Sheets: Summary (the verdict in words, the bridge from each pool
// account's opening balance to its closing balance checked against the
// last call's closing, the period, pools, calls, outcomes, breaks,
// reversals, unsettled by age, pending, suggested pairs, the statement's
// debits and credits per day and a chart of them), Legend (every outcome,
// break kind and age bucket in a sentence, with what to do; no CSV file),
// Breaks (the unexplained breaks first, then the explained gaps, each by
// time), Matching (every matching row: recon_matches and the plain matches
// of recon_matched, the exceptions first, with
// suggestedPair), Duplicates and Pending (its duplicateDebit and pending
// rows), Reversals (only unlinked rows red), Unsettled (the run's rows,
// beforePeriod marking orders older than the period), Fees (the debits
// charged other than the rate card's price and the products without one,
// fees.go; no rows when the run had no rate card), Statement (every
// records column of the period's statement records plus reversed) and
// Orders (the period's collect orders plus unsettled, ageDays and ageBucket
// against the run's as-of date; older unsettled orders are on Unsettled).
//
// Card and Aadhaar numbers that appear in free-text columns (the narration
// values) are masked to their last four digits; nothing of a call's request
// is exported.
package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"time"

	"github.com/svcrecon/svcrecon/internal/buildinfo"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
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
	// LF ends CSV lines with LF alone instead of CRLF (bulk results).
	LF bool
	// CSVRaw writes CSV text cells exactly as they are (--csv-raw, for
	// machines that read the files back). By default a text cell that
	// could be a formula (=, +, -, @ or their full-width forms after any
	// leading blanks and quotes, or a leading TAB or CR) gets a leading '
	// so that a spreadsheet never runs it; numbers stay numbers.
	CSVRaw bool
	// Title is the workbook's title (its document properties).
	Title string
	// Run names what the workbook reports on ("run 12", "bulk run 7KQ2M")
	// in the footer of every printed page; "" leaves it out.
	Run string
	// Version is svcrecon's version for the document properties; "" reads
	// it from the build information (buildinfo.Version).
	Version string
	// Now is the clock of the document properties' creation time; nil is
	// time.Now.
	Now func() time.Time
	// Evidence reads the evidence of the reconciliation run exported (its
	// manifest, exceptions and sign-offs: evidence.Workbook); nil shows
	// none.
	Evidence func(ctx context.Context, runID int64) (*evidence.View, error)
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
	if o.Version == "" {
		o.Version = buildinfo.Version()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Files are the paths written.
type Files struct {
	Workbook string   // "" when no workbook was asked for
	CSV      []string // in sheet order
	// RunID is the reconciliation run exported (0 for other exports);
	// Tables the tables written, with their rows.
	RunID  int64
	Tables []TableRows
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

// Reports is what Reconciliation reads: the current run of a period, its
// result rows and the period's records, each as one ordered stream.
// *store.DB implements it.
type Reports interface {
	ReportRun(ctx context.Context, from, to string) (ledger.Run, bool, error)
	ReportRunSupersededBy(ctx context.Context, id int64) (int64, error)
	ReportDays(ctx context.Context, from, to string) ([]store.ReportDay, error)
	ReportHasRecords(ctx context.Context, from, to string) (bool, error)
	ReportBreaks(ctx context.Context, runID int64) iter.Seq2[*ledger.Break, error]
	ReportBreakTotals(ctx context.Context, runID int64) ([]store.ReportBreakTotal, error)
	ReportSuggestedPairs(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error]
	ReportMatches(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error]
	ReportDuplicates(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error]
	ReportPending(ctx context.Context, runID int64) iter.Seq2[*ledger.Match, error]
	ReportReversals(ctx context.Context, runID int64) iter.Seq2[*ledger.Reversal, error]
	ReportUnsettled(ctx context.Context, runID int64) iter.Seq2[*ledger.Unsettled, error]
	ReportDifferences(ctx context.Context, runID int64) iter.Seq2[*ledger.Difference, error]
	ReportFees(ctx context.Context, runID int64) iter.Seq2[*ledger.Fee, error]
	ReportRecords(ctx context.Context, k recon.Kind, from, to string) iter.Seq2[*store.ReportRecord, error]
	CountReportRecords(ctx context.Context, k recon.Kind, from, to string) (int64, error)
}

// BillerReports is what Billers reads. *store.DB implements it.
type BillerReports interface {
	ReportLastBillerSync(ctx context.Context) (int64, error)
	ReportBillers(ctx context.Context) iter.Seq2[*store.ReportBiller, error]
	ReportBillerChanges(ctx context.Context, syncID int64) iter.Seq2[*store.ReportBillerChange, error]
}

var (
	_ Reports       = (*store.DB)(nil)
	_ BillerReports = (*store.DB)(nil)
)

// Reconciliation exports the current reconciliation run of the period
// o.From..o.To: reconciliation-<from>_<to>.xlsx with the sheets Summary,
// Legend, Breaks, Matching, Duplicates, Reversals, Unsettled, Pending,
// Fees, Statement and Orders, and/or one CSV file per sheet but the Legend
// (summary.csv … orders.csv) in o.Dir.
// Without a current run of the period it returns a *NoRunError (ErrNoRun).
// Files are written under temporary names and renamed when complete; on
// error nothing half-written is left under a final name.
func Reconciliation(ctx context.Context, db Reports, o Options) (Files, error) {
	o.defaults()
	from, to := o.From.Format(recon.DateLayout), o.To.Format(recon.DateLayout)
	if to < from {
		return Files{}, fmt.Errorf("export %s..%s: the period ends before it starts", from, to)
	}
	r, found, err := db.ReportRun(ctx, from, to)
	if err != nil {
		return Files{}, fmt.Errorf("export %s..%s: %w", from, to, err)
	}
	if !found {
		return Files{}, &NoRunError{From: from, To: to}
	}
	if r.AsOf == "" {
		r.AsOf = to
	}
	sd, err := loadSummary(ctx, db, &r)
	if err != nil {
		return Files{}, fmt.Errorf("export %s..%s: %w", from, to, err)
	}
	o.Log.Info("export reconciliation", "from", from, "to", to, "run", r.ID, "dir", o.Dir, "format", string(o.Format))
	o.Title = fmt.Sprintf("Reconciliation %s to %s", from, to)
	o.Run = fmt.Sprintf("reconciliation run %d", r.ID)
	ev, err := o.evidence(ctx, r.ID)
	if err != nil {
		return Files{}, fmt.Errorf("export %s..%s: %w", from, to, err)
	}
	sd.verdict = withCompleteness(sd.verdict, ev)
	w, err := NewWriter(o, fmt.Sprintf("reconciliation-%s_%s.xlsx", from, to))
	if err != nil {
		return Files{}, err
	}
	defer w.Abort()
	w.ev = ev
	if err := w.summary(sd); err != nil {
		return Files{}, err
	}
	for _, s := range reconTables(ctx, db, &r, ev) {
		if err := w.Write(ctx, s.Table, s.rows); err != nil {
			return Files{}, err
		}
	}
	// The sheets were read in separate queries: make sure a check of the
	// same period did not replace the run (and delete its rows) meanwhile.
	by, err := db.ReportRunSupersededBy(ctx, r.ID)
	if err != nil {
		return Files{}, fmt.Errorf("export run %d: recheck: %w", r.ID, err)
	}
	if by != 0 {
		return Files{}, fmt.Errorf("export %s..%s: run %d was replaced by run %d during the export; export again", from, to, r.ID, by)
	}
	files, err := w.Finish()
	files.RunID = r.ID
	return files, err
}

// reconTables are the tables of a reconciliation run's export after the
// Summary: Exceptions, Legend, then the run's sheets (reconSheets) with
// their exceptions' lives (withLives).
func reconTables(ctx context.Context, db Reports, r *ledger.Run, ev *evidence.View) []sheet {
	return append([]sheet{exceptionsSheet(ev), legendSheet(&r.Summary)}, withLives(ev, reconSheets(ctx, db, r))...)
}

// Billers exports the biller list: billers.xlsx with the sheets Billers and
// Changes (the change log of the last biller sync), and/or billers.csv and
// billers-changes.csv, in dir (o.Dir when dir is ""). o.From, o.To are not
// used.
func Billers(ctx context.Context, db BillerReports, dir string, o Options) (Files, error) {
	if dir != "" {
		o.Dir = dir
	}
	o.defaults()
	o.Log.Info("export billers", "dir", o.Dir, "format", string(o.Format))
	o.Title = "Billers"
	w, err := NewWriter(o, "billers.xlsx")
	if err != nil {
		return Files{}, err
	}
	defer w.Abort()
	syncID, err := db.ReportLastBillerSync(ctx)
	if err != nil {
		return Files{}, err
	}
	for _, s := range billerSheets(ctx, db, syncID) {
		if err := w.Write(ctx, s.Table, s.rows); err != nil {
			return Files{}, err
		}
	}
	return w.Finish()
}
