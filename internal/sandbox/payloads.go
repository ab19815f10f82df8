package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// txn is one executed pool debit, as a response payload needs it.
type txn struct {
	prod        uint8
	ref         string
	orderID     string
	open, close int64 // as logged
	amount      int64
	extra       int64 // transfer amount / denomination (paise)
	sub         uint8 // transfer mode
	noAccount   bool
	number      bool // non-pool amounts as JSON numbers
	h           uint64
	req         map[string]any
	at          time.Time // response time
	forLog      bool      // redacted as the client's call log holds it
}

var firstNames = []string{"Aarav", "Vivaan", "Aditya", "Ananya", "Diya", "Ishaan", "Kavya", "Meera", "Rohan", "Saanvi", "Arjun", "Priya", "Rahul", "Sneha", "Vikram", "Neha", "Karthik", "Pooja", "Amit", "Lakshmi"}
var middleNames = []string{"Kumar", "", "Raj", "", "Devi", "", "Prasad", ""}
var lastNames = []string{"Sharma", "Verma", "Iyer", "Nair", "Reddy", "Patel", "Shah", "Gupta", "Singh", "Das", "Menon", "Joshi", "Kulkarni", "Banerjee", "Pillai", "Rao"}
var streets = []string{"MG Road", "Station Road", "Nehru Nagar", "Gandhi Chowk", "Park Street", "Lake View Road", "Temple Street", "Market Lane"}

// persona is a made-up person derived from a hash.
type persona struct {
	first, middle, last string
	pan, mobile, gender string
	dob                 time.Time
	city, state         string
	pin                 int
	street              string
	house               int
}

func newPersona(h uint64) persona {
	p := persona{
		first:  firstNames[h%uint64(len(firstNames))],
		middle: middleNames[(h>>5)%uint64(len(middleNames))],
		last:   lastNames[(h>>9)%uint64(len(lastNames))],
		gender: "Male",
		street: streets[(h>>13)%uint64(len(streets))],
		house:  int(1 + (h>>17)%400),
	}
	if (h>>22)%2 == 0 {
		p.gender = "Female"
	}
	pl := places[(h>>24)%uint64(len(places)-1)]
	p.city, p.state, p.pin = pl.city, pl.state, pl.pin+int((h>>28)%40)
	letters := func(v uint64, n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(byte('A' + v%26))
			v /= 26
		}
		return b.String()
	}
	p.pan = letters(h>>32, 3) + "P" + p.last[:1] + fmt.Sprintf("%04d", (h>>20)%10000) + letters(h>>40, 1)
	p.mobile = fmt.Sprintf("%d%09d", 6+(h>>44)%4, (h>>14)%1_000_000_000)
	p.dob = time.Date(1960+int((h>>48)%40), time.Month(1+(h>>54)%12), 1+int((h>>58)%28), 0, 0, 0, 0, recon.IST)
	return p
}

func (p persona) full() string {
	if p.middle == "" {
		return p.first + " " + p.last
	}
	return p.first + " " + p.middle + " " + p.last
}

func (p persona) upper() string { return strings.ToUpper(p.full()) }

func (p persona) address() string {
	return fmt.Sprintf("%d, %s, %s, %s %d", p.house, p.street, p.city, p.state, p.pin)
}

// str returns the request's text value at path, or def.
func reqText(req map[string]any, path, def string) string {
	if v, ok := svcapi.GetPath(req, path); ok {
		switch x := v.(type) {
		case string:
			if x != "" {
				return x
			}
		case json.Number:
			return x.String()
		case bool:
			return fmt.Sprint(x)
		}
	}
	return def
}

// amountValue writes an amount as a decimal string, or as a JSON number
// (exact text) when number is set: the spec's number-or-string mixing.
func amountValue(p int64, number bool) any {
	if number {
		return json.Number(money(p))
	}
	return money(p)
}

