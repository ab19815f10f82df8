package sandbox

import (
	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The mispriced product (issue 27): with defects planted, every debit of
// one product (Mobile to PAN, IDV/MOBPAN) on the days of the middle fifth
// of the history is charged mispriceDelta above the sandbox's price list
// (products). Call and statement record agree on the amount, so nothing
// but a rate card shows it: reconcile run --sandbox --rates
// testdata/rates-sandbox.yaml flags those debits as overcharged.
const (
	mispriceDelta = 100 // paise: one rupee
)

// prodMispriced is the mispriced product.
var prodMispriced = productIndex[svcapi.OpMobilePanLookup]

// mispricedDay says whether day d of the history charges the mispriced
// product above its price: the days from 2/5 to 3/5 of the history, with
// defects planted.
func (w *world) mispricedDay(d int) bool {
	if w.opts.NoDefects || d >= w.days {
		return false
	}
	return d >= w.days*2/5 && d <= w.days*3/5
}

// Mispricing is the mispriced product the sandbox plants: its operation,
// product and sub-product code, its price (the sandbox's price list), what
// it is charged on the days it is mispriced, and those days (IST).
type Mispricing struct {
	Operation                   string
	ProductCode, SubProductCode string
	Price, Charged              decimal.Decimal
	Days                        []string // YYYY-MM-DD
}

// Mispriced returns the mispriced product and its days (none with
// NoDefects).
func (s *Sandbox) Mispriced() Mispricing {
	p := &products[prodMispriced]
	m := Mispricing{Operation: p.op, ProductCode: p.code, SubProductCode: p.subCode,
		Price: decimal.New(p.charge, -2), Charged: decimal.New(p.charge+mispriceDelta, -2)}
	for d := 0; d < s.w.days; d++ {
		if s.w.mispricedDay(d) {
			m.Days = append(m.Days, newDayStrings(s.w.startDN+d).date)
		}
	}
	return m
}
