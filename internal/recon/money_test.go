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

// sameDecimal fails unless ParseDecimal reads s as decimal.NewFromString
// does: the same value at the same exponent, or an error for both.
func sameDecimal(t *testing.T, s string) {
	t.Helper()
	got, err1 := ParseDecimal(s)
	want, err2 := decimal.NewFromString(s)
	if (err1 == nil) != (err2 == nil) || err1 == nil && (got.Exponent() != want.Exponent() || got.Cmp(want) != 0) {
		t.Fatalf("ParseDecimal(%q) = %v (exp %d), %v; NewFromString: %v (exp %d), %v",
			s, got, got.Exponent(), err1, want, want.Exponent(), err2)
	}
}

// TestParseDecimal: amounts as stored and every text near them read as
// decimal.NewFromString reads them.
func TestParseDecimal(t *testing.T) {
	for _, s := range []string{"0", "-0", "-0.00", "12.50", "-3", "0.125", "007.50", "5.", ".5", "-.5", "-", "", "+5", "1.2.3",
		"1e3", "1E-2", " 1", "1 ", "12a", "−5", "999999999999999999", "-999999999999999999", "9999999999999999999",
		"99999999999999999.9", "999999999999999999.9", "0.000000000000000001", "-9223372036854775808", "1_0", "١"} {
		sameDecimal(t, s)
	}
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "0123456789.-+e "
	for range 200_000 {
		b := make([]byte, 1+r.IntN(22))
		for i := range b {
			if r.IntN(8) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = byte('0' + r.IntN(10))
			}
		}
		sameDecimal(t, string(b))
	}
}

func FuzzParseDecimal(f *testing.F) {
	f.Add("12.50")
	f.Add("-0.001")
	f.Fuzz(sameDecimal)
}

func BenchmarkParseDecimal(b *testing.B) {
	for range b.N {
		if _, err := ParseDecimal("147797383.95"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewFromString(b *testing.B) {
	for range b.N {
		if _, err := decimal.NewFromString("147797383.95"); err != nil {
			b.Fatal(err)
		}
	}
}
