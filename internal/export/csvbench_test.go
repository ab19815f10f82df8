package export

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// BenchmarkCSVWriter measures the CSV writer alone: the export's table
// writer (formula-safe cells, numbers kept as numbers, written to a temp
// file and renamed) fed the Statement sheet's rows from memory, against
// encoding/csv writing the same rows (floor-csv of BenchmarkStatement). It
// is the writing half of a CSV export; BenchmarkStatement's export-csv and
// floor-csv-db add the reading of the rows from SQLite.
//
//	go test ./internal/export -run '^$' -bench CSVWriter -benchtime 3x
func BenchmarkCSVWriter(b *testing.B) {
	n := benchRows(b)
	// The Statement sheet's table, as the export builds it.
	sh := recordSheet("Statement", recon.Statement, []Column{{"reversed", Bool, false}}, nil, nil)
	t := Table{Sheet: sh.Sheet, File: "statement.csv", Columns: sh.Columns}
	rows := func(yield func(Row, error) bool) {
		row := make([]string, len(t.Columns))
		for i := 0; i < n; i++ {
			benchRow(i, n, row)
			if !yield(Row{Cells: row}, nil) {
				return
			}
		}
	}
	b.Run("writer", func(b *testing.B) {
		for b.Loop() {
			out := b.TempDir()
			peak(b, func() {
				w, err := NewWriter(Options{Dir: out, Format: FormatCSV}, "")
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(context.Background(), t, rows); err != nil {
					b.Fatal(err)
				}
				if _, err := w.Finish(); err != nil {
					b.Fatal(err)
				}
			})
			reportSize(b, out)
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds()*float64(b.N), "rows/s")
	})
	b.Run("floor-csv", func(b *testing.B) {
		for b.Loop() {
			out := b.TempDir()
			peak(b, func() { floorCSV(b, filepath.Join(out, "floor"), n) })
			reportSize(b, out)
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds()*float64(b.N), "rows/s")
	})
}
