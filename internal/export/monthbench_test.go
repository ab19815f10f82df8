package export

import (
	"archive/zip"
	"compress/flate"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/store"
)

// BenchmarkMonth exports a whole month, every sheet (Summary, Exceptions,
// Legend, Breaks, Matching, …, Fees, Statement, Orders) with the run's
// evidence, as `reconcile export` does,
// beside its floor: excelize's StreamWriter writing the same sheets (the
// same rows, continued past Options.MaxRows on "Name (2)" …, with the same
// cell values and the same styles and number formats, empty cells of
// unmarked rows left out) with nothing else: the values already in memory,
// no column widths, table, panes or print setup, no database, no CSV.
//
// The month is EXPORT_BENCH_DB, a database holding a reconciliation run
// (the newest current one is exported; e.g. a copy of the 1M-call
// month of docs/benchmarks.md), or else a synthetic month of
// EXPORT_BENCH_ROWS statement records (default 1,000,000) and as many
// plain matches, built in a temporary directory (or at EXPORT_BENCH_MAKE,
// kept for later runs, when that is set and missing).
//
//	EXPORT_BENCH_DB=/tmp/month.db go test ./internal/export -run '^$' -bench Month -benchtime 1x -timeout 60m
//
// The sub-benchmarks:
//   - export-both, export-xlsx, export-csv: Reconciliation in that format;
//   - floor: the bare StreamWriter, then File.SaveAs (excelize's own
//     zip, at its default compression);
//   - floor-fast: the same, its zip deflated at BestSpeed straight into
//     the file, as the export writes its workbook.
//
// Values in memory: each sheet's rows are read, converted to cell values
// (numbers, dates, booleans, text) and styled before the clock starts; to
// keep that in bounds (a large live heap would cost the floor's collector
// more than the sheet), a sheet longer than floorRing rows is written
// from its first floorRing rows, again and again: the same number of rows
// of the same kinds of values, in the same order (which deflate finds as
// alike as the real ones), their row numbers the real ones. Each reports cpu-s, peak-RSS-MB, peak-heap-MB and out-MB
// (see peak).
func BenchmarkMonth(b *testing.B) {
	db, from, to := monthDB(b)
	defer db.Close()
	for _, f := range []Format{FormatBoth, FormatXLSX, FormatCSV} {
		b.Run("export-"+string(f), func(b *testing.B) {
			for b.Loop() {
				out := b.TempDir()
				peak(b, func() {
					o := Options{From: from, To: to, Dir: out, Format: f, Evidence: func(ctx context.Context, id int64) (*evidence.View, error) {
						return evidence.Workbook(ctx, db, id)
					}}
					if _, err := Reconciliation(context.Background(), db, o); err != nil {
						b.Fatal(err)
					}
				})
				reportSize(b, out)
			}
		})
	}
	var sheets []floorSheet
	var styles []styleKey
	for _, fast := range []bool{false, true} {
		name := "floor"
		if fast {
			name = "floor-fast"
		}
		b.Run(name, func(b *testing.B) {
			if sheets == nil { // read only when a floor runs
				sheets, styles = floorSheets(b, db, from, to)
			}
			for b.Loop() {
				out := b.TempDir()
				peak(b, func() {
					if err := writeFloor(sheets, styles, filepath.Join(out, "floor.xlsx"), fast); err != nil {
						b.Fatal(err)
					}
				})
				reportSize(b, out)
			}
		})
	}
}

// floorRing is how many rows of a sheet the floor holds in memory.
const floorRing = 4096

// floorSheet is one sheet of the floor: its header and a sample of its
// rows as cells (nil: an empty cell of an unmarked row), and how many rows
// it has.
type floorSheet struct {
	name   string
	header []any
	ring   [][]any
	n      int
}

