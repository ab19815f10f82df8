package sandbox_test

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// prices is the sandbox's price list by productCode/subProductCode (the
// fee alone for transfers; gift cards charge their denomination), as
// testdata/rates-sandbox.yaml has it.
var prices = map[string]string{
	"IDV/PANPLUSV2": "1.50", "IDV/MOBNAME": "2.36", "IDV/MOBPAN": "3.54", "IDV/PANDIN": "2.95", "IDV/NAMEABBR": "0.59",
	"LIT/LITSEARCH": "25.00", "CIR/CIRFULL": "35.40", "KYB/COMPANY": "11.80", "EMP/EPFUAN": "5.90", "AEPS/AEPSBE": "1.18",
	"DMT/IMPS": "5.90", "DMT/NEFT": "2.95", "DMT/RTGS": "23.60", "GC/BRANDGC": "0.00",
}

// TestMispricedProduct: every statement debit is charged its product's
// price (transfers and gift cards on top of their orderValue, a transfer
// naming its mode as its subProductCode) but the planted ones: Mobile to
// PAN one rupee above its price on the days Mispriced names, every debit
// of it on those days, reversed or not, and the planted amountMismatch's
// record; without defects, none.
func TestMispricedProduct(t *testing.T) {
	for _, noDefects := range []bool{false, true} {
		srv, cl := start(t, sandbox.Options{NoDefects: noDefects})
		_, recs := history(t, srv, cl)
		m := srv.Mispriced()
		if noDefects != (len(m.Days) == 0) || m.ProductCode != "IDV" || m.SubProductCode != "MOBPAN" ||
			!m.Charged.Sub(m.Price).Equal(decimal.NewFromInt(1)) {
			t.Fatalf("NoDefects %v: Mispriced = %+v", noDefects, m)
		}
		mismatch := ""
		for _, d := range srv.Planted() {
			if d.Kind == sandbox.DefectAmountMismatch {
				mismatch = d.SvcOrderID
			}
		}
		var off []string
		modes := map[string]bool{}
		for _, r := range recs {
			if r.TxnMode != "DR" {
				continue
			}
			key := string(r.ProductCode) + "/" + string(r.SubProductCode)
			if r.ProductCode == "DMT" {
				modes[string(r.SubProductCode)] = true
			}
			price, ok := prices[key]
			if !ok {
				t.Fatalf("%s: product %s not in the price list", r.SvcOrderID, key)
			}
			want := decimal.RequireFromString(price)
			if r.ProductCode == "DMT" || r.ProductCode == "GC" {
				want = want.Add(r.OrderValue.Decimal)
			}
			day := string(r.TxnDateTime)[:10]
			mispriced := key == "IDV/MOBPAN" && slices.Contains(m.Days, day)
			switch got := r.TxnChargedValue.Decimal; {
			case mispriced && !got.Equal(m.Charged):
				t.Errorf("%s (%s on %s) charged %s, want the mispriced %s", r.SvcOrderID, key, day, got, m.Charged)
			case mispriced:
				off = append(off, string(r.SvcOrderID))
			case string(r.SvcOrderID) == mismatch:
			case !got.Equal(want):
				t.Errorf("%s (%s on %s) charged %s, want its price %s", r.SvcOrderID, key, day, got, want)
			}
		}
		if !noDefects && len(off) < 2 {
			t.Errorf("%d mispriced debits on %v, want some", len(off), m.Days)
		}
		if !modes["IMPS"] || !modes["NEFT"] {
			t.Errorf("transfers' subProductCodes %v, want IMPS and NEFT", modes)
		}
	}
}
