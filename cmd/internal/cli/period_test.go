package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

func TestParsePeriod(t *testing.T) {
	for _, tc := range []struct{ from, to, wantErr string }{
		{"2026-11-01", "2026-11-30", ""},
		{"2026-11-30", "2026-11-01", "before"},
		{"2026-13-01", "2026-11-30", "--from"},
		{"", "2026-11-30", "--from YYYY-MM-DD --to"},
	} {
		_, _, err := ParsePeriod(tc.from, tc.to)
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("ParsePeriod(%q, %q) = %v, want error containing %q", tc.from, tc.to, err, tc.wantErr)
		}
	}
}

func TestCheckPeriod(t *testing.T) {
	now := time.Date(2026, 11, 22, 1, 0, 0, 0, recon.IST) // 2026-11-21 19:30 UTC
	d := func(s string) time.Time {
		v, err := ParseDate("x", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		from, to  string
		allowLong bool
		want      string
	}{
		{"2026-11-01", "2026-11-22", false, ""},
		{"2026-11-01", "2026-11-23", false, "after today (2026-11-22, IST)"},
		{"1900-01-01", "2026-11-21", false, "longer than 400"},
		{"1900-01-01", "2026-11-21", true, ""},
		{"2025-10-19", "2026-11-22", false, ""}, // 400 days
		{"2025-10-18", "2026-11-22", false, "401 days"},
	} {
		err := CheckPeriod(d(c.from), d(c.to), now, c.allowLong)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckPeriod(%s, %s, %v) = %v, want %q", c.from, c.to, c.allowLong, err, c.want)
		}
	}
}
