package export

import (
	"math"
	"testing"
)

func TestExportCellValue(t *testing.T) {
	tests := []struct {
		k    CellKind
		in   string
		want any
	}{
		{Amount, "1234567.89", 1234567.89},
		{Amount, "-0.50", -0.5},
		{Delta, "+3", 3.0},
		{Amount, "XXXXXX.XX", "XXXXXX.XX"}, // masked: stays text
		{Amount, "1e5", "1e5"},
		{Amount, "NaN", "NaN"},
		{Amount, "1.", "1."},
		{Amount, ".5", ".5"},
		{Amount, "9999999999999.99", 9999999999999.99},
		{Amount, "99999999999999.99", "99999999999999.99"}, // not a float64: exact text
		{Delta, "-12345678901234567.89", "-12345678901234567.89"},
		{Amount, "0.10", 0.1},
		{Amount, "-0.00", math.Copysign(0, -1)},
		{Amount, "007.50", 7.5},
		{Amount, "+100", 100.0},
		{Int, "42", int64(42)},
		{Int, "4x", "4x"},
		{Bool, "1", true},
		{Bool, "0", false},
		{Bool, "true", true},
		{Text, "0409", "0409"},
	}
	for _, tt := range tests {
		if got := cellValue(tt.k, tt.in); got != tt.want {
			t.Errorf("cellValue(%v, %q) = %#v, want %#v", tt.k, tt.in, got, tt.want)
		}
	}
}

func TestExportTableHeader(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  bool
	}{
		{[]string{"a", "b"}, true}, {[]string{"a", "A"}, false}, {[]string{"a", ""}, false}, {nil, false},
	} {
		cols := make([]Column, len(tt.names))
		for i, n := range tt.names {
			cols[i] = Column{Name: n}
		}
		if got := tableHeader(cols); got != tt.want {
			t.Errorf("tableHeader(%q) = %v, want %v", tt.names, got, tt.want)
		}
	}
}
