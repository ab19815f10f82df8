package sandbox

import (
	"fmt"
	"sort"
)

// biller is one record of the utility biller list.
type biller struct {
	id, name, catKey, catName, typ, city, state string
	pincode                                     int
	pinAsText                                   bool
	updatedDN                                   int
	available                                   bool
}

var billerCategories = []struct{ key, name string }{
	{"ELECTRICITY", "Electricity"}, {"WATER", "Water"}, {"GAS", "Piped Gas"}, {"LPG", "LPG Cylinder"},
	{"BROADBAND", "Broadband Postpaid"}, {"DTH", "DTH"}, {"POSTPAID", "Mobile Postpaid"},
	{"INSURANCE", "Insurance"}, {"LOAN", "Loan Repayment"}, {"FASTAG", "FASTag"},
	{"MUNICIPAL", "Municipal Taxes"}, {"EDUCATION", "Education Fees"},
}

var places = []struct {
	city, state string
	pin         int
}{
	{"Mumbai", "Maharashtra", 400001}, {"Pune", "Maharashtra", 411001}, {"Delhi", "Delhi", 110001},
	{"Bengaluru", "Karnataka", 560001}, {"Chennai", "Tamil Nadu", 600001}, {"Kolkata", "West Bengal", 700001},
	{"Hyderabad", "Telangana", 500001}, {"Ahmedabad", "Gujarat", 380001}, {"Jaipur", "Rajasthan", 302001},
	{"Lucknow", "Uttar Pradesh", 226001}, {"Bhopal", "Madhya Pradesh", 462001}, {"Patna", "Bihar", 800001},
	{"Kochi", "Kerala", 682001}, {"Guwahati", "Assam", 781001}, {"Chandigarh", "Punjab", 160017},
	{"All India", "All India", 0},
}

var billerWords = []string{"Power", "Energy", "Utilities", "Supply", "Services", "Distribution", "Networks", "Digital", "Finance", "Corporation"}
var billerBrands = []string{"Adarsh", "Bharat", "Coastal", "Deccan", "Eastern", "Ganga", "Himalaya", "Indus", "Janata", "Kaveri", "Lotus", "Malabar", "Narmada", "Orient", "Pragati", "Sahyadri", "Tapti", "Utkal", "Vindhya", "Yamuna"}

func (w *world) genBillers() {
	n := w.opts.Billers
	w.billers = make([]biller, n)
	for i := range w.billers {
		h := mix(w.seed, uint64(i), 0xb111)
		c := billerCategories[h%uint64(len(billerCategories))]
		pl := places[(h>>8)%uint64(len(places))]
		b := &w.billers[i]
		b.id = fmt.Sprintf("%.4s%05d", c.key, i+1)
		b.name = fmt.Sprintf("%s %s %s", billerBrands[(h>>16)%uint64(len(billerBrands))], billerWords[(h>>24)%uint64(len(billerWords))], c.name)
		b.catKey, b.catName = c.key, c.name
		b.typ = "OFFUS"
		if (h>>32)%4 == 0 {
			b.typ = "ONUS"
		}
		b.city, b.state, b.pincode = pl.city, pl.state, pl.pin
		b.pinAsText = (h>>36)%10 == 0
		// updatedDate spread over the 400 days up to End.
		b.updatedDN = w.endDN() - int((h>>40)%400)
		b.available = (h>>52)%20 != 0
	}
	sort.Slice(w.billers, func(i, j int) bool { return w.billers[i].id < w.billers[j].id })
}

