package ledger

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Tolerances are how far apart the two sides of a suggested pair may be
// (in time, and in amount: in rupees or as a share of the call's amount),
// and how near the period's edge a break may lie to be a timing
// difference. Zero amounts keep the pairing exact: equal amounts only.
type Tolerances struct {
	PairWindow time.Duration   // at most this far apart in time (0: DefaultPairWindow)
	Amount     decimal.Decimal // the amounts may differ by this many rupees ...
	Percent    decimal.Decimal // ... or by this share of the call's amount, in percent
	// Timing is how near the period's end (or start) a call (a record)
	// with no counterpart may lie to be a timing difference (0: none is).
	Timing time.Duration
}

// The tolerances' bounds: beyond them a pair or a timing difference says
// nothing any more (a quarter of an hour of calls, a fee mistaken for a
// rounding), and a check refuses them.
const (
	MaxPairWindow = 24 * time.Hour
	MaxTiming     = time.Hour
	// DefaultTimingWindow is the timing window of the commands (check,
	// run): a call in the last 5 minutes of the period whose record the
	// next day's statement may still bring.
	DefaultTimingWindow = 5 * time.Minute
)

// MaxAmountTolerance (rupees) and MaxPercentTolerance (percent) bound the
// suggested pairs' amount tolerances.
var (
	MaxAmountTolerance  = decimal.NewFromInt(100)
	MaxPercentTolerance = decimal.NewFromInt(5)
)

// Validate says what is wrong with t: a negative value, or one beyond its
// bound. The error names the setting as the commands' flags do, without
// their dashes (pair-window, pair-tolerance, pair-tolerance-percent,
// timing-window).
func (t Tolerances) Validate() error {
	switch {
	case t.PairWindow < 0 || t.PairWindow > MaxPairWindow:
		return fmt.Errorf("pair-window %s: want a positive duration of at most %s", t.PairWindow, recon.ShortDuration(MaxPairWindow))
	case t.Amount.IsNegative() || t.Amount.GreaterThan(MaxAmountTolerance):
		return fmt.Errorf("pair-tolerance %s: want an amount in rupees from 0 to %s", t.Amount, recon.Money(MaxAmountTolerance))
	case !t.Amount.Equal(t.Amount.Round(2)):
		return fmt.Errorf("pair-tolerance %s: want at most two decimals (paise)", t.Amount)
	case t.Percent.IsNegative() || t.Percent.GreaterThan(MaxPercentTolerance):
		return fmt.Errorf("pair-tolerance-percent %s: want a percentage from 0 to %s", t.Percent, MaxPercentTolerance)
	case t.Timing < 0 || t.Timing > MaxTiming:
		return fmt.Errorf("timing-window %s: want a duration from 0 to %s", t.Timing, recon.ShortDuration(MaxTiming))
	}
	return nil
}

// withDefaults is t with the default pair window for none.
func (t Tolerances) withDefaults() Tolerances {
	if t.PairWindow == 0 {
		t.PairWindow = DefaultPairWindow
	}
	return t
}

// exact reports whether the pairing wants equal amounts.
func (t Tolerances) exact() bool { return t.Amount.IsZero() && t.Percent.IsZero() }

// allowed is how far a record's amount may lie from a call's amount.
func (t Tolerances) allowed(call decimal.Decimal) decimal.Decimal {
	share := call.Abs().Mul(t.Percent).Div(decimal.NewFromInt(100)).Round(2)
	return decimal.Max(t.Amount, share)
}

// Describe is the tolerances as the Legend and the manifest word them:
// "equal amounts" or "amounts within 0.01 or 0.5% of the call's".
func (t Tolerances) Describe() string {
	switch {
	case t.exact():
		return "equal amounts"
	case t.Percent.IsZero():
		return "amounts within " + recon.Money(t.Amount)
	case t.Amount.IsZero():
		return "amounts within " + t.Percent.String() + "% of the call's"
	}
	return "amounts within " + recon.Money(t.Amount) + " or " + t.Percent.String() + "% of the call's, whichever is more"
}

// Settings are the tolerances as a run's summary keeps them.
func (t Tolerances) Settings() *recon.MatchSettings {
	t = t.withDefaults()
	return &recon.MatchSettings{PairWindow: t.PairWindow.String(), PairAmount: recon.Money(t.Amount),
		PairPercent: t.Percent.String(), TimingWindow: t.Timing.String(), PairRule: t.Describe()}
}
