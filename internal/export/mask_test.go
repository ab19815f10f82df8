package export

import "testing"

func TestMaskNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"paid by card 4111111111111111", "paid by card XXXXXXXXXXXX1111"},
		{"4111111111111112", "4111111111111112"}, // fails Luhn: a reference, not a card
		{"uid 234567890124 ok", "uid XXXXXXXX0124 ok"},
		{"234567890125", "234567890125"}, // fails Verhoeff
		{"134567890124", "134567890124"}, // Aadhaar never starts with 0 or 1
		{"rrn 987654321090", "rrn 987654321090"},
		{"acct 0409000123456", "acct 0409000123456"},
		{"amount 1234.56 ref 12345", "amount 1234.56 ref 12345"},
		{"4111111111111111/234567890124", "XXXXXXXXXXXX1111/XXXXXXXX0124"},
		{"₹ 4111111111111111 é", "₹ XXXXXXXXXXXX1111 é"},
	}
	for _, tt := range tests {
		if got := maskNumbers(tt.in); got != tt.want {
			t.Errorf("maskNumbers(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCellValue(t *testing.T) {
	tests := []struct {
		k    kind
		in   string
		want any
	}{
		{kAmount, "1234567.89", 1234567.89},
		{kAmount, "-0.50", -0.5},
		{kDelta, "+3", 3.0},
		{kAmount, "XXXXXX.XX", "XXXXXX.XX"}, // masked: stays text
		{kAmount, "1e5", "1e5"},
		{kAmount, "NaN", "NaN"},
		{kAmount, "1.", "1."},
		{kAmount, ".5", ".5"},
		{kInt, "42", int64(42)},
		{kInt, "4x", "4x"},
		{kBool, "1", true},
		{kBool, "0", false},
		{kText, "0409", "0409"},
	}
	for _, tt := range tests {
		if got := cellValue(tt.k, tt.in); got != tt.want {
			t.Errorf("cellValue(%v, %q) = %#v, want %#v", tt.k, tt.in, got, tt.want)
		}
	}
}
