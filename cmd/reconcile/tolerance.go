package main

import (
	"flag"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// matchFlags are the matching's flags of check and run: the suggested
// pairs' time window and amount tolerances, and the timing window.
type matchFlags struct {
	pairWindow      time.Duration
	amount, percent string
	timing          time.Duration
}

func (m *matchFlags) bind(fs *flag.FlagSet) {
	fs.DurationVar(&m.pairWindow, "pair-window", ledger.DefaultPairWindow,
		"suggest an unmatched call and statement record at most this far apart as a pair (at most "+recon.ShortDuration(ledger.MaxPairWindow)+")")
	fs.StringVar(&m.amount, "pair-tolerance", "0",
		"suggest pairs whose amounts differ by at most this many rupees (at most "+recon.Money(ledger.MaxAmountTolerance)+"; 0: equal amounts)")
	fs.StringVar(&m.percent, "pair-tolerance-percent", "0",
		"or by at most this percentage of the call's amount (at most "+ledger.MaxPercentTolerance.String()+")")
	fs.DurationVar(&m.timing, "timing-window", ledger.DefaultTimingWindow,
		"a call with no record this near the period's end, before the next day is synced, is timing, not callOnly (0: never; at most "+
			recon.ShortDuration(ledger.MaxTiming)+")")
}

// tolerances checks the flags' values (a usage error names the flag).
func (m *matchFlags) tolerances(cmd string) (ledger.Tolerances, error) {
	t := ledger.Tolerances{PairWindow: m.pairWindow, Timing: m.timing}
	var err error
	if m.pairWindow <= 0 {
		return t, cli.Usagef("%s: --pair-window %s: want a positive duration such as 10m", cmd, m.pairWindow)
	}
	if t.Amount, err = decimal.NewFromString(m.amount); err != nil {
		return t, cli.Usagef("%s: --pair-tolerance %q: want an amount in rupees such as 0.01", cmd, m.amount)
	}
	if t.Percent, err = decimal.NewFromString(m.percent); err != nil {
		return t, cli.Usagef("%s: --pair-tolerance-percent %q: want a percentage such as 0.5", cmd, m.percent)
	}
	if err := t.Validate(); err != nil {
		return t, cli.Usagef("%s: --%v", cmd, err)
	}
	return t, nil
}
