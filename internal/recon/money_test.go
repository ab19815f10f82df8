package recon

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestCheckAmount(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"0", true}, {"12.50", true}, {"-12.5", true}, {"999999999999999.9999", true}, {"0.0295", true},
		{"1.50000000", true}, {"000000000000000000012.5", true}, {"1e14", true}, {"-999999999999999", true},
		{"1000000000000000", false}, {"1e15", false}, {"1e29", false}, {"-1000000000000000.5", false},
		{"0.12345", false}, {"1.00001", false}, {"1e-5", false}, {strings.Repeat("9", 401), false},
	} {
		d, err := decimal.NewFromString(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckAmount(d)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrAmountRange) {
			t.Errorf("CheckAmount(%s) = %v, want ok %v", tc.text, err, tc.ok)
		}
		if !strings.ContainsAny(tc.text, "e") {
			if err := CheckAmountText(tc.text); (err == nil) != tc.ok {
				t.Errorf("CheckAmountText(%s) = %v, want ok %v", tc.text, err, tc.ok)
			}
		}
	}
	if err := CheckAmountText("XXXX"); err != nil {
		t.Errorf("CheckAmountText of a masked balance = %v, want nil (not a number: not checked)", err)
	}
}
