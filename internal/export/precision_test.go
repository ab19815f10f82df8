package export

import (
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestExportAmountPrecision: an amount a float64 cannot hold exactly is
// written as a text cell holding the exact amount; one it can hold is a
// number cell.
func TestExportAmountPrecision(t *testing.T) {
	table := Table{Sheet: "S", File: "s.csv", Columns: []Column{{"amt", Amount, false}, {"delta", Delta, false}}}
	cells := [][]string{
		{"99999999999999.99", "-12345678901234567.89"},
		{"9999999999999.99", "-0.10"},
	}
	files := writeTable(t, Options{Format: FormatBoth}, t.TempDir(), "r.xlsx", table, cells)
	f := openBook(t, files.Workbook)
	for _, tt := range []struct {
		cell, raw string
		number    bool
	}{
		{"A2", "99999999999999.99", false},
		{"B2", "-12345678901234567.89", false},
		{"A3", "9999999999999.99", true},
		{"B3", "-0.1", true},
	} {
		raw, err := f.GetCellValue("S", tt.cell, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		typ, err := f.GetCellType("S", tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		isNumber := typ == excelize.CellTypeNumber || typ == excelize.CellTypeUnset
		if raw != tt.raw || isNumber != tt.number {
			t.Errorf("%s = %q (type %v), want %q, a number: %v", tt.cell, raw, typ, tt.raw, tt.number)
		}
	}
	if recs := readCSV(t, files.CSV[0]); recs[1][0] != "99999999999999.99" {
		t.Errorf("s.csv amount = %q, want 99999999999999.99", recs[1][0])
	}
}

// TestExactFloatAllocatesNothing: the check runs for every amount cell of
// a workbook; negative amounts and amounts below one allocated a string.
func TestExactFloatAllocatesNothing(t *testing.T) {
	for _, s := range []string{"-12.50", "12.50", "0.50", ".5", "-0.00", "+5"} {
		if a := testing.AllocsPerRun(100, func() { exactFloat(s, 1) }); a != 0 {
			t.Errorf("exactFloat(%q) allocates %v times", s, a)
		}
	}
}
