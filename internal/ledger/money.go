package ledger

import (
	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// moneyText is recon.Money of an amount read from text: the text padded
// when it is a plain decimal (recon.PlainMoney), else the decimal
// formatted.
func moneyText(text string, d decimal.Decimal) string {
	if m, ok := recon.PlainMoney(text); ok {
		return m
	}
	return recon.Money(d)
}

// amountDelta returns call − statement, or "" when they are equal.
func amountDelta(call, stmt decimal.Decimal) string {
	if call.Equal(stmt) {
		return ""
	}
	return recon.Money(call.Sub(stmt))
}
