package ledger

import (
	"strings"
	"testing"
	"time"
)

// TestTolerancesValidate: each tolerance has a bound, and what is beyond
// it (or negative) is refused naming the setting.
func TestTolerancesValidate(t *testing.T) {
	for _, ok := range []Tolerances{{}, {PairWindow: MaxPairWindow, Amount: MaxAmountTolerance, Percent: MaxPercentTolerance, Timing: MaxTiming},
		{Amount: dec("0.01"), Percent: dec("0.25")}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	for want, bad := range map[string]Tolerances{
		"pair-window -1s":             {PairWindow: -time.Second},
		"pair-window 24h0m1s":         {PairWindow: MaxPairWindow + time.Second},
		"pair-tolerance 100.01":       {Amount: dec("100.01")},
		"pair-tolerance -0.01":        {Amount: dec("-0.01")},
		"pair-tolerance 0.005":        {Amount: dec("0.005")},
		"pair-tolerance-percent 5.01": {Percent: dec("5.01")},
		"pair-tolerance-percent -0.1": {Percent: dec("-0.1")},
		"timing-window 1h0m1s":        {Timing: MaxTiming + time.Second},
		"timing-window -1m0s":         {Timing: -time.Minute},
	} {
		if err := bad.Validate(); err == nil || !strings.HasPrefix(err.Error(), want+": want") {
			t.Errorf("%+v: %v, want %q first", bad, err, want)
		}
	}
	if got := (Tolerances{Amount: dec("0.5"), Percent: dec("1")}).allowed(dec("200.00")); !got.Equal(dec("2")) {
		t.Errorf("allowed(200.00) = %s, want 2 (1%% beats 0.50)", got)
	}
}