// floorSheets reads the month's sheets (all but the Summary, whose cells
// are set one by one) into memory as the floor writes them. Their styles
// are made in a workbook of their own: styles lists them in the order
// made, for the floor's workbook to make them in the same order (and so
// with the same numbers).
func floorSheets(b *testing.B, db *store.DB, from, to time.Time) (sheets []floorSheet, styles []styleKey) {
	ctx := context.Background()
	r, found, err := db.ReportRun(ctx, from.Format(recon.DateLayout), to.Format(recon.DateLayout))
	if err != nil || !found {
		b.Fatalf("run: %v %v", found, err)
	}
	if r.AsOf == "" {
		r.AsOf = r.To
	}
	w := &Writer{f: excelize.NewFile(), styles: map[styleKey]int{}}
	defer w.f.Close()
	ev, err := evidence.Workbook(ctx, db, r.ID)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range reconTables(ctx, db, &r, ev) {
		fs := floorSheet{name: s.Sheet, header: make([]any, len(s.Columns))}
		for i, c := range s.Columns {
			fs.header[i] = c.Name
		}
		for row, err := range s.rows {
			if err != nil {
				b.Fatal(err)
			}
			if fs.n++; len(fs.ring) == floorRing {
				continue
			}
			cells := make([]any, len(s.Columns))
			for i, c := range s.Columns {
				if i >= len(row.Cells) || row.Cells[i] == "" {
					if row.Mark != MarkNone {
						cells[i] = excelize.Cell{StyleID: w.cellStyle(Text, row.Mark)}
					}
					continue
				}
				v := row.Cells[i]
				if c.Mask {
					v = redact.Numbers(v)
				}
				k := c.Kind
				val := cellValue(k, v)
				if _, ok := val.(string); ok {
					k = Text
				}
				cells[i] = excelize.Cell{StyleID: w.cellStyle(k, row.Mark), Value: val}
			}
			fs.ring = append(fs.ring, cells)
		}
		sheets = append(sheets, fs)
	}
	styles = make([]styleKey, 0, len(w.styles))
	for k := range w.styles {
		styles = append(styles, k)
	}
	slices.SortFunc(styles, func(a, b styleKey) int { return w.styles[a] - w.styles[b] })
	return sheets, styles
}

// writeFloor writes the floor's sheets with bare StreamWriters and saves
// the workbook: with SaveAs, or (fast) deflated at BestSpeed into the
// file.
func writeFloor(sheets []floorSheet, styles []styleKey, path string, fast bool) error {
	f := excelize.NewFile()
	defer f.Close()
	w := &Writer{f: f, styles: map[styleKey]int{}}
	for _, k := range styles { // the same styles as floorSheets made, in the same order
		w.style(k.kind, k.mark, k.role)
	}
	for _, s := range sheets {
		for part, lo := 1, 0; lo == 0 || lo < s.n; part, lo = part+1, lo+ExcelMaxRows-1 {
			name := s.name
			if part > 1 {
				name = fmt.Sprintf("%s (%d)", s.name, part)
			}
			if err := w.newSheet(name); err != nil {
				return err
			}
			sw, err := f.NewStreamWriter(name)
			if err != nil {
				return err
			}
			if err := sw.SetRow("A1", s.header); err != nil {
				return err
			}
			for i := lo; i < min(lo+ExcelMaxRows-1, s.n); i++ {
				if err := sw.SetRow("A"+strconv.Itoa(i-lo+2), s.ring[i%len(s.ring)]); err != nil {
					return err
				}
			}
			if err := sw.Flush(); err != nil {
				return err
			}
		}
	}
	if !fast {
		return f.SaveAs(path)
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter {
		zw := zip.NewWriter(fh)
		zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			return flate.NewWriter(out, flate.BestSpeed)
		})
		return zw
	})
	return errors.Join(f.Write(io.Discard), fh.Close())
}

