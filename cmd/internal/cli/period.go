package cli

import (
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// ParseDate parses a YYYY-MM-DD flag value as an IST date.
func ParseDate(flagName, v string) (time.Time, error) {
	t, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(v), recon.IST)
	if err != nil {
		return time.Time{}, Usagef("--%s %q: want a date YYYY-MM-DD", flagName, v)
	}
	return t, nil
}

// ParsePeriod parses --from and --to (both required) and checks their order.
func ParsePeriod(from, to string) (time.Time, time.Time, error) {
	if from == "" || to == "" {
		return time.Time{}, time.Time{}, Usagef("give the period as --from YYYY-MM-DD --to YYYY-MM-DD")
	}
	f, err := ParseDate("from", from)
	if err != nil {
		return f, f, err
	}
	t, err := ParseDate("to", to)
	if err != nil {
		return f, t, err
	}
	if t.Before(f) {
		return f, t, Usagef("--to %s is before --from %s", to, from)
	}
	return f, t, nil
}

// MaxPeriodDays is the longest period a command walks without
// --allow-long-period: a little over a year.
const MaxPeriodDays = 400

// CheckPeriod refuses a period the service would be asked about in vain or
// at great length, before anything is sent: one that ends after today (IST,
// by now) and, unless allowLong, one longer than MaxPeriodDays.
func CheckPeriod(from, to, now time.Time, allowLong bool) error {
	today := now.In(recon.IST).Format(time.DateOnly)
	if end := to.Format(time.DateOnly); end > today {
		return Usagef("--to %s is after today (%s, IST): the service has nothing there yet", end, today)
	}
	days := int(to.Sub(from).Hours()/24) + 1
	if days > MaxPeriodDays && !allowLong {
		return Usagef("the period %s to %s is %d days, longer than %d: add --allow-long-period if you mean it (one request or more per day and kind)",
			from.Format(time.DateOnly), to.Format(time.DateOnly), days, MaxPeriodDays)
	}
	return nil
}

// Yesterday returns yesterday's IST date relative to now.
func Yesterday(now time.Time) time.Time {
	y, m, d := now.In(recon.IST).AddDate(0, 0, -1).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, recon.IST)
}