// poolObject renders the pool debit of t in the product's shape; nil for
// data-level products.
func poolObject(t *txn, account string) map[string]any {
	switch products[t.prod].shape {
	case svcapi.PoolA:
		m := map[string]any{"openingBal": money(t.open), "amount": money(t.amount), "closingBal": money(t.close), "mode": "DR"}
		if !t.noAccount && !products[t.prod].noAccount {
			m["account"] = account
		}
		if products[t.prod].noMode {
			delete(m, "mode")
		}
		return m
	case svcapi.PoolB:
		return map[string]any{"referenceId": refID("PB", t.h), "openingBalance": money(t.open),
			"paymentAmount": money(t.amount), "mode": "DR", "closingBalance": money(t.close)}
	}
	return nil
}

func refID(prefix string, h uint64) string {
	return fmt.Sprintf("%s%014d", prefix, h%100_000_000_000_000)
}

// payload is the data member of the answer to a pool debit: the pool
// object in the product's shape and the product's own data.
func payload(t *txn, account string) map[string]any {
	p := newPersona(t.h)
	data := map[string]any{}
	if pool := poolObject(t, account); pool != nil {
		data["pool"] = pool
	}
	switch products[t.prod].op {
	case svcapi.OpVerifyPanPlusV2:
		withRefs(data, t)
		data["panPlusDataV2"] = panPlusData(t, p)
	case svcapi.OpMobileNameLookup:
		data["poolReferenceId"] = refID("PL", t.h>>3)
		data["mobileLinkedName"] = p.upper()
		if t.h%13 == 0 {
			data["mobileLinkedName"] = "No record found"
		}
	case svcapi.OpMobilePanLookup:
		data["poolReferenceId"] = refID("PL", t.h>>3)
		data["panData"] = map[string]any{"name": p.upper(), "pan": p.pan}
	case svcapi.OpPanDin:
		withRefs(data, t)
		data["panDinData"] = map[string]any{"din": fmt.Sprintf("%08d", t.h%100_000_000)}
	case svcapi.OpNameAbbreviations:
		nameAbbreviationsData(data, t, p)
	case svcapi.OpBalanceInquiry:
		balanceInquiryData(data, t)
	case svcapi.OpLitigation:
		withRefs(data, t)
		data["litigationDetails"] = litigationDetails(t, p)
	case svcapi.OpCreditReport:
		withRefs(data, t)
		data["creditReport"] = creditReport(t, p)
	case svcapi.OpCompanyLookup:
		data["poolReferenceId"] = refID("PL", t.h>>3)
		data["companyData"] = companyData(t.h, p, reqText(t.req, "companyIdentityNumber", ""))
	case svcapi.OpCorporateEmpCheck:
		data["employeData"] = employment(t.h, p, reqText(t.req, "customerPhoneNumber", p.mobile))
	case svcapi.OpFundTransfer:
		withRefs(data, t)
		data["txnValue"] = amountValue(t.extra, t.number)
		data["remitterMobile"] = reqText(t.req, "remitterMobile", p.mobile)
		data["beneficiaryAccount"] = fmt.Sprintf("XXXXXX%04d", (t.h>>9)%10000)
		data["beneficiaryIfsc"] = bankNames[(t.h>>7)%uint64(len(bankNames))].ifsc
	case svcapi.OpBrandOrder:
		withRefs(data, t)
		brandOrderData(data, t, p)
	}
	return data
}

// withRefs adds the references most answers carry.
func withRefs(data map[string]any, t *txn) {
	data["externalRef"] = t.ref
	data["poolReferenceId"] = refID("PL", t.h>>3)
	data["txnReferenceId"] = refID("TR", t.h>>5)
}

// panPlusData is the PAN verification's person.
func panPlusData(t *txn, p persona) map[string]any {
	return map[string]any{
		"panNumber": reqText(t.req, "pan", p.pan), "userFullName": p.upper(),
		"userFullNameSplit": []string{strings.ToUpper(p.first), strings.ToUpper(p.middle), strings.ToUpper(p.last)},
		"maskedAadhaar":     fmt.Sprintf("XXXXXXXX%04d", t.h%10000),
		"userAddress": map[string]any{"line1": fmt.Sprintf("%d", p.house), "line2": "", "streetName": p.street,
			"zip": fmt.Sprint(p.pin), "city": p.city, "state": p.state, "country": "India", "full": p.address()},
		"userGender": p.gender[:1], "userDob": p.dob.Format("02-01-2006"), "aadhaarLinkedStatus": t.h%7 != 0,
		"panType": "Person", "isSoleProprietor": yn(t.h%9 == 0), "isDirector": yn(t.h%11 == 0), "isSalaried": yn(t.h%3 != 0),
		"panStatus": "VALID", "panAllotmentDate": p.dob.AddDate(22, 3, 0).Format(time.DateOnly),
	}
}

