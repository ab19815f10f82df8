package redact

// Card and Aadhaar numbers are often written in groups: "7391 4628 0552",
// "4111-1111-1111-1111", "3782 822463 10005". A grouped number is a run of
// four digits, not preceded by a digit, followed by groups of 3 to 6
// digits, each after the same single separator (a space or '-'), 12 to 19
// digits in all and not followed by a digit. Dates ("2026-11-28") and
// amounts ("1,234.50") are not: their groups are too short or joined by
// other characters.

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// runEnd returns the end of the run of digits that starts at s[i].
func runEnd[T ~string | ~[]byte](s T, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// grouped returns the end of the grouped number starting at s[i] that
// mask says to mask (given its digits), or ok false. s[i] starts a run of
// digits. The groups are taken as long as they are groups (3 to 6 digits
// after the same separator, 19 digits at most), then the longest number
// of them that mask takes: "uid 7391 4628 0552 1500.00" masks the
// Aadhaar number before the amount. A number of more than 12 digits (a
// card's) is taken only when no group follows it, so that two Aadhaar
// numbers written one after the other are not read as a card and the
// second shown.
func grouped[T ~string | ~[]byte](s T, i int, mask func(digits string) bool) (end int, ok bool) {
	var ends, total [7]int // after each group: its end in s, the digits so far
	j := runEnd(s, i)
	if j-i != 4 || j+1 >= len(s) || s[j] != ' ' && s[j] != '-' {
		return 0, false
	}
	sep, g := s[j], 0
	ends[0], total[0] = j, 4
	for g+1 < len(ends) && j+1 < len(s) && s[j] == sep && isDigit(s[j+1]) {
		k := runEnd(s, j+1)
		n := k - j - 1
		if n < 3 || n > 6 || total[g]+n > 19 {
			break
		}
		g++
		ends[g], total[g] = k, total[g-1]+n
		j = k
	}
	for ; g > 0 && total[g] >= 12; g-- {
		if e := ends[g]; total[g] > 12 && e+1 < len(s) && s[e] == sep && isDigit(s[e+1]) {
			continue // a card number ends its groups; an Aadhaar number may be followed by more
		}
		buf := make([]byte, 0, total[g])
		for k := i; k < ends[g]; k++ {
			if isDigit(s[k]) {
				buf = append(buf, s[k])
			}
		}
		if mask(string(buf)) {
			return ends[g], true
		}
	}
	return 0, false
}

// maskGrouped writes s[i:end], a grouped number, with every digit but the
// last four replaced by 'X' and its separators kept.
func maskGrouped[T ~string | ~[]byte](out []byte, s T, i, end int) []byte {
	left := 0
	for k := i; k < end; k++ {
		if isDigit(s[k]) {
			left++
		}
	}
	for k := i; k < end; k++ {
		c := s[k]
		if isDigit(c) {
			if left > 4 {
				c = 'X'
			}
			left--
		}
		out = append(out, c)
	}
	return out
}

// mayHold reports whether s may hold a number of at least n digits, whole
// or grouped: a quick look before the careful one. It counts the digits
// of a run carried over a single space or '-' that follows three digits or
// more.
func mayHold[T ~string | ~[]byte](s T, n int) bool {
	run, group := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			run++
			group++
			if run >= n {
				return true
			}
		case (c == ' ' || c == '-') && group >= 3 && i+1 < len(s) && isDigit(s[i+1]):
			group = 0
		default:
			run, group = 0, 0
		}
	}
	return false
}
