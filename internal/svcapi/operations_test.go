package svcapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// opCase calls one operation through the real client against a fake
// service answering with fixture, and checks the decoded payload.
type opCase struct {
	name    string // subtest name; the operation unless a variant
	op      string
	fixture string
	run     func(t *testing.T, ctx context.Context, c *svcapi.Client)
	body    map[string]string // request fields (dotted) and the text they must hold
}

// result holds what a typed call returned, so that got(c.Op(…)).ok(t) can
// check it in one line.
type result[D any] struct {
	env *svcapi.Envelope
	d   *D
	err error
}

func got[D any](env *svcapi.Envelope, d *D, err error) result[D] { return result[D]{env, d, err} }

func (r result[D]) ok(t *testing.T) (*svcapi.Envelope, *D) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("call: %v", r.err)
	}
	if r.env == nil || r.d == nil {
		t.Fatalf("call returned env %v, data %v", r.env, r.d)
	}
	return r.env, r.d
}

var opCases = []opCase{
	{op: svcapi.OpCreditReport, fixture: "creditReport.json",
		body: map[string]string{"mobile": "9000000001", "homeAddress.postal": "560000", "consent": "Y", "latitude": "12.9716"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env, d := got(c.CreditReport(ctx, svcapi.CreditReportRequest{
				Name: "TEST PERSON ONE", DOB: "1990-01-01", Mobile: "9000000001", InquiryPurposeCode: "05", Gender: "Male",
				HomeAddress: &svcapi.HomeAddress{City: "SAMPLE CITY", Postal: "560000"}, TaxIDNumber: "AAAPZ0000Z",
				Location: loc, Consent: "Y", ExternalRef: "TESTCR0001"})).ok(t)
			eq(t, "orderid", env.OrderID, "ORD0000000001")
			checkPool(t, d.Pool, svcapi.PoolA, "1000", "1.18", "998.82")
			eq(t, "pool.Amount.StringFixed(2)", d.Pool.Amount.StringFixed(2), "1.18")
			eq(t, "externalRef", d.ExternalRef, "TESTCR0001")
			eq(t, "account", d.Pool.Account, "POOLACCT01")
			r := d.CreditReport
			eq(t, "FullName", r.PersonalInfo.Name.FullName, "TEST PERSON ONE")
			eq(t, "Age", r.PersonalInfo.Age.Age, "36")
			eq(t, "' AliasName'", string(r.PersonalInfo.AliasNameSpaced), "{}")
			amt(t, "TotalIncome", r.PersonalInfo.TotalIncome, "500000")
			if len(r.IdentityInfo.PANId) != 1 || len(r.IdentityInfo.Passport) != 1 || len(r.IdentityInfo.NationalIDCard) != 0 {
				t.Fatalf("identityInfo = %+v", r.IdentityInfo)
			}
			eq(t, "Passport seq (a number)", r.IdentityInfo.Passport[0].Seq, "1")
			eq(t, "PANId", r.IdentityInfo.PANId[0].IDNumber, "AAAPZ0000Z")
			if len(r.AddressInfo) != 2 || r.AddressInfo[1].Postal != "" || r.AddressInfo[0].Type != "Primary,Residence" {
				t.Errorf("addressInfo = %+v", r.AddressInfo)
			}
			eq(t, "phone typeCode", r.PhoneInfo[1].TypeCode, "H")
			if len(r.RetailAccountDetails) != 2 {
				t.Fatalf("retail accounts = %d", len(r.RetailAccountDetails))
			}
			a := r.RetailAccountDetails[0]
			amt(t, "Balance", a.Balance, "12345.67")
			amt(t, "HighCredit", a.HighCredit, "23456.78")
			amt(t, "LastPayment (a number)", a.LastPayment, "2000.5")
			eq(t, "InterestRate", a.InterestRate, "13.5")
			if len(a.History48Months) != 3 || a.History48Months[1].PaymentStatus != "01+" || a.History48Months[1].Key != "12-24" {
				t.Errorf("History48Months = %+v", a.History48Months)
			}
			b := r.RetailAccountDetails[1]
			if b.SanctionAmount.Valid || b.Open != "No" || b.DateClosed != "2022-06-10" || b.AssetClassification != "STD" {
				t.Errorf("closed account = %+v", b)
			}
		}},
	{op: svcapi.OpAddPaymentMethod, fixture: "addPaymentMethod.json",
		body: map[string]string{"gcId": "GC0000000001", "accountType": "VPA", "upiId": "test.user@examplebank"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env, d := got(c.AddPaymentMethod(ctx, svcapi.AddPaymentMethodRequest{
				GcID: "GC0000000001", AccountType: svcapi.AccountTypeVPA, UpiID: "test.user@examplebank"})).ok(t)
			eq(t, "orderid", env.OrderID, "")
			if !d.IsPrimary || d.IsVerified {
				t.Errorf("isPrimary, isVerified = %v, %v; want true, false", d.IsPrimary, d.IsVerified)
			}
			eq(t, "accountNumber", d.AccountNumber, "test.user@examplebank")
			eq(t, "_id", d.ID, "65f000000000000000000001")
			eq(t, "created_at", d.CreatedAt, "2026-11-20T04:45:02.123456Z")
		}},
	{op: svcapi.OpCollectOrders, fixture: "collectOrders.json",
		body: map[string]string{"isOrder": "true", "bankProfileId": "0", "pagination.pageNumber": "1", "filters.txnDateTo": "2026-11-19"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			p, err := c.Statement(ctx, statementRequest(true))
			if err != nil {
				t.Fatal(err)
			}
			if p.Meta.TotalPages != 3 || p.Meta.TotalRecords != 5 || len(p.Records) != 2 {
				t.Fatalf("page = %+v", p.Meta)
			}
			eq(t, "settlementSvcOrderId[0]", p.Records[0].SettlementSvcOrderID, "")
			eq(t, "settlementSvcOrderId[1]", p.Records[1].SettlementSvcOrderID, "ST0000000002")
			eq(t, "subProductName (null)", p.Records[0].SubProductName, "")
			amt(t, "txnChargedValue", p.Records[1].TxnChargedValue, "99.99")
		}},
	{op: svcapi.OpStatement, fixture: "statement.json",
		body: map[string]string{"bankProfileId": "7", "accountNumber": "0409000123456", "externalRef": "TESTSTMT01"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			p, err := c.Statement(ctx, statementRequest(false))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Records) != 2 {
				t.Fatalf("records = %d", len(p.Records))
			}
			r0, r1 := p.Records[0], p.Records[1]
			if r0.ClosingBalance.Valid || r0.ClosingBalance.Raw != "XXXXXX" {
				t.Errorf("masked closingBalance = %+v, want Raw XXXXXX, not valid", r0.ClosingBalance)
			}
			amt(t, "closingBalance", r1.ClosingBalance, "8994.1")
			amt(t, "txnChargedValue", r1.TxnChargedValue, "1005.9")
			amt(t, "txnSurcharge", r0.TxnSurcharge, "0.18")
			eq(t, "reversalSvcOrderId", r1.ReversalSvcOrderID, "ORD0000000009")
			at, err := r0.Time()
			if err != nil || !at.Equal(time.Date(2026, 11, 19, 4, 45, 2, 0, time.UTC)) {
				t.Errorf("Time() = %v, %v; want 2026-11-19 04:45:02 UTC", at, err)
			}
		}},
	{name: "statement_numbers", op: svcapi.OpStatement, fixture: "statement_numbers.json",
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env, p := got(svcapi.Call[svcapi.StatementPage](ctx, c, svcapi.OpStatement, statementRequest(false))).ok(t)
			eq(t, `orderid "null"`, env.OrderID, "")
			if p.Meta.TotalPages != 2 || p.Meta.RecordTo != 2 || p.Meta.CurrentPage != 1 {
				t.Errorf("meta from strings = %+v", p.Meta)
			}
			r0, r1 := p.Records[0], p.Records[1]
			eq(t, "svcOrderId (20-digit number)", r0.SvcOrderID, "12345678901234567890")
			eq(t, "transactionId (number)", r0.TransactionID, "98765")
			eq(t, "responseCode (number)", r0.ResponseCode, "0")
			amt(t, "txnChargedValue (number)", r0.TxnChargedValue, "2.36")
			amt(t, "txnSurcharge (number)", r0.TxnSurcharge, "0.36")
			amt(t, "closingBalance (number)", r0.ClosingBalance, "8991.74")
			amt(t, "orderValue (string)", r1.OrderValue, "0.1")
			if r1.ConvenienceFee.Valid || r1.TxnSurcharge.Valid {
				t.Errorf(`"" and null amounts are valid: %+v, %+v`, r1.ConvenienceFee, r1.TxnSurcharge)
			}
			eq(t, "txnMode", r1.TxnMode, "CR")
		}},
	{op: svcapi.OpBillers, fixture: "billers.json",
		body: map[string]string{"pagination.pageNumber": "2", "filters.categoryKey": ""},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			p, err := c.Billers(ctx, svcapi.BillersRequest{Pagination: svcapi.Pagination{PageNumber: "2", RecordsPerPage: "2"}})
			if err != nil {
				t.Fatal(err)
			}
			if p.Meta.CurrentPage != 2 || len(p.Records) != 2 {
				t.Fatalf("page = %+v", p)
			}
			b0, b1 := p.Records[0], p.Records[1]
			eq(t, "coveragePincode (number)", b0.CoveragePincode, "560000")
			eq(t, "coveragePincode (string)", b1.CoveragePincode, "000000")
			if !b0.IsAvailable || b1.IsAvailable {
				t.Errorf("isAvailable = %v, %v", b0.IsAvailable, b1.IsAvailable)
			}
			eq(t, "type", b1.Type, "OFFUS")
		}},
	{op: svcapi.OpBalanceInquiry, fixture: "balanceInquiry.json",
		body: map[string]string{"bankiin": "600001", "biometricData.pidData": "PIDDATA-SECRET", "biometricData.fType": "2"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env, d := got(c.BalanceInquiry(ctx, balanceRequest())).ok(t)
			eq(t, "orderid = svcId", env.OrderID, string(d.SvcID))
			amt(t, "bankAccountBalance", d.BankAccountBalance, "15234.56")
			p, err := d.Pool()
			if err != nil {
				t.Fatal(err)
			}
			checkPool(t, &p, svcapi.PoolData, "998.82", "0.5", "998.32")
			if len(d.MiniStatement) != 0 {
				t.Errorf("miniStatement = %s", d.MiniStatement)
			}
		}},
	{op: svcapi.OpVerifyPanPlusV2, fixture: "verifyPanPlusV2.json",
		body: map[string]string{"pan": "AAAPZ0000Z", "consent": "Y", "externalRef": "TESTPAN0001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.VerifyPanPlusV2(ctx, svcapi.VerifyPanPlusV2Request{PAN: "AAAPZ0000Z", Location: loc,
				ExternalRef: "TESTPAN0001", Consent: "Y"})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolA, "998.32", "2.36", "995.96")
			eq(t, "txnReferenceId", d.TxnReferenceID, "TXNREF0008")
			p := d.PanPlusDataV2
			if len(p.UserFullNameSplit) != 3 || p.UserFullNameSplit[2] != "ONE" {
				t.Errorf("userFullNameSplit = %v", p.UserFullNameSplit)
			}
			if !p.AadhaarLinkedStatus || !p.IsDirector || p.IsSoleProprietor || p.IsSalaried {
				t.Errorf("flags = %+v", p)
			}
			eq(t, "zip", p.UserAddress.Zip, "560000")
			eq(t, "userDob", p.UserDob, "01-01-1990")
		}},
	{op: svcapi.OpInitiateUserRegistration, fixture: "initiateUserRegistration.json",
		body: map[string]string{"pincode": "560000", "email": "test@example.invalid"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env, d := got(c.InitiateUserRegistration(ctx, svcapi.InitiateUserRegistrationRequest{
				Mobile: "9000000002", Email: "test@example.invalid", PAN: "AAAPZ0000Z", Pincode: "560000", Location: loc})).ok(t)
			eq(t, `orderid "null"`, env.OrderID, "")
			eq(t, "internalCode", env.InternalCode, "OTP sent to the registered mobile")
			eq(t, "otpReference", d.OtpReference, "OTPREF000001")
			eq(t, "recipient.mobile (number)", d.Recipient.Mobile, "9000000002")
		}},
	{op: svcapi.OpAepsBanks, fixture: "aepsBanks.json",
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			banks, err := c.AepsBanks(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(banks) != 2 {
				t.Fatalf("banks = %d", len(banks))
			}
			b0, b1 := banks[0], banks[1]
			if b0.BankID != 101 || b1.BankID != 102 || b0.AepsFailureRate != 12 || b0.AadhaarpayFailureRate != 100 ||
				b1.AadhaarpayFailureRate != 5 || b0.AadhaarpayEnabled || !b1.AadhaarpayEnabled {
				t.Errorf("banks = %+v", banks)
			}
			eq(t, "iin", b1.IIN, "600002")
		}},
	{op: svcapi.OpLitigation, fixture: "litigation.json",
		body: map[string]string{"searchType": "Individual", "fatherName": "TEST FATHER"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.Litigation(ctx, svcapi.LitigationRequest{Name: "TEST PERSON ONE", FatherName: "TEST FATHER",
				SearchType: svcapi.SearchIndividual, Address: "1 TEST STREET", Location: loc, ExternalRef: "TESTLIT0001"})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolA, "995.96", "11.8", "984.16")
			if d.Pool.Account != "" || d.Pool.Mode != "" {
				t.Errorf("absent account/mode = %q/%q", d.Pool.Account, d.Pool.Mode)
			}
			if len(d.LitigationDetails) != 1 {
				t.Fatalf("cases = %d", len(d.LitigationDetails))
			}
			k := d.LitigationDetails[0]
			if k.CourtCode != 12 || k.DistCode != 3 || k.StateCode != 29 || k.Type != 1 {
				t.Errorf("numeric codes = %d %d %d %d", k.CourtCode, k.DistCode, k.StateCode, k.Type)
			}
			eq(t, "modelScore", k.ModelScore, "0.87")
			eq(t, "score", k.Score, "92")
			eq(t, "nameMatchType", k.NameMatchType, "EXACT_FUZZY")
			eq(t, "filingDate", k.FilingDate, "05-02-2024")
			eq(t, "cnr", k.CNR, "TEST000000012024")
			if len(k.AllCandidates) != 2 {
				t.Errorf("allCandidates = %v", k.AllCandidates)
			}
		}},
	{op: svcapi.OpOkycQr, fixture: "okycQr.json",
		body: map[string]string{"consent": "Y", "mobile": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env, d := got(c.OkycQr(ctx, svcapi.OkycQrRequest{Mobile: "9000000001", Location: loc, Consent: "Y"})).ok(t)
			eq(t, `orderid "null"`, env.OrderID, "")
			eq(t, "qrStatus", d.QrStatus, "PENDING")
			eq(t, "qrExpiryDt", d.QrExpiryDt, "2026-11-20 10:30:00")
			if !strings.HasPrefix(string(d.QrString), "TESTQRSTRING") {
				t.Errorf("qrString = %q", d.QrString)
			}
		}},
	{op: svcapi.OpCorporateEmpCheck, fixture: "corporateEmpCheck.json",
		body: map[string]string{"customerPhoneNumber": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.CorporateEmpCheck(ctx, svcapi.CorporateEmpCheckRequest{CustomerPhoneNumber: "9000000001",
				Location: loc, ExternalRef: "TESTEMP0001", Consent: "Y"})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolB, "984.16", "5.9", "978.26")
			eq(t, "referenceId", d.Pool.ReferenceID, "POOLREF0014")
			eq(t, "mode", d.Pool.Mode, "DR")
			e := d.EmployeData.EmploymentDetails
			if !e.IsEmployed || e.DateOfExitMarked || e.UanCount != 2 || len(e.UanList) != 2 {
				t.Errorf("employmentDetails = %+v", e)
			}
			eq(t, "recent dateOfExit", e.RecentEmployerData.DateOfExit, "NA")
			if len(e.PreviousEmployerData.List) != 1 {
				t.Fatalf("previous = %+v", e.PreviousEmployerData)
			}
			eq(t, "sequenceNumber (number)", e.PreviousEmployerData.List[0].SequenceNumber, "1")
			eq(t, "userDob", d.EmployeData.PersonalDetails.UserDob, "01/01/1990")
		}},
	{op: svcapi.OpFundTransfer, fixture: "fundTransfer.json",
		body: map[string]string{"transferAmount": "1000.5", "transferMode": "IMPS", "beneficiaryId": "BEN0001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.FundTransfer(ctx, svcapi.FundTransferRequest{RemitterMobile: "9000000001", BeneficiaryID: "BEN0001",
				TransferMode: svcapi.TransferIMPS, TransferAmount: decimal.RequireFromString("1000.50"), Location: loc,
				ExternalRef: "TESTFT0001"})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolA, "5000", "1005.9", "3994.1")
			amt(t, "txnValue", d.TxnValue, "1000")
			eq(t, "beneficiaryIfsc", d.BeneficiaryIfsc, "TEST0000001")
		}},
	{op: svcapi.OpCompanyLookup, fixture: "companyLookup.json",
		body: map[string]string{"companyIdentityNumber": "FTEST-0001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.CompanyLookup(ctx, svcapi.CompanyLookupRequest{CompanyIdentityNumber: "FTEST-0001",
				Location: loc, ExternalRef: "TESTCO0001", Consent: "Y"})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolA, "3994.1", "17.7", "3976.4")
			eq(t, "fllpStatus", d.CompanyData.FllpStatus, "INACTIVE")
			eq(t, "solvency date", d.CompanyData.LastFinancialYearEndDate, "-")
			if len(d.CompanyData.Directors) != 2 || d.CompanyData.Directors[0].EndDate != "-" {
				t.Errorf("directors = %+v", d.CompanyData.Directors)
			}
		}},
	{op: svcapi.OpMobileNameLookup, fixture: "mobileNameLookup.json",
		body: map[string]string{"mobileNumber": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.MobileNameLookup(ctx, svcapi.MobileNameLookupRequest{MobileNumber: "9000000001",
				Location: loc, ExternalRef: "TESTMN0001", Consent: "Y"})).ok(t)
			// The pool amounts are JSON numbers here: still exact.
			checkPool(t, d.Pool, svcapi.PoolA, "3976.4", "1.18", "3975.22")
			eq(t, "mobileLinkedName", d.MobileLinkedName, "TEST PERSON ONE")
		}},
	{op: svcapi.OpBrandOrder, fixture: "brandOrder.json",
		body: map[string]string{"denomination": "500", "sender.name": "TEST SENDER", "receiver.gift_message": "Happy testing"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.BrandOrder(ctx, svcapi.BrandOrderRequest{ExternalRef: "TESTBO0001", ProductKey: "PK-TEST",
				Denomination: 500, Sender: svcapi.BrandSender{Name: "TEST SENDER"},
				Receiver: svcapi.BrandReceiver{Name: "TEST RECEIVER", Contact: "receiver@example.invalid", GiftMessage: "Happy testing"},
				Location: loc})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolA, "3975.22", "490", "3485.22")
			amt(t, "txnValue", d.TxnValue, "500")
			eq(t, "cardExpiry", d.Receiver.CardExpiry, "2027-11-30")
			eq(t, "sender", d.Sender.Name, "TEST SENDER")
		}},
	{op: svcapi.OpMobilePanLookup, fixture: "mobilePanLookup.json",
		body: map[string]string{"mobileNumber": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.MobilePanLookup(ctx, svcapi.MobilePanLookupRequest{MobileNumber: "9000000001",
				ExternalRef: "TESTMP0001", Location: loc})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolA, "3485.22", "3.54", "3481.68")
			eq(t, "pan", d.PanData.PAN, "AAAPZ0000Z")
		}},
	{op: svcapi.OpPanDin, fixture: "panDin.json",
		body: map[string]string{"pan": "AAAPZ0000Z"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			_, d := got(c.PanDin(ctx, svcapi.PanDinRequest{PAN: "AAAPZ0000Z", Location: loc, ExternalRef: "TESTDIN0001"})).ok(t)
			checkPool(t, d.Pool, svcapi.PoolA, "3481.68", "2.95", "3478.73")
			eq(t, "din (leading zeros)", d.PanDinData.DIN, "00000001")
		}},
	{op: svcapi.OpNameAbbreviations, fixture: "nameAbbreviations.json",
		body: map[string]string{"name": "TEST PERSON ONE", "maxLength": "7"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env, d := got(c.NameAbbreviations(ctx, svcapi.NameAbbreviationsRequest{Name: "TEST PERSON ONE", MaxLength: 7,
				ExternalRef: "TESTNA0001"})).ok(t)
			p, err := d.Pool()
			if err != nil {
				t.Fatal(err)
			}
			checkPool(t, &p, svcapi.PoolData, "3478.73", "0.59", "3478.14")
			eq(t, "orderid = svcId", env.OrderID, string(d.SvcID))
			if len(d.Abbreviations) != 3 {
				t.Errorf("abbreviations = %v", d.Abbreviations)
			}
		}},
	{op: svcapi.OpVerifyBankAccountBanks, fixture: "verifyBankAccountBanks.json",
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			banks, err := c.VerifyBankAccountBanks(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(banks) != 2 || !banks[0].ImpsEnabled || banks[0].ImpsPennyLess || banks[1].ImpsEnabled ||
				!banks[1].UpiEnabled || !banks[1].ImpsPennyLess {
				t.Errorf("banks = %+v", banks)
			}
			eq(t, "ifscGlobal", banks[0].IfscGlobal, "TEST0000000")
		}},
	{op: svcapi.OpTxnStatus, fixture: "txnStatus.json",
		// 20:00 UTC on the 19th is the 20th in IST.
		body: map[string]string{"transactionDate": "2026-11-20", "externalRef": "TESTFT0001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			d, err := c.TxnStatus(ctx, time.Date(2026, 11, 19, 20, 0, 0, 0, time.UTC), "TESTFT0001")
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "transactionStatusCode", d.TransactionStatusCode, svcapi.StatusSuccess)
			eq(t, "orderid", d.OrderID, "ORD0000000015")
			amt(t, "txnValue", d.TxnValue, "1000")
			checkPool(t, d.Pool, svcapi.PoolA, "5000", "1005.9", "3994.1")
		}},
	{name: "txnStatus_pending", op: svcapi.OpTxnStatus, fixture: "txnStatus_pending.json",
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			d, err := c.TxnStatus(ctx, time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST), "TESTFT0002")
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "transactionStatusCode", d.TransactionStatusCode, svcapi.StatusPending)
			if d.Pool != nil || d.TxnValue.Valid {
				t.Errorf("pending look-up has pool %v, txnValue %v", d.Pool, d.TxnValue)
			}
		}},
	{name: "txnStatus_notfound", op: svcapi.OpTxnStatus, fixture: "txnStatus_notfound.json",
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			d, err := c.TxnStatus(ctx, time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST), "TESTNEVER01")
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "transactionStatusCode", d.TransactionStatusCode, svcapi.TxnNotFound)
		}},
}