// nameAbbreviationsData is the name abbreviations' answer, with its own
// balances (transactionValue before 18% GST).
func nameAbbreviationsData(data map[string]any, t *txn, p persona) {
	name := reqText(t.req, "name", reqText(t.req, "Name", p.full()))
	data["svcId"] = t.orderID
	data["openingBalance"] = money(t.open)
	data["closingBalance"] = money(t.close)
	data["payableValue"] = money(t.amount)
	data["transactionValue"] = money(t.amount * 100 / 118)
	data["abbreviations"] = abbreviations(name)
}

// balanceInquiryData is the AePS balance enquiry's answer: a bank account
// and its balance.
func balanceInquiryData(data map[string]any, t *txn) {
	data["externalRef"] = t.ref
	data["bankName"] = bankNames[(t.h>>7)%uint64(len(bankNames))].name
	data["accountNumber"] = fmt.Sprintf("XXXXXXXX%04d", (t.h>>11)%10000)
	data["svcId"] = t.orderID
	data["transactionMode"] = "BE"
	data["payableValue"] = money(t.amount)
	data["transactionValue"] = "0.00"
	data["openingBalance"] = money(t.open)
	data["closingBalance"] = money(t.close)
	data["operatorId"] = fmt.Sprintf("%012d", (t.h>>13)%1_000_000_000_000)
	data["walletSvcId"] = refID("WL", t.h>>17)
	data["bankAccountBalance"] = amountValue(int64(t.h%50_000_000), t.number)
	data["miniStatement"] = []any{}
}

// litigationDetails are zero to two cases against the name searched.
func litigationDetails(t *txn, p persona) []any {
	name := reqText(t.req, "name", p.full())
	cases := []any{}
	for i := 0; i < int(t.h%3); i++ {
		cases = append(cases, litigationCase(t.h+uint64(i)*977, name, p, t.at))
	}
	return cases
}

// brandOrderData is the gift card's sender and receiver; the card's number
// and PIN are masked as the client's call log holds them.
func brandOrderData(data map[string]any, t *txn, p persona) {
	data["txnValue"] = money(t.extra)
	data["sender"] = map[string]any{"name": reqText(t.req, "sender.name", p.full())}
	card, pin := fmt.Sprintf("60%014d", t.h%100_000_000_000_000), fmt.Sprintf("%06d", (t.h>>20)%1_000_000)
	if t.forLog {
		card, pin = svcapi.MaskLast4(card), svcapi.Redacted
	}
	data["receiver"] = map[string]any{
		"name":       reqText(t.req, "receiver.name", "Gift Receiver"),
		"contact":    reqText(t.req, "receiver.contact", p.mobile),
		"cardNumber": card,
		"cardPin":    pin,
		"cardExpiry": t.at.In(recon.IST).AddDate(1, 0, 0).Format(time.DateOnly),
	}
}

func yn(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}

func abbreviations(name string) []string {
	parts := strings.Fields(strings.ToUpper(name))
	if len(parts) == 0 {
		return []string{}
	}
	var initials, lastFull strings.Builder
	for i, p := range parts {
		initials.WriteByte(p[0])
		if i < len(parts)-1 {
			lastFull.WriteString(p[:1] + " ")
		} else {
			lastFull.WriteString(p)
		}
	}
	out := []string{initials.String(), lastFull.String()}
	if len(parts) > 1 {
		out = append(out, parts[0]+" "+parts[len(parts)-1][:1])
	}
	return out
}

