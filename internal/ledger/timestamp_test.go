package ledger

import "testing"

// TestParseTSRoundTrips: what parseTS reads, fmtTS writes back the same,
// which the plain matched rows rely on (they keep no time of their own);
// what is not a real time is refused.
func TestParseTSRoundTrips(t *testing.T) {
	for _, s := range []string{"2026-11-21 10:00:00", "2024-02-29 23:59:59", "2026-01-01 00:00:00"} {
		v, err := parseTS(s)
		if err != nil || fmtTS(v) != s {
			t.Errorf("parseTS(%q) = %d, %v; fmtTS gives %q", s, v, err, fmtTS(v))
		}
	}
	for _, s := range []string{"2026-02-29 10:00:00", "2026-11-31 10:00:00", "2026-13-01 10:00:00", "2026-00-10 10:00:00",
		"2026-11-00 10:00:00", "2026-11-21 24:00:00", "2026-11-21 10:60:00", "2026-11-21 10:00:60", "2026-11-21T10:00:00",
		"2026-11-21 10:00:0a", "2026-11-21 10:00:00.5"} {
		if v, err := parseTS(s); err == nil {
			t.Errorf("parseTS(%q) = %d (%s), want an error", s, v, fmtTS(v))
		}
	}
}

func FuzzParseTS(f *testing.F) {
	f.Add("2026-11-21 10:00:00")
	f.Add("2026-02-30 25:61:61")
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := parseTS(s); err == nil && fmtTS(v) != s {
			t.Fatalf("parseTS(%q) then fmtTS = %q", s, fmtTS(v))
		}
	})
}
