package store

import "github.com/shopspring/decimal"

// DebitCap is the arithmetic of a run's --max-debit: the debits it has
// confirmed, and its calls whose debit is not known yet, counted at the
// expected debit of one call. A new call starts only while the total, with
// the new call at the expected debit too, stays within the cap: so the
// cap holds as long as no call costs more than the expected debit (the
// largest debit seen, or the rate card's). Until the expected debit is
// known, one call at a time goes out (the first call of a run goes alone),
// and none while an earlier one's debit is unknown.
type DebitCap struct {
	Limit    decimal.Decimal // --max-debit
	Debited  decimal.Decimal // confirmed: the pool debits of the successful rows
	Expected decimal.Decimal // the expected debit of one call, when Known
	Known    bool            // Expected was learnt from an answer (or a rate card)
	InFlight int             // calls whose answer has not come yet ('sending' rows)
	Pending  int             // ended calls whose outcome or debit is unknown ('pending' rows)
}

// Unknown is how many calls' debits are not known yet.
func (c DebitCap) Unknown() int { return c.InFlight + c.Pending }

// Reserved is what the calls whose debit is unknown count for: each at
// the expected debit (zero when it is not known).
func (c DebitCap) Reserved() decimal.Decimal {
	return c.Expected.Mul(decimal.NewFromInt(int64(c.Unknown())))
}

// Room returns how many of n more calls may start, and, when none may, why
// (BulkHoldReserved: calls in flight hold what is left, it may free up when
// they end; BulkHoldMaxDebit: nothing in flight can free room, stop).
func (c DebitCap) Room(n int) (int, string) {
	none := BulkHoldMaxDebit
	if c.InFlight > 0 {
		none = BulkHoldReserved
	}
	switch {
	case n <= 0:
		return 0, ""
	case c.Debited.GreaterThanOrEqual(c.Limit):
		return 0, BulkHoldMaxDebit
	case !c.Known && c.Unknown() > 0:
		return 0, none
	case !c.Known:
		return 1, ""
	case !c.Expected.IsPositive():
		return n, ""
	}
	left := c.Limit.Sub(c.Debited).Sub(c.Reserved())
	k := left.Div(c.Expected).Floor()
	if !k.IsPositive() {
		return 0, none
	}
	if k.LessThan(decimal.NewFromInt(int64(n))) {
		return int(k.IntPart()), ""
	}
	return n, ""
}