func litigationCase(h uint64, name string, p persona, at time.Time) map[string]any {
	year := 2012 + int(h%12)
	cnr := fmt.Sprintf("MHPU%02d%06d%d", h%20, (h>>8)%1_000_000, year)
	return map[string]any{
		"address": p.address(), "addressDistCode": fmt.Sprint(h % 40), "addressDistrict": p.city, "addressPincode": fmt.Sprint(p.pin),
		"addressState": p.state, "addressStateCode": fmt.Sprint(h % 36), "addressStreet": p.street, "addressTaluka": p.city,
		"algoRisk": []string{"low", "medium", "high"}[h%3], "allCandidates": []string{strings.ToUpper(name)},
		"businessCategory": "", "caseCategory": []string{"civil", "criminal"}[h%2], "caseCode": fmt.Sprint(h % 100000),
		"caseDecisionDate": "", "caseFilter": "", "caseNo": fmt.Sprintf("%d/%d", 100+h%900, year), "caseNoYear": fmt.Sprint(year),
		"caseStatus": []string{"PENDING", "DISPOSED"}[(h>>3)%2], "caseType": "CC", "caseTypeCode": fmt.Sprint(h % 90), "caseTypeName": "Criminal Case",
		"caseYear": fmt.Sprint(year), "cleanName": strings.ToUpper(name), "cnr": cnr, "courtCode": int(h % 20),
		"courtComplexCode": fmt.Sprint(1000 + h%9000), "courtName": "Chief Judicial Magistrate, " + p.city,
		"courtNoAndJudge": "1-Chief Judicial Magistrate", "courtNoJudge": "1", "courtNoName": "Court No. 1",
		"courtNumberAndJudge": "1-CJM", "customDistCode": fmt.Sprint(h % 40), "customStateCode": fmt.Sprint(h % 36),
		"dataCategory": "court", "decisionDate": "", "distCode": int(h % 40), "distName": p.city, "fatherMatchType": "NO_MATCH",
		"fileYear": fmt.Sprint(year), "filingDate": fmt.Sprintf("%02d-%02d-%d", 1+h%28, 1+h%12, year), "filingDateNew": fmt.Sprintf("%d-%02d-%02d", year, 1+h%12, 1+h%28),
		"filingNo": fmt.Sprintf("%d/%d", 1000+h%9000, year), "filingNoNew": fmt.Sprint(1000 + h%9000), "fine": "", "firNo": fmt.Sprint(h % 500),
		"firYear": fmt.Sprint(year), "firstHearingDate": fmt.Sprintf("%d-%02d-%02d", year, 1+(h>>2)%12, 1+(h>>4)%28),
		"globalCategory": "litigation", "id": fmt.Sprintf("%x", h), "imprisonment": "", "link": "https://court.example/case/" + cnr,
		"md5": fmt.Sprintf("%016x%016x", h, h*31), "modelScore": json.Number(fmt.Sprintf("0.%02d", 50+h%50)), "name": strings.ToUpper(name),
		"nameMatchType": "EXACT_FUZZY", "natureOfDisposal": "", "nextHearingDate": at.In(recon.IST).AddDate(0, 1, 0).Format(time.DateOnly),
		"oparty": "State", "orderSummary": "", "policeStation": p.city + " City", "purposeOfHearing": "Evidence",
		"rawAddress": p.address(), "ref": fmt.Sprint(h % 1_000_000), "registrationDate": fmt.Sprintf("%02d-%02d-%d", 1+h%28, 1+h%12, year),
		"registrationDateNew": fmt.Sprintf("%d-%02d-%02d", year, 1+h%12, 1+h%28), "registrationNo": fmt.Sprintf("%d/%d", 200+h%800, year),
		"registrationNoNew": fmt.Sprint(200 + h%800), "score": int(60 + h%40), "source": "ecourts", "stageOfCase": "Evidence",
		"stateCode": int(h % 36), "stateName": p.state, "subject": "", "timeStamp": at.UTC().Format(time.RFC3339),
		"type": int(h % 3), "underActs": "Negotiable Instruments Act", "underSections": "138", "uniqCaseId": fmt.Sprintf("UC%x", h>>4),
		"year": fmt.Sprint(year),
	}
}

