package recon

import (
	"errors"
	"math/rand/v2"
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

// TestCheckAmountTrailingZeros: the decimals CheckAmount counts from a
// coefficient's int64 are those its text gives, for coefficients of every
// length (both sides of the int64 path) and sign, with trailing zeros.
func TestCheckAmountTrailingZeros(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		digits := 1 + r.IntN(24)
		b := []byte(strings.Repeat("0", digits))
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		b[0] = byte('1' + r.IntN(9))
		for z := r.IntN(digits); z > 0; z-- {
			b[len(b)-z] = '0'
		}
		text := string(b)
		if r.IntN(2) == 0 {
			text = "-" + text
		}
		d, err := decimal.NewFromString(text)
		if err != nil {
			t.Fatal(err)
		}
		d = decimal.NewFromBigInt(d.BigInt(), -int32(r.IntN(10)))
		coef := d.Coefficient().String()
		want := len(coef) - len(strings.TrimRight(coef, "0"))
		if got := trailingZeros(d, int(d.NumDigits())); got != want {
			t.Fatalf("trailingZeros(%s) = %d, want %d", d, got, want)
		}
	}
}

func BenchmarkCheckAmount(b *testing.B) {
	d := decimal.RequireFromString("1234.50")
	for range b.N {
		if err := CheckAmount(d); err != nil {
			b.Fatal(err)
		}
	}
}
