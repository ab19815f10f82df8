package ledger

import (
	"fmt"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// parseTS reads 'YYYY-MM-DD HH:MM:SS' as seconds (of a clock without zone:
// only order and differences matter).
func parseTS(s string) (int64, error) {
	if len(s) == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':' {
		n := func(i, j int) (int, bool) {
			v := 0
			for _, ch := range s[i:j] {
				if ch < '0' || ch > '9' {
					return 0, false
				}
				v = v*10 + int(ch-'0')
			}
			return v, true
		}
		y, ok1 := n(0, 4)
		mo, ok2 := n(5, 7)
		d, ok3 := n(8, 10)
		h, ok4 := n(11, 13)
		mi, ok5 := n(14, 16)
		se, ok6 := n(17, 19)
		// Only a real time: fmtTS of the result then gives s back, which
		// the matched rows rely on (they keep no time of their own).
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && mo >= 1 && mo <= 12 && d >= 1 && h < 24 && mi < 60 && se < 60 &&
			d <= time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
			return time.Date(y, time.Month(mo), d, h, mi, se, 0, time.UTC).Unix(), nil
		}
	}
	return 0, fmt.Errorf("timestamp %q: want YYYY-MM-DD HH:MM:SS", s)
}

// fmtTS writes seconds as parseTS reads them, 'YYYY-MM-DD HH:MM:SS':
// recon.TimestampLayout, written digit by digit (a call's row takes one;
// time.Format was a tenth of the stages' work); a year beyond four digits
// through time.Format.
func fmtTS(v int64) string {
	t := time.Unix(v, 0).UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.Format(recon.TimestampLayout)
	}
	h, mi, s := t.Clock()
	b := [19]byte{0, 0, 0, 0, '-', 0, 0, '-', 0, 0, ' ', 0, 0, ':', 0, 0, ':', 0, 0}
	two := func(i, n int) { b[i], b[i+1] = byte('0'+n/10), byte('0'+n%10) }
	two(0, y/100)
	two(2, y%100)
	two(5, int(mo))
	two(8, d)
	two(11, h)
	two(14, mi)
	two(17, s)
	return string(b[:])
}

// day is the IST day of t as YYYY-MM-DD.
func day(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return t.Format(time.DateOnly) // a date given as UTC midnight means that date
	}
	return t.In(recon.IST).Format(time.DateOnly)
}