func creditReport(t *txn, p persona) map[string]any {
	h := t.h
	at := t.at.In(recon.IST)
	reported := at.AddDate(0, -1, 0).Format(time.DateOnly)
	var hist []any
	for m := 0; m < 12; m++ {
		d := at.AddDate(0, -m-1, 0)
		st := "000"
		if (h>>uint(m))%17 == 0 {
			st = "01+"
		}
		hist = append(hist, map[string]any{"key": d.Format("01-06"), "PaymentStatus": st, "SuitFiledStatus": "*", "AssetClassificationStatus": "*"})
	}
	age := at.Year() - p.dob.Year()
	return map[string]any{
		"personalInfo": map[string]any{
			"Name": map[string]any{"FullName": p.upper()}, " AliasName": map[string]any{},
			"DateOfBirth": p.dob.Format(time.DateOnly), "Gender": p.gender, "Age": map[string]any{"Age": fmt.Sprint(age)},
			"PlaceOfBirthInfo": map[string]any{}, "TotalIncome": fmt.Sprint(300000 + h%2000000),
		},
		"identityInfo": map[string]any{
			"PANId":   []any{map[string]any{"seq": "1", "ReportedDate": reported, "IdNumber": reqText(t.req, "taxIdNumber", p.pan)}},
			"VoterID": []any{}, "NationalIDCard": []any{}, "Passport": []any{},
		},
		"addressInfo": []any{map[string]any{"Seq": "1", "ReportedDate": reported, "Address": strings.ToUpper(p.address()),
			"State": p.state, "Postal": fmt.Sprint(p.pin), "Type": "Primary,Residence"}},
		"phoneInfo": []any{map[string]any{"seq": "1", "typeCode": "M", "ReportedDate": reported,
			"Number": reqText(t.req, "mobile", reqText(t.req, "mobileNumber", p.mobile))}},
		"retailAccountDetails": []any{map[string]any{
			"seq": "1", "AccountNumber": fmt.Sprintf("XXXXXXXXXXXX%04d", h%10000), "Institution": bankNames[h%uint64(len(bankNames))].name,
			"AccountType": "Credit Card", "OwnershipType": "Individual", "Balance": fmt.Sprint(h % 90000), "Open": "Yes",
			"HighCredit": fmt.Sprint(50000 + h%50000), "LastPaymentDate": at.AddDate(0, 0, -12).Format(time.DateOnly),
			"DateReported": reported, "DateOpened": at.AddDate(-3, 0, 0).Format(time.DateOnly), "AccountStatus": "Current Account",
			"source": "INDIVIDUAL", "History48Months": hist,
		}},
	}
}

func companyData(h uint64, p persona, cin string) map[string]any {
	if cin == "" {
		cin = fmt.Sprintf("AAB-%04d", h%10000)
	}
	return map[string]any{
		"fllpin": cin, "foreignLlpName": strings.ToUpper(billerBrands[h%uint64(len(billerBrands))]) + " TRADING LLP",
		"countryOfIncorporation": "India", "numberOfAuthorisedRepresentatives": fmt.Sprint(1 + h%3),
		"dateOfIncorporation": fmt.Sprintf("%02d/%02d/%d", 1+h%28, 1+h%12, 2005+h%15), "registeredAddress": p.address(),
		"emailId": strings.ToLower(p.first) + "@example.com", "typeOfOffice": "Registered", "details": "-",
		"mainDivisionOfBusinessActivityToBeCarriedOutInIndia": "Trade", "descriptionOfMainDivision": "Wholesale trade",
		"dateOfLastFinancialYearEndDateForWhichStatementOfAccountsAndSolvencyFiled": "-", "fllpStatus": "INACTIVE",
		"directors": []any{map[string]any{"dinPan": fmt.Sprintf("%08d", h%100_000_000), "name": p.upper(),
			"beginDate": fmt.Sprintf("%02d/%02d/%d", 1+h%28, 1+h%12, 2005+h%15), "endDate": "-", "surrenderedDin": "-"}},
	}
}

