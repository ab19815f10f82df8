package ledger

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// arithmetic checks one pool object: opening − amount = closing. It
// returns the parsed balances and, when they do not add up, the break
// (Expected opening − amount, Actual closing, Delta their difference). The
// error is for a balance that is no exact decimal.
func arithmetic(c *recon.Call, account string) (opening, amount, closing decimal.Decimal, brk *Break, err error) {
	opening, amount, closing, err = c.Pool.Amounts()
	if err != nil {
		return opening, amount, closing, nil, fmt.Errorf("call %d: %w", c.ID, err)
	}
	if exp := opening.Sub(amount); !exp.Equal(closing) {
		brk = &Break{PoolAccount: account, Kind: recon.BreakArithmetic, CallID: c.ID, TS: c.TS,
			ExternalRef: c.ExternalRef, Expected: exp, Actual: closing, Delta: exp.Sub(closing),
			Note: fmt.Sprintf("opening %s − amount %s ≠ closing %s", recon.Money(opening), recon.Money(amount), recon.Money(closing))}
	}
	return opening, amount, closing, brk, nil
}
