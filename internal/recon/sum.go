package recon

import "github.com/shopspring/decimal"

// Sum adds amounts given as text exactly, as decimal.Decimal's Add of
// decimal.NewFromString's values would, without a big integer per amount:
// a plain amount ([-]digits[.digits], at most 14 integer digits and 4
// decimals, as the service and the database write them) is added to a
// count of ten-thousandths; any other text, or a total past int64, is
// parsed by decimal and kept apart. The total has the exponent Add would
// give it (the most decimals any amount was written with), so Money and
// Exact format it as before. The zero Sum is an empty sum.
type Sum struct {
	units    int64           // the plain amounts, in ten-thousandths
	rest     decimal.Decimal // the others, and what passed int64
	decimals int32           // the most decimals an amount was written with
}

// AddText adds an amount; an error is decimal.NewFromString's, the sum
// unchanged.
func (s *Sum) AddText(t string) error {
	if u, dec, ok := plainUnits(t); ok {
		if n, overflow := addInt64(s.units, u); !overflow {
			s.units = n
			s.decimals = max(s.decimals, dec)
			return nil
		}
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return err
	}
	s.Add(d)
	return nil
}

// Add adds an amount already parsed.
func (s *Sum) Add(d decimal.Decimal) {
	s.rest = s.rest.Add(d)
	s.decimals = max(s.decimals, -min(d.Exponent(), 0))
}

// Decimal is the total.
func (s *Sum) Decimal() decimal.Decimal {
	total := decimal.New(s.units, -4).Add(s.rest)
	return total.Round(s.decimals)
}

// plainUnits reads t as [-]digits[.digits] with at most 14 integer digits
// and 4 decimals: its value in ten-thousandths and how many decimals it
// was written with.
func plainUnits(t string) (units int64, decimals int32, ok bool) {
	i, neg := 0, false
	if len(t) > 0 && t[0] == '-' {
		i, neg = 1, true
	}
	start := i
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		units = units*10 + int64(t[i]-'0')
		i++
	}
	if i == start || i-start > 14 {
		return 0, 0, false
	}
	if i < len(t) {
		if t[i] != '.' {
			return 0, 0, false
		}
		i++
		for i < len(t) && t[i] >= '0' && t[i] <= '9' && decimals < 4 {
			units = units*10 + int64(t[i]-'0')
			decimals++
			i++
		}
		if i != len(t) || decimals == 0 {
			return 0, 0, false
		}
	}
	for k := decimals; k < 4; k++ {
		units *= 10
	}
	if neg {
		units = -units
	}
	return units, decimals, true
}

// addInt64 is a + b, and whether it overflowed.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	return c, a > 0 && b > 0 && c < 0 || a < 0 && b < 0 && c >= 0
}