func (w *world) appendBiller(b []byte, x *biller) []byte {
	b = append(b, `{"billerId":`...)
	b = appendStr(b, x.id)
	b = append(b, `,"billerName":`...)
	b = appendStr(b, x.name)
	b = append(b, `,"categoryKey":`...)
	b = appendStr(b, x.catKey)
	b = append(b, `,"type":`...)
	b = appendStr(b, x.typ)
	b = append(b, `,"categoryName":`...)
	b = appendStr(b, x.catName)
	b = append(b, `,"coverageCity":`...)
	b = appendStr(b, x.city)
	b = append(b, `,"coverageState":`...)
	b = appendStr(b, x.state)
	b = append(b, `,"coveragePincode":`...)
	if x.pinAsText {
		b = appendStr(b, fmt.Sprint(x.pincode))
	} else {
		b = fmt.Appendf(b, "%d", x.pincode)
	}
	b = append(b, `,"updatedDate":`...)
	b = appendStr(b, newDayStrings(x.updatedDN).date)
	b = append(b, `,"billerStatus":"ACTIVE","isAvailable":`...)
	b = fmt.Appendf(b, "%t}", x.available)
	return b
}

// aepsBank and verifyBank are the bank list records, kept as JSON-ready maps.
type aepsBank = map[string]any
type verifyBank = map[string]any

var bankNames = []struct{ name, ifsc, iin string }{
	{"State Bank of India", "SBIN0000001", "607094"}, {"Punjab National Bank", "PUNB0000100", "607027"},
	{"Bank of Baroda", "BARB0000001", "606985"}, {"Canara Bank", "CNRB0000001", "607396"},
	{"Union Bank of India", "UBIN0500001", "607161"}, {"Bank of India", "BKID0000001", "508505"},
	{"Indian Bank", "IDIB000A001", "607105"}, {"Central Bank of India", "CBIN0280001", "607264"},
	{"Indian Overseas Bank", "IOBA0000001", "607126"}, {"UCO Bank", "UCBA0000001", "607066"},
	{"Bank of Maharashtra", "MAHB0000001", "607387"}, {"Punjab and Sind Bank", "PSIB0000001", "607087"},
	{"HDFC Bank", "HDFC0000001", "607152"}, {"ICICI Bank", "ICIC0000001", "508534"},
	{"Axis Bank", "UTIB0000001", "607153"}, {"Kotak Mahindra Bank", "KKBK0000001", "990320"},
	{"IndusInd Bank", "INDB0000001", "607189"}, {"Yes Bank", "YESB0000001", "607618"},
	{"IDFC First Bank", "IDFB0010201", "608117"}, {"Federal Bank", "FDRL0000001", "607363"},
	{"South Indian Bank", "SIBL0000001", "607440"}, {"Karur Vysya Bank", "KVBL0001101", "607270"},
	{"Airtel Payments Bank", "AIRP0000001", "990309"}, {"India Post Payments Bank", "IPOS0000001", "608314"},
	{"Fino Payments Bank", "FINO0000001", "608001"}, {"Paytm Payments Bank", "PYTM0123456", "608032"},
	{"Andhra Pragathi Grameena Bank", "APGB0000001", "607121"}, {"Baroda UP Bank", "BARB0BUPGBX", "606993"},
	{"Kerala Gramin Bank", "KLGB0040101", "607399"}, {"Saraswat Co-operative Bank", "SRCB0000001", "652150"},
}

func (w *world) genBanks() {
	for i, bn := range bankNames {
		h := mix(w.seed, uint64(i), 0xba4c)
		w.aepsBanks = append(w.aepsBanks, aepsBank{
			"bankId": 100 + i, "name": bn.name, "iin": bn.iin,
			"aepsEnabled": h%10 != 0, "aadhaarpayEnabled": (h>>4)%3 != 0,
			"aepsFailureRate":       fmt.Sprint((h >> 8) % 30),
			"aadhaarpayFailureRate": fmt.Sprint((h >> 16) % 40),
		})
		vb := verifyBank{
			"bankId": 5000 + i*7, "name": bn.name, "ifscGlobal": bn.ifsc,
			"impsEnabled": int((h>>24)%5/4 ^ 1), "upiEnabled": int((h >> 28) % 2), "impsPennyLess": int((h >> 32) % 2),
		}
		if i%9 == 4 { // the spec's number-or-string mixing
			vb["bankId"] = fmt.Sprint(5000 + i*7)
		}
		w.bankList = append(w.bankList, vb)
	}
}