func statementRequest(isOrder bool) svcapi.StatementRequest {
	r := svcapi.StatementRequest{BankProfileID: "7", AccountNumber: "0409000123456", ExternalRef: "TESTSTMT01",
		Pagination: svcapi.Pagination{PageNumber: "1", RecordsPerPage: "2"},
		Filters:    svcapi.StatementFilters{TxnDateFrom: "2026-11-19", TxnDateTo: "2026-11-19"}}
	if isOrder {
		r.BankProfileID, r.IsOrder = "0", true
	}
	return r
}

func balanceRequest() svcapi.BalanceInquiryRequest {
	return svcapi.BalanceInquiryRequest{BankIIN: "600001", Location: loc, Mobile: "9000000001", ExternalRef: "TESTBI0001",
		CaptureType: "FINGER", BiometricData: svcapi.BiometricData{
			EncryptedAadhaar: "ENCAADHAAR-SECRET", Dc: "DC1", Ci: "20261231", Hmac: "HMAC-SECRET", DpID: "DP.TEST", Mc: "MC1",
			PidDataType: "X", SessionKey: "SESSIONKEY-SECRET", Mi: "MI1", RdsID: "RDS.TEST", FType: "2", ICount: "0",
			PType: "0", Srno: "SRNO0001", PidData: "PIDDATA-SECRET", QScore: "80", NmPoints: "40", RdsVer: "1.0.0",
		}}
}

