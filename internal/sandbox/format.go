package sandbox

// How the sandbox writes its values: money in paise, zero-padded numbers,
// days and timestamps, request references, and the JSON pieces of its
// answers (written by hand: a page is hundreds of kilobytes).

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// appendMoney appends paise as an exact decimal string body (no quotes):
// 123456 -> 1234.56.
func appendMoney(b []byte, p int64) []byte {
	if p < 0 {
		b = append(b, '-')
		p = -p
	}
	b = strconv.AppendInt(b, p/100, 10)
	c := p % 100
	return append(b, '.', byte('0'+c/10), byte('0'+c%10))
}

// money formats paise as "1234.56".
func money(p int64) string { return string(appendMoney(nil, p)) }

// paise converts a decimal amount to paise; ok is false when it has more
// than two decimals or does not fit.
func paise(d decimal.Decimal) (int64, bool) {
	m := d.Shift(2)
	if !m.IsInteger() || m.Abs().GreaterThan(decimal.New(1, 17)) {
		return 0, false
	}
	return m.IntPart(), true
}

// appendPad appends n zero-padded to width digits.
func appendPad(b []byte, n int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], n, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// dayNumber is the count of IST days since 1970-01-01 for t.
func dayNumber(t time.Time) int {
	t = t.In(recon.IST)
	y, m, d := t.Date()
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// dayTime is IST midnight of day number dn.
func dayTime(dn int) time.Time {
	u := time.Unix(int64(dn)*86400, 0).UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, recon.IST)
}

// dayStrings are the ways a day is written.
type dayStrings struct {
	date    string // 2026-11-20
	compact string // 20261120
	short   string // 261120
}

func newDayStrings(dn int) dayStrings {
	t := dayTime(dn)
	return dayStrings{date: t.Format(time.DateOnly), compact: t.Format("20060102"), short: t.Format("060102")}
}

// appendTimestamp appends "YYYY-MM-DD HH:MM:SS" for second sec of the day.
func appendTimestamp(b []byte, date string, sec int32) []byte {
	b = append(b, date...)
	b = append(b, ' ')
	h, m, s := sec/3600, sec/60%60, sec%60
	return append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+s/10), byte('0'+s%10))
}

// uuidFrom renders a hash pair as a UUID-shaped request reference.
func uuidFrom(a, b uint64) string {
	const hexd = "0123456789abcdef"
	var out [36]byte
	j := 0
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			out[j] = '-'
			j++
		}
		v := a
		if i >= 16 {
			v = b
		}
		shift := uint(60 - 4*(i%16))
		out[j] = hexd[(v>>shift)&0xf]
		j++
	}
	return string(out[:])
}

// appendStr appends a JSON string; the sandbox's own texts need no escaping
// beyond quotes and backslashes, but live echoes might, so escape properly.
func appendStr(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendKey(b []byte, k string) []byte {
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

func appendAmount(b []byte, p int64, number bool) []byte {
	if number {
		return appendMoney(b, p)
	}
	b = append(b, '"')
	b = appendMoney(b, p)
	return append(b, '"')
}

// appendAmounts writes the amounts of a record from txnChargedValue's value
// to txnTds, and a comma; orderValue and convenienceFee as JSON numbers when
// number is set.
func appendAmounts(b []byte, charged, orderValue, fee int64, number bool) []byte {
	b = appendAmount(b, charged, false)
	b = append(b, `,"orderValue":`...)
	b = appendAmount(b, orderValue, number)
	b = append(b, `,"convenienceFee":`...)
	b = appendAmount(b, fee, number)
	return append(b, `,"txnSurcharge":"0.00","txnCashback":"0.00","txnTds":"0.00",`...)
}
