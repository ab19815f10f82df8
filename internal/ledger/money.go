package ledger

import "github.com/svcrecon/svcrecon/internal/recon"

// money is the padded text of a plain decimal amount (recon.PlainMoney),
// which moneyText prefers to formatting the parsed amount.
func money(s string) (string, bool) { return recon.PlainMoney(s) }
