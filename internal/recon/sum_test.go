package recon

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// folded is what Sum must equal: decimal's Add over decimal.NewFromString
// from the zero Decimal; ok is false when an amount does not parse.
func folded(amounts []string) (decimal.Decimal, bool) {
	var d decimal.Decimal
	for _, a := range amounts {
		v, err := decimal.NewFromString(a)
		if err != nil {
			return d, false
		}
		d = d.Add(v)
	}
	return d, true
}

// summed is Sum over amounts; ok is false when an amount does not parse.
func summed(amounts []string) (decimal.Decimal, bool) {
	var s Sum
	for _, a := range amounts {
		if err := s.AddText(a); err != nil {
			return decimal.Decimal{}, false
		}
	}
	return s.Decimal(), true
}

// same reports whether two totals are equal and written alike.
func same(a, b decimal.Decimal) bool {
	return a.Equal(b) && a.Exponent() == b.Exponent() && Money(a) == Money(b) && Exact(a) == Exact(b)
}

func TestSum(t *testing.T) {
	for _, amounts := range [][]string{
		nil,
		{"12"},
		{"12.50", "-3.1"},
		{"0.1250", "1.5"},
		{"-0.00"},
		{"007", "1.10"},
		{"99999999999999.9999", "99999999999999.9999"},           // 14 integer digits: plain
		{"999999999999999", "1.25"},                              // 15: parsed by decimal
		{"922337203685477.5807", "922337203685477.5807", "0.01"}, // past int64 on adding
		{"1e3", "2.5"},
		{"0.12345", "1"},
		{"1.", ".5"},
		{"-5", "5"},
	} {
		got, ok := summed(amounts)
		want, wantOK := folded(amounts)
		if ok != wantOK || ok && !same(got, want) {
			t.Errorf("Sum%q = %s (exp %d, ok %v); want %s (exp %d, ok %v)", amounts, got, got.Exponent(), ok,
				want, want.Exponent(), wantOK)
		}
	}
}

// FuzzSum: a sum of any texts (split at ',') equals decimal's, or fails
// where decimal fails.
func FuzzSum(f *testing.F) {
	for _, s := range []string{"1.50,-2,0.0001", "99999999999999.9999,1", "-,1", "1e5,2.25", "00.10,-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		amounts := strings.Split(in, ",")
		got, ok := summed(amounts)
		want, wantOK := folded(amounts)
		if ok != wantOK {
			t.Fatalf("Sum%q ok %v, decimal ok %v", amounts, ok, wantOK)
		}
		if ok && !same(got, want) {
			t.Fatalf("Sum%q = %s (exp %d); decimal %s (exp %d)", amounts, got, got.Exponent(), want, want.Exponent())
		}
	})
}
