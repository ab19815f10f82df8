package export

import "testing"

// TestExportCSVFormulaGuard: every cell a spreadsheet could take for a
// formula — after leading blanks or quotes, or in full-width forms — is
// written with a leading ', and plain numbers stay numbers.
func TestExportCSVFormulaGuard(t *testing.T) {
	tests := []struct{ in, want string }{
		{"=1+1", "'=1+1"},
		{" =1+1", "' =1+1"},
		{"  @SUM(A1)", "'  @SUM(A1)"},
		{"\n=1+1", "'\n=1+1"},
		{"\r\n+1", "'\r\n+1"},
		{"\t=1", "'\t=1"},
		{`"=1+1"`, `'"=1+1"`},
		{` " -cmd`, `' " -cmd`},
		{"＝1+1", "'＝1+1"},
		{"＋1+1", "'＋1+1"},
		{"－1+1", "'－1+1"},
		{"＠SUM(1)", "'＠SUM(1)"},
		{" ＝1", "' ＝1"},
		{"-12.50", "-12.50"},
		{"+5", "+5"},
		{"-0.01", "-0.01"},
		{" -12.50", " -12.50"},
		{"plain text", "plain text"},
		{"a=b", "a=b"},
		{"  x", "  x"},
		{"1-2", "1-2"},
	}
	table := Table{Sheet: "S", File: "s.csv", Columns: []Column{{"v", Text, false}, {"amt", Amount, false}}}
	var cells [][]string
	for _, tt := range tests {
		cells = append(cells, []string{tt.in, "-12.50"})
	}
	for _, lf := range []bool{false, true} { // true: as bulk results are written
		files := writeTable(t, Options{Format: FormatCSV, LF: lf}, t.TempDir(), "", table, cells)
		recs := readCSV(t, files.CSV[0])
		if len(recs) != len(tests)+1 {
			t.Fatalf("s.csv has %d records, want %d", len(recs), len(tests)+1)
		}
		for i, tt := range tests {
			r := recs[i+1]
			// encoding/csv reads a quoted field's CRLF back as LF.
			want := tt.want
			if tt.in == "\r\n+1" {
				want = "'\n+1"
			}
			if r[0] != want {
				t.Errorf("LF %v: %q written as %q, want %q", lf, tt.in, r[0], want)
			}
			if r[1] != "-12.50" {
				t.Errorf("LF %v: amount -12.50 written as %q", lf, r[1])
			}
		}
	}
}
