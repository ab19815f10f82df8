package export

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/ledger"
)

// TestSettingsLegend: the Legend words the run's tolerances and timing
// window as the check ran with them; a run made before they were kept has
// no such rows.
func TestSettingsLegend(t *testing.T) {
	if got := settingsLegend(nil); got != nil {
		t.Errorf("settingsLegend(nil) = %v, want none", got)
	}
	tol := ledger.Tolerances{PairWindow: 2 * time.Minute, Amount: decimal.RequireFromString("0.01"),
		Percent: decimal.RequireFromString("0.5"), Timing: 5 * time.Minute}
	got := settingsLegend(tol.Settings())
	if len(got) != 2 {
		t.Fatalf("settingsLegend = %v, want the pair tolerance and the timing window", got)
	}
	for i, want := range []string{"at most 2m0s apart, with amounts within 0.01 or 0.5% of the call's, whichever is more (--pair-window, --pair-tolerance 0.01, --pair-tolerance-percent 0.5)",
		"in the last 5m0s of the period"} {
		if !strings.Contains(got[i].Meaning, want) || !strings.HasSuffix(got[i].Action, ".") {
			t.Errorf("Legend %q = %q, want %q in it", got[i].Term, got[i].Meaning, want)
		}
	}
	if got := settingsLegend(ledger.Tolerances{}.Settings()); !strings.Contains(got[0].Meaning, "with equal amounts") ||
		!strings.Contains(got[1].Meaning, "No break is timing") {
		t.Errorf("Legend of the default tolerances = %v", got)
	}
}