// TestOperations calls every operation of the registry through the client
// and checks method, path, headers, the request body and the decoded data.
func TestOperations(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range opCases {
		name := tc.name
		if name == "" {
			name = tc.op
		}
		covered[tc.op] = true
		t.Run(name, func(t *testing.T) {
			op, ok := svcapi.Lookup(tc.op)
			if !ok {
				t.Fatalf("Lookup(%q) failed", tc.op)
			}
			f := newFake(t, serve(http.StatusOK, fixture(t, tc.fixture)))
			c := newClient(t, testConfig(f.URL))
			tc.run(t, context.Background(), c)

			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests reached the service, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != op.Method || r.Path != op.Path {
				t.Errorf("request = %s %s, want %s %s", r.Method, r.Path, op.Method, op.Path)
			}
			checkHeaders(t, op, r)
			if op.Method == http.MethodGet {
				if len(r.Body) != 0 {
					t.Errorf("GET with a body: %s", r.Body)
				}
				return
			}
			body := map[string]any{}
			dec := json.NewDecoder(bytes.NewReader(r.Body))
			dec.UseNumber()
			if err := dec.Decode(&body); err != nil {
				t.Fatalf("request body %s: %v", r.Body, err)
			}
			if err := op.Validate(body); err != nil {
				t.Errorf("the body sent breaks the schema: %v", err)
			}
			for k, want := range tc.body {
				v, ok := svcapi.GetPath(body, k)
				if !ok {
					t.Errorf("request field %s absent in %s", k, r.Body)
					continue
				}
				if got := fmtValue(v); got != want {
					t.Errorf("request field %s = %s, want %s", k, got, want)
				}
			}
		})
	}
	for _, op := range svcapi.Operations() {
		if !covered[op.Name] {
			t.Errorf("operation %s has no case in TestOperations", op.Name)
		}
	}
}

func fmtValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func checkHeaders(t *testing.T, op *svcapi.Operation, r recorded) {
	t.Helper()
	want := map[string]string{
		svcapi.HeaderAuthCode: "1", svcapi.HeaderClientID: testClientID,
		svcapi.HeaderClientSecret: testSecret, svcapi.HeaderEndpointIP: testEndpointIP,
		"Accept": "application/json",
	}
	if op.Headers == svcapi.H5 {
		want[svcapi.HeaderOutletID] = testOutletID
	} else if v := r.Header.Get(svcapi.HeaderOutletID); v != "" {
		t.Errorf("H4 operation sent %s: %q", svcapi.HeaderOutletID, v)
	}
	if op.Method == http.MethodPost {
		want["Content-Type"] = "application/json"
	}
	for k, v := range want {
		if got := r.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	ts, hash, check := r.Header.Get(svcapi.HeaderRequestTimestamp), r.Header.Get(svcapi.HeaderRequestHash), r.Header.Get(svcapi.HeaderHashCheck)
	if !op.HashHeader {
		if ts != "" || hash != "" || check != "" {
			t.Errorf("hash headers sent by %s: %q %q %q", op.Name, ts, hash, check)
		}
		return
	}
	if ms, err := strconv.ParseInt(ts, 10, 64); err != nil || ms < 1_600_000_000_000 {
		t.Errorf("%s = %q, want epoch milliseconds", svcapi.HeaderRequestTimestamp, ts)
	}
	if parts := strings.Split(hash, "|"); len(parts) < 2 || parts[0] != testClientID || parts[1] != ts {
		t.Errorf("%s = %q, want client id|timestamp|…", svcapi.HeaderRequestHash, hash)
	}
	if check != "OFF" {
		t.Errorf("%s = %q, want OFF", svcapi.HeaderHashCheck, check)
	}
}

// TestExtractPoolFixtures checks that every fixture of a debiting
// operation yields a pool of the registry's shape that adds up.
func TestExtractPoolFixtures(t *testing.T) {
	for _, op := range svcapi.Operations() {
		if op.Pool == svcapi.PoolNone {
			continue
		}
		t.Run(op.Name, func(t *testing.T) {
			env, err := svcapi.DecodeEnvelope(fixture(t, op.Name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			p, err := svcapi.ExtractPool(env)
			if err != nil {
				t.Fatalf("ExtractPool: %v", err)
			}
			if p.Shape != op.Pool || !p.Delta().IsZero() || p.Amount.Sign() <= 0 {
				t.Errorf("ExtractPool = %+v, want shape %s adding up", p, op.Pool)
			}
		})
	}
	for _, name := range []string{"addPaymentMethod.json", "okycQr.json", "verifyPanPlusV2_tup.json", "aepsBanks.json"} {
		env, err := svcapi.DecodeEnvelope(fixture(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svcapi.ExtractPool(env); !errors.Is(err, svcapi.ErrNoPool) {
			t.Errorf("ExtractPool(%s) = %v, want ErrNoPool", name, err)
		}
	}
}
