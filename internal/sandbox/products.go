package sandbox

import "github.com/svcrecon/svcrecon/internal/svcapi"

// product is a pool-debiting operation as the statement names it, with its
// fixed charge.
type product struct {
	op         string
	charge     int64 // paise; for fundTransfer the fee of IMPS (see transferFee), for brandOrder 0 (the denomination is charged)
	code, name string
	subCode    string
	subName    string // "" is sent as null
	weight     int    // share in the generated history
	shape      svcapi.PoolShape
	noAccount  bool // the pool object never carries account (company look-up, mobile to name)
	noMode     bool // the pool object carries no mode (company look-up)
}

// products are the pool-debiting operations with their charges (paise).
// The charges are the sandbox's price list; README documents them.
var products = []product{
	{op: svcapi.OpVerifyPanPlusV2, charge: 150, code: "IDV", name: "Identity Verification", subCode: "PANPLUSV2", subName: "PAN Verification Plus V2", weight: 30},
	{op: svcapi.OpMobileNameLookup, charge: 236, code: "IDV", name: "Identity Verification", subCode: "MOBNAME", subName: "Mobile to Name", weight: 12, noAccount: true},
	{op: svcapi.OpMobilePanLookup, charge: 354, code: "IDV", name: "Identity Verification", subCode: "MOBPAN", subName: "Mobile to PAN", weight: 8},
	{op: svcapi.OpPanDin, charge: 295, code: "IDV", name: "Identity Verification", subCode: "PANDIN", subName: "", weight: 6},
	{op: svcapi.OpNameAbbreviations, charge: 59, code: "IDV", name: "Identity Verification", subCode: "NAMEABBR", subName: "Name Abbreviation", weight: 6},
	{op: svcapi.OpLitigation, charge: 2500, code: "LIT", name: "Litigation Search", subCode: "LITSEARCH", subName: "Litigation Search", weight: 6},
	{op: svcapi.OpCreditReport, charge: 3540, code: "CIR", name: "Credit Report", subCode: "CIRFULL", subName: "Credit Information Report", weight: 8},
	{op: svcapi.OpCompanyLookup, charge: 1180, code: "KYB", name: "Business Verification", subCode: "COMPANY", subName: "", weight: 5, noAccount: true, noMode: true},
	{op: svcapi.OpCorporateEmpCheck, charge: 590, code: "EMP", name: "Employment Verification", subCode: "EPFUAN", subName: "Mobile to EPF", weight: 6},
	{op: svcapi.OpBalanceInquiry, charge: 118, code: "AEPS", name: "AePS", subCode: "AEPSBE", subName: "Balance Enquiry", weight: 5},
	{op: svcapi.OpFundTransfer, charge: 590, code: "DMT", name: "Domestic Money Transfer", subCode: "IMPS", subName: "Fund Transfer", weight: 6},
	{op: svcapi.OpBrandOrder, charge: 0, code: "GC", name: "Gift Cards", subCode: "BRANDGC", subName: "Brand Gift Card", weight: 2},
}

var (
	productIndex = func() map[string]uint8 {
		m := map[string]uint8{}
		for i := range products {
			op, _ := svcapi.Lookup(products[i].op)
			products[i].shape = op.Pool
			m[products[i].op] = uint8(i)
		}
		return m
	}()
	weightTotal = func() int {
		t := 0
		for _, p := range products {
			t += p.weight
		}
		return t
	}()
)

// Product indexes used by the generator.
var (
	prodLitigation   = productIndex[svcapi.OpLitigation]
	prodFundTransfer = productIndex[svcapi.OpFundTransfer]
	prodBrandOrder   = productIndex[svcapi.OpBrandOrder]
)

// transferFee is the fee of a fund transfer by mode, in paise.
func transferFee(mode string) int64 {
	switch mode {
	case "NEFT":
		return 295
	case "RTGS":
		return 2360
	}
	return 590
}

// transferModes are indexed by slot.sub; a transfer's statement record
// names its mode as its subProductCode (DMT/IMPS, DMT/NEFT, DMT/RTGS), so
// that a rate card can price each mode's fee.
var transferModes = []string{"IMPS", "NEFT", "RTGS"}

// pickProduct chooses a product by weight from a uniform number in [0, weightTotal).
func pickProduct(n int) uint8 {
	for i, p := range products {
		if n < p.weight {
			return uint8(i)
		}
		n -= p.weight
	}
	return 0
}
