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

var opCases = []opCase{
	{op: svcapi.OpCreditReport, fixture: "creditReport.json",
		body: map[string]string{"mobile": "9000000001", "homeAddress.postal": "560000", "consent": "Y", "latitude": "12.9716"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpCreditReport, withLoc(map[string]any{
				"name": "TEST PERSON ONE", "dob": "1990-01-01", "mobile": "9000000001", "inquiryPurposeCode": "05", "gender": "Male",
				"homeAddress": map[string]any{"city": "SAMPLE CITY", "postal": "560000"}, "taxIdNumber": "AAAPZ0000Z",
				"consent": "Y", "externalRef": "TESTCR0001"}))
			eq(t, "orderid", env.OrderID, "ORD0000000001")
			p := poolOf(t, env)
			checkPool(t, p, svcapi.PoolA, "1000", "1.18", "998.82")
			eq(t, "pool.Amount.StringFixed(2)", p.Amount.StringFixed(2), "1.18")
			eq(t, "account", p.Account, "POOLACCT01")
			dataEq(t, env, "externalRef", "TESTCR0001",
				"creditReport.personalInfo.Name.FullName", "TEST PERSON ONE",
				"creditReport.personalInfo.Age.Age", "36",
				"creditReport.personalInfo. AliasName", "{}",
				"creditReport.identityInfo.Passport.0.seq", "1",
				"creditReport.identityInfo.PANId.0.IdNumber", "AAAPZ0000Z",
				"creditReport.addressInfo.0.Type", "Primary,Residence",
				"creditReport.phoneInfo.1.typeCode", "H",
				"creditReport.retailAccountDetails.0.Balance", "12345.67",
				"creditReport.retailAccountDetails.0.LastPayment", "2000.5",
				"creditReport.retailAccountDetails.0.History48Months.1.PaymentStatus", "01+",
				"creditReport.retailAccountDetails.1.DateClosed", "2022-06-10")
		}},
	{op: svcapi.OpAddPaymentMethod, fixture: "addPaymentMethod.json",
		body: map[string]string{"gcId": "GC0000000001", "accountType": "VPA", "upiId": "test.user@examplebank"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpAddPaymentMethod, map[string]any{
				"gcId": "GC0000000001", "accountType": "VPA", "upiId": "test.user@examplebank"})
			eq(t, "orderid", env.OrderID, "")
			if _, err := svcapi.ExtractPool(env); !errors.Is(err, svcapi.ErrNoPool) {
				t.Errorf("ExtractPool = %v, want ErrNoPool", err)
			}
			dataEq(t, env, "isPrimary", "true", "isVerified", "false", "accountNumber", "test.user@examplebank",
				"_id", "65f000000000000000000001", "created_at", "2026-11-20T04:45:02.123456Z")
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
			env, p, err := svcapi.Call[svcapi.StatementPage](ctx, c, svcapi.OpStatement, statementRequest(false))
			if err != nil || env == nil || p == nil {
				t.Fatalf("Call = %v, %v, %v", env, p, err)
			}
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
			env := do(t, c, svcapi.OpBalanceInquiry, balanceRequest())
			eq(t, "orderid = svcId", env.OrderID, data(t, env, "svcId"))
			checkPool(t, poolOf(t, env), svcapi.PoolData, "998.82", "0.5", "998.32")
			dataEq(t, env, "bankAccountBalance", "15234.56", "miniStatement", "[]")
		}},
	{op: svcapi.OpVerifyPanPlusV2, fixture: "verifyPanPlusV2.json",
		body: map[string]string{"pan": "AAAPZ0000Z", "consent": "Y", "externalRef": "TESTPAN0001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpVerifyPanPlusV2, verifyPanRequest())
			checkPool(t, poolOf(t, env), svcapi.PoolA, "998.32", "2.36", "995.96")
			dataEq(t, env, "txnReferenceId", "TXNREF0008", "panPlusDataV2.userFullNameSplit", `["TEST","PERSON","ONE"]`,
				"panPlusDataV2.aadhaarLinkedStatus", "true", "panPlusDataV2.isDirector", "Y",
				"panPlusDataV2.userAddress.zip", "560000", "panPlusDataV2.userDob", "01-01-1990")
		}},
	{op: svcapi.OpInitiateUserRegistration, fixture: "initiateUserRegistration.json",
		body: map[string]string{"pincode": "560000", "email": "test@example.invalid"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpInitiateUserRegistration, withLoc(map[string]any{
				"mobile": "9000000002", "email": "test@example.invalid", "pan": "AAAPZ0000Z", "pincode": "560000"}))
			eq(t, `orderid "null"`, env.OrderID, "")
			eq(t, "internalCode", env.InternalCode, "OTP sent to the registered mobile")
			dataEq(t, env, "otpReference", "OTPREF000001", "recipient.mobile", "9000000002")
		}},
	{op: svcapi.OpAepsBanks, fixture: "aepsBanks.json",
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpAepsBanks, nil)
			dataEq(t, env, "0.bankId", "101", "1.bankId", "102", "0.aepsFailureRate", "12", "1.aadhaarpayFailureRate", "5",
				"0.aadhaarpayEnabled", "false", "1.iin", "600002", "2", "(absent)")
		}},
	{op: svcapi.OpLitigation, fixture: "litigation.json",
		body: map[string]string{"searchType": "Individual", "fatherName": "TEST FATHER"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpLitigation, withLoc(map[string]any{"name": "TEST PERSON ONE", "fatherName": "TEST FATHER",
				"searchType": "Individual", "address": "1 TEST STREET", "externalRef": "TESTLIT0001"}))
			p := poolOf(t, env)
			checkPool(t, p, svcapi.PoolA, "995.96", "11.8", "984.16")
			if p.Account != "" || p.Mode != "" {
				t.Errorf("absent account/mode = %q/%q", p.Account, p.Mode)
			}
			dataEq(t, env, "litigationDetails.0.courtCode", "12", "litigationDetails.0.distCode", "3",
				"litigationDetails.0.modelScore", "0.87", "litigationDetails.0.nameMatchType", "EXACT_FUZZY",
				"litigationDetails.0.filingDate", "05-02-2024", "litigationDetails.0.cnr", "TEST000000012024",
				"litigationDetails.0.allCandidates", `["TEST PERSON ONE","T P ONE"]`, "litigationDetails.1", "(absent)")
		}},
	{op: svcapi.OpOkycQr, fixture: "okycQr.json",
		body: map[string]string{"consent": "Y", "mobile": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpOkycQr, withLoc(map[string]any{"mobile": "9000000001", "consent": "Y"}))
			eq(t, `orderid "null"`, env.OrderID, "")
			dataEq(t, env, "qrStatus", "PENDING", "qrExpiryDt", "2026-11-20 10:30:00")
			if !strings.HasPrefix(data(t, env, "qrString"), "TESTQRSTRING") {
				t.Errorf("qrString = %q", data(t, env, "qrString"))
			}
		}},
	{op: svcapi.OpCorporateEmpCheck, fixture: "corporateEmpCheck.json",
		body: map[string]string{"customerPhoneNumber": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpCorporateEmpCheck, withLoc(map[string]any{"customerPhoneNumber": "9000000001",
				"externalRef": "TESTEMP0001", "consent": "Y"}))
			p := poolOf(t, env)
			checkPool(t, p, svcapi.PoolB, "984.16", "5.9", "978.26")
			eq(t, "referenceId", p.ReferenceID, "POOLREF0014")
			eq(t, "mode", p.Mode, "DR")
			const e = "employeData.employmentDetails."
			dataEq(t, env, e+"isEmployed", "true", e+"uanCount", "2", e+"recentEmployerData.dateOfExit", "NA",
				e+"previousEmployerData.list.0.sequenceNumber", "1", "employeData.personalDetails.userDob", "01/01/1990")
		}},
	{op: svcapi.OpFundTransfer, fixture: "fundTransfer.json",
		body: map[string]string{"transferAmount": "1000.5", "transferMode": "IMPS", "beneficiaryId": "BEN0001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpFundTransfer, withLoc(map[string]any{"remitterMobile": "9000000001", "beneficiaryId": "BEN0001",
				"transferMode": "IMPS", "transferAmount": "1000.5", "externalRef": "TESTFT0001"}))
			checkPool(t, poolOf(t, env), svcapi.PoolA, "5000", "1005.9", "3994.1")
			dataEq(t, env, "txnValue", "1000.00", "beneficiaryIfsc", "TEST0000001")
		}},
	{op: svcapi.OpCompanyLookup, fixture: "companyLookup.json",
		body: map[string]string{"companyIdentityNumber": "FTEST-0001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpCompanyLookup, withLoc(map[string]any{"companyIdentityNumber": "FTEST-0001",
				"externalRef": "TESTCO0001", "consent": "Y"}))
			checkPool(t, poolOf(t, env), svcapi.PoolA, "3994.1", "17.7", "3976.4")
			dataEq(t, env, "companyData.fllpStatus", "INACTIVE", "companyData.directors.0.endDate", "-",
				"companyData.directors.2", "(absent)")
		}},
	{op: svcapi.OpMobileNameLookup, fixture: "mobileNameLookup.json",
		body: map[string]string{"mobileNumber": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpMobileNameLookup, withLoc(map[string]any{"mobileNumber": "9000000001",
				"externalRef": "TESTMN0001", "consent": "Y"}))
			// The pool amounts are JSON numbers here: still exact.
			checkPool(t, poolOf(t, env), svcapi.PoolA, "3976.4", "1.18", "3975.22")
			dataEq(t, env, "mobileLinkedName", "TEST PERSON ONE")
		}},
	{op: svcapi.OpBrandOrder, fixture: "brandOrder.json",
		body: map[string]string{"denomination": "500", "sender.name": "TEST SENDER", "receiver.gift_message": "Happy testing"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpBrandOrder, brandOrderRequest("TESTBO0001", "TEST SENDER", 500))
			checkPool(t, poolOf(t, env), svcapi.PoolA, "3975.22", "490", "3485.22")
			dataEq(t, env, "txnValue", "500", "receiver.cardExpiry", "2027-11-30", "sender.name", "TEST SENDER")
		}},
	{op: svcapi.OpMobilePanLookup, fixture: "mobilePanLookup.json",
		body: map[string]string{"mobileNumber": "9000000001"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpMobilePanLookup, withLoc(map[string]any{"mobileNumber": "9000000001", "externalRef": "TESTMP0001"}))
			checkPool(t, poolOf(t, env), svcapi.PoolA, "3485.22", "3.54", "3481.68")
			dataEq(t, env, "panData.pan", "AAAPZ0000Z")
		}},
	{op: svcapi.OpPanDin, fixture: "panDin.json",
		body: map[string]string{"pan": "AAAPZ0000Z"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpPanDin, withLoc(map[string]any{"pan": "AAAPZ0000Z", "externalRef": "TESTDIN0001"}))
			checkPool(t, poolOf(t, env), svcapi.PoolA, "3481.68", "2.95", "3478.73")
			dataEq(t, env, "panDinData.din", "00000001") // leading zeros kept
		}},
	{op: svcapi.OpNameAbbreviations, fixture: "nameAbbreviations.json",
		body: map[string]string{"name": "TEST PERSON ONE", "maxLength": "7"},
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpNameAbbreviations, map[string]any{"name": "TEST PERSON ONE", "maxLength": 7, "externalRef": "TESTNA0001"})
			checkPool(t, poolOf(t, env), svcapi.PoolData, "3478.73", "0.59", "3478.14")
			eq(t, "orderid = svcId", env.OrderID, data(t, env, "svcId"))
			dataEq(t, env, "abbreviations", `["T P ONE","TP ONE","TPO"]`)
		}},
	{op: svcapi.OpVerifyBankAccountBanks, fixture: "verifyBankAccountBanks.json",
		run: func(t *testing.T, ctx context.Context, c *svcapi.Client) {
			env := do(t, c, svcapi.OpVerifyBankAccountBanks, nil)
			dataEq(t, env, "0.impsEnabled", "1", "0.impsPennyLess", "0", "1.impsEnabled", "0", "1.upiEnabled", "true",
				"1.impsPennyLess", "1", "0.ifscGlobal", "TEST0000000", "2", "(absent)")
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