// monthDB opens EXPORT_BENCH_DB and finds the period of its newest current
// run, or builds a synthetic month (see BenchmarkMonth).
func monthDB(b *testing.B) (db *store.DB, from, to time.Time) {
	ctx := context.Background()
	path := os.Getenv("EXPORT_BENCH_DB")
	if path == "" {
		n := benchRows(b)
		path = os.Getenv("EXPORT_BENCH_MAKE")
		if path == "" {
			path = filepath.Join(b.TempDir(), "month.db")
		}
		if _, err := os.Stat(path); err != nil {
			start := time.Now()
			buildMonth(b, path, n)
			b.Logf("built a month of %d records and matches in %v", n, time.Since(start).Round(time.Second))
		}
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	var f, t string
	err = db.QueryRowContext(ctx, `SELECT period_from, period_to FROM recon_runs
		WHERE state = 'ok' AND superseded_by IS NULL ORDER BY id DESC LIMIT 1`).Scan(&f, &t)
	if err != nil {
		b.Fatalf("%s: the newest run: %v", path, err)
	}
	from, _ = time.ParseInLocation(recon.DateLayout, f, recon.IST)
	to, _ = time.ParseInLocation(recon.DateLayout, t, recon.IST)
	return db, from, to
}

// buildMonth writes a synthetic month to path: n statement records of
// 2026-11 (benchRecord), a call for each and a run (2026-11-01..30) that
// matched every call to its record, with a few breaks and exceptions.
func buildMonth(b *testing.B, path string, n int) {
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `INSERT INTO recon_runs (id, period_from, period_to, as_of, started_at, finished_at, state, summary)
		VALUES (1, '2026-11-01', '2026-11-30', '2026-11-30', ?1, ?1, 'ok', '{}')`, benchStamp)
	if err != nil {
		b.Fatal(err)
	}
	const batch = 50_000
	for lo := 0; lo < n; lo += batch {
		err := db.Write(ctx, func(tx *sql.Tx) error { return monthBatch(ctx, tx, lo, min(lo+batch, n), n) })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// monthBatch inserts records, calls and matches lo..hi-1 of n; every
// 1000th is an exception (amountMismatch) with a break, the rest plain
// matches.
func monthBatch(ctx context.Context, tx *sql.Tx, lo, hi, n int) error {
	var sts []*sql.Stmt
	for _, q := range []string{benchInsert,
		`INSERT INTO calls (id, line_hash, source, ts, operation, external_ref, orderid, statuscode, outcome,
			pool_account, pool_shape, pool_opening, pool_amount, pool_closing, imported_at)
			VALUES (?1, 'h' || ?1, 'calls.jsonl', ?2, 'verifyPanPlusV2', ?3, ?4, 'TXN', 'success',
			'0409000123456', 'A', '1000.00', ?5, '900.00', ?6)`,
		`INSERT INTO recon_matched (run_id, seq, call_id, svc_order_id, amount) VALUES (1, ?1, ?1, ?2, ?3)`,
		`INSERT INTO recon_matches (run_id, outcome, call_id, svc_order_id, external_ref, operation, ts,
			call_amount, statement_amount, delta, note, suggested_pair)
			VALUES (1, ?1, ?2, ?3, ?4, 'verifyPanPlusV2', ?5, ?6, ?6, '0.00', ?7, '')`,
		`INSERT INTO recon_breaks (run_id, pool_account, kind, call_id, prev_call_id, ts, external_ref,
			expected, actual, delta, explained_by, note)
			VALUES (1, '0409000123456', 'gap', ?1, ?1 - 1, ?2, ?3, '900.00', '899.00', '1.00', '', 'synthetic gap')`,
	} {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer st.Close()
		sts = append(sts, st)
	}
	for i := lo; i < hi; i++ {
		id, at, date, ref, mode, amt, narr, closing := benchRecord(i, n)
		if _, err := sts[0].ExecContext(ctx, "statement", id, at, date, ref, mode, amt, narr, closing); err != nil {
			return err
		}
		if _, err := sts[1].ExecContext(ctx, i+1, at, ref, id, amt, benchStamp); err != nil {
			return err
		}
		var err error
		if i%1000 == 999 {
			if _, err = sts[3].ExecContext(ctx, recon.AmountMismatch, i+1, id, ref, at, amt, "amounts differ: call "+amt); err == nil {
				_, err = sts[4].ExecContext(ctx, i+1, at, ref)
			}
		} else {
			_, err = sts[2].ExecContext(ctx, i+1, id, amt)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
