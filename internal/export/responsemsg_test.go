package export

import (
	"context"
	"iter"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// TestExportResponseMsgMasked: a service message quoting an Aadhaar and a
// card number reaches the Statement and Orders sheets and their CSV files
// with both masked to their last four, as the narrations are.
func TestExportResponseMsgMasked(t *testing.T) {
	const (
		msg  = "Aadhaar 739146280552 not linked to card 4111111111111111"
		want = "Aadhaar XXXXXXXX0552 not linked to card XXXXXXXXXXXX1111"
	)
	for _, tc := range []struct {
		sheet, file string
		kind        recon.Kind
	}{
		{"Statement", "statement.csv", recon.Statement},
		{"Orders", "orders.csv", recon.Orders},
	} {
		rec := &store.ReportRecord{Record: recon.Record{Kind: tc.kind, Account: "A1", SvcOrderID: "S1"}}
		rec.Values[recon.FTxnDate] = "2026-11-01"
		rec.Values[recon.FResponseMsg] = msg
		seq := iter.Seq2[*store.ReportRecord, error](func(yield func(*store.ReportRecord, error) bool) { yield(rec, nil) })
		s := recordSheet(tc.sheet, tc.kind, nil, seq, nil)
		if s.File != tc.file {
			t.Fatalf("%s sheet's file = %q, want %q", tc.sheet, s.File, tc.file)
		}
		w, err := NewWriter(Options{Dir: t.TempDir(), Format: FormatBoth}, "r.xlsx")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if err := w.Write(context.Background(), s.Table, s.rows); err != nil {
			t.Fatal(err)
		}
		files, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		recs := readCSV(t, files.CSV[0])
		col := colIndex(recs[0], "responseMsg")
		if col < 0 || len(recs) != 2 {
			t.Fatalf("%s: header %q, %d records", tc.file, recs[0], len(recs))
		}
		if got := recs[1][col]; got != want {
			t.Errorf("%s responseMsg = %q, want %q", tc.file, got, want)
		}
		r := rows(t, openBook(t, files.Workbook), tc.sheet)
		if got := r[1][colIndex(r[0], "responseMsg")]; got != want {
			t.Errorf("%s sheet responseMsg = %q, want %q", tc.sheet, got, want)
		}
	}
}
