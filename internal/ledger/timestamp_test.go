package ledger

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

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

// TestFmtTSIsTheLayout: fmtTS writes what time.Format writes with
// recon.TimestampLayout, over four-digit years and beyond.
func TestFmtTSIsTheLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lo, hi := time.Date(-20, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(10020, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	vs := []int64{0, -1, lo, hi, time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix(), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()}
	for range 200_000 {
		vs = append(vs, lo+r.Int64N(hi-lo))
	}
	for _, v := range vs {
		if got, want := fmtTS(v), time.Unix(v, 0).UTC().Format(recon.TimestampLayout); got != want {
			t.Fatalf("fmtTS(%d) = %q, want %q", v, got, want)
		}
	}
}

func BenchmarkFmtTS(b *testing.B) {
	v := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).Unix()
	for i := range b.N {
		_ = fmtTS(v + int64(i))
	}
}