func employment(h uint64, p persona, phone string) map[string]any {
	uan := fmt.Sprintf("10%010d", h%10_000_000_000)
	est := fmt.Sprintf("MHBAN%07d000", (h>>9)%10_000_000)
	joined := p.dob.AddDate(23, int(h%12), 0).Format("02/01/2006")
	return map[string]any{
		"personalDetails": map[string]any{"userGender": p.gender, "userDob": p.dob.Format("02/01/2006"),
			"userFullName": p.upper(), "userPhoneNumber": phone},
		"employmentDetails": map[string]any{
			"isEmployed": h%5 != 0, "dateOfExitMarked": h%5 == 0, "uanList": []string{uan}, "uanCount": 1,
			"recentEmployerData": map[string]any{"memberId": est + "0001", "establishmentId": est, "dateOfExit": "NA",
				"dateOfJoining": joined, "establishmentName": strings.ToUpper(billerBrands[(h>>3)%uint64(len(billerBrands))]) + " PRIVATE LIMITED", "uanNumber": uan},
			"previousEmployerData": map[string]any{"list": []any{}},
		},
	}
}

// genRequest makes the request body of a generated call (already redacted
// where the call log redacts).
func genRequest(prod uint8, ref string, h uint64, extra int64, sub uint8) map[string]any {
	p := newPersona(h)
	lat := fmt.Sprintf("%d.%06d", 12+h%16, (h>>4)%1_000_000)
	lon := fmt.Sprintf("%d.%06d", 72+(h>>8)%16, (h>>12)%1_000_000)
	req := map[string]any{"latitude": lat, "longitude": lon, "externalRef": ref}
	switch products[prod].op {
	case svcapi.OpVerifyPanPlusV2:
		req["pan"], req["consent"] = p.pan, "Y"
	case svcapi.OpMobileNameLookup:
		req["mobileNumber"], req["consent"] = p.mobile, "Y"
	case svcapi.OpMobilePanLookup:
		req["mobileNumber"] = p.mobile
	case svcapi.OpPanDin:
		req["pan"] = p.pan
	case svcapi.OpNameAbbreviations:
		req = map[string]any{"name": p.full(), "maxLength": "12", "externalRef": ref}
	case svcapi.OpLitigation:
		req["name"], req["searchType"], req["address"] = p.full(), "Individual", p.address()
		req["fatherName"] = firstNames[(h>>3)%uint64(len(firstNames))] + " " + p.last
	case svcapi.OpCreditReport:
		req["name"], req["dob"], req["mobile"], req["inquiryPurposeCode"], req["gender"] = p.full(), p.dob.Format(time.DateOnly), p.mobile, "05", p.gender
		req["consent"], req["taxIdNumber"] = "Y", p.pan
		req["homeAddress"] = map[string]any{"addressLine1": fmt.Sprintf("%d, %s", p.house, p.street), "city": p.city, "state": p.state, "postal": fmt.Sprint(p.pin)}
	case svcapi.OpCompanyLookup:
		req["companyIdentityNumber"], req["consent"] = fmt.Sprintf("AAB-%04d", h%10000), "Y"
	case svcapi.OpCorporateEmpCheck:
		req["customerPhoneNumber"], req["consent"] = p.mobile, "Y"
	case svcapi.OpBalanceInquiry:
		req["bankiin"], req["mobile"], req["captureType"] = bankNames[(h>>7)%uint64(len(bankNames))].iin, p.mobile, "FINGER"
		bio := map[string]any{}
		for _, k := range []string{"dc", "ci", "dpId", "mc", "pidDataType", "mi", "rdsId", "rdsVer", "srno"} {
			bio[k] = fmt.Sprintf("%s-%04d", k, h%10000)
		}
		for _, k := range svcapi.RedactedKeys {
			if k != "cardPin" {
				bio[k] = svcapi.Redacted
			}
		}
		bio["fType"], bio["iCount"], bio["pType"], bio["qScore"], bio["nmPoints"] = "2", "0", "0", fmt.Sprint(60+h%40), fmt.Sprint(30+h%30)
		req["biometricData"] = bio
	case svcapi.OpFundTransfer:
		req["remitterMobile"], req["beneficiaryId"], req["transferMode"] = p.mobile, fmt.Sprintf("BEN%07d", h%10_000_000), transferModes[sub]
		req["transferAmount"] = money(extra)
	case svcapi.OpBrandOrder:
		req["productKey"], req["denomination"] = "AMAZON", json.Number(fmt.Sprint(extra/100))
		req["sender"] = map[string]any{"name": p.full()}
		req["receiver"] = map[string]any{"name": "Gift Receiver", "contact": p.mobile, "gift_message": "Happy birthday!"}
	}
	return req
}
