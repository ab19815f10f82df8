package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

var end = time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)

// clock is a settable clock for live calls: the day after the history.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { c.t = c.t.Add(1500 * time.Millisecond); return c.t }

func start(tb testing.TB, o sandbox.Options) (*sandbox.Server, *svcapi.Client) {
	tb.Helper()
	if o.End.IsZero() {
		o.End = end
	}
	if o.Now == nil {
		c := &clock{t: time.Date(2026, 11, 21, 10, 0, 0, 0, recon.IST)}
		o.Now = c.now
	}
	srv, err := sandbox.Start(o)
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	tb.Cleanup(func() { srv.Close() })
	cfg := srv.Config()
	cfg.MaxRetries = -1
	cl, err := svcapi.New(cfg)
	if err != nil {
		tb.Fatalf("svcapi.New: %v", err)
	}
	return srv, cl
}

// bodies are valid requests for every operation (refs get a suffix).
func bodies(ref string) map[string]map[string]any {
	loc := func(m map[string]any) map[string]any {
		m["latitude"], m["longitude"] = "19.0760", "72.8777"
		if _, ok := m["externalRef"]; !ok {
			m["externalRef"] = ref
		}
		return m
	}
	return map[string]map[string]any{
		svcapi.OpCreditReport: loc(map[string]any{"name": "Asha Rao", "dob": "1990-04-01", "mobile": "9876543210",
			"inquiryPurposeCode": "05", "gender": "Female", "consent": "Y"}),
		svcapi.OpAddPaymentMethod: {"gcId": "GC1", "accountType": "VPA", "upiId": "asha@upi", "isVerificationOn": false},
		svcapi.OpCollectOrders: {"bankProfileId": "0", "accountNumber": sandbox.DefaultCredentials.Account, "externalRef": ref,
			"pagination": map[string]any{"pageNumber": "1", "recordsPerPage": "10"},
			"filters":    map[string]any{"txnDateFrom": "2026-11-01", "txnDateTo": "2026-11-20"}, "isOrder": true},
		svcapi.OpStatement: {"bankProfileId": "7", "accountNumber": sandbox.DefaultCredentials.Account, "externalRef": ref,
			"pagination": map[string]any{"pageNumber": "1", "recordsPerPage": "10"},
			"filters":    map[string]any{"txnDateFrom": "2026-11-01", "txnDateTo": "2026-11-20"}},
		svcapi.OpBillers:         {"pagination": map[string]any{"pageNumber": "1", "recordsPerPage": "20"}, "filters": map[string]any{"updatedAfterDate": "", "categoryKey": ""}},
		svcapi.OpBalanceInquiry:  loc(map[string]any{"bankiin": "607094", "mobile": "9876543210", "captureType": "FINGER", "biometricData": biometric()}),
		svcapi.OpVerifyPanPlusV2: loc(map[string]any{"pan": "ABCPR1234F", "consent": "Y"}),
		svcapi.OpInitiateUserRegistration: {"mobile": "9876543210", "email": "a@example.com", "pan": "ABCPR1234F", "pincode": "400001",
			"latitude": "19.0760", "longitude": "72.8777"},
		svcapi.OpAepsBanks:         nil,
		svcapi.OpLitigation:        loc(map[string]any{"name": "Asha Rao", "searchType": "Entity", "address": "Mumbai"}),
		svcapi.OpOkycQr:            loc(map[string]any{"consent": "Y", "mobile": "9876543210"}),
		svcapi.OpCorporateEmpCheck: loc(map[string]any{"customerPhoneNumber": "9876543210", "consent": "Y"}),
		svcapi.OpFundTransfer: loc(map[string]any{"remitterMobile": "9876543210", "beneficiaryId": "B1", "transferMode": "IMPS",
			"transferAmount": "1000.50"}),
		svcapi.OpCompanyLookup:    loc(map[string]any{"companyIdentityNumber": "AAB-1234", "consent": "Y"}),
		svcapi.OpMobileNameLookup: loc(map[string]any{"mobileNumber": "9876543210", "consent": "Y"}),
		svcapi.OpBrandOrder: loc(map[string]any{"productKey": "AMAZON", "denomination": 500, "sender": map[string]any{"name": "A"},
			"receiver": map[string]any{"name": "B", "contact": "9876543210", "gift_message": "hi"}}),
		svcapi.OpMobilePanLookup:        loc(map[string]any{"mobileNumber": "9876543210"}),
		svcapi.OpPanDin:                 loc(map[string]any{"pan": "ABCPR1234F"}),
		svcapi.OpNameAbbreviations:      {"name": "Asha Rao Kulkarni", "maxLength": 10, "externalRef": ref},
		svcapi.OpVerifyBankAccountBanks: nil,
		svcapi.OpTxnStatus:              {"transactionDate": "2026-11-21", "externalRef": "NEVERSEEN1"},
	}
}

func biometric() map[string]any {
	m := map[string]any{}
	for _, k := range []string{"encryptedAadhaar", "dc", "ci", "hmac", "dpId", "mc", "pidDataType", "sessionKey", "mi", "rdsId",
		"fType", "iCount", "pType", "srno", "pidData", "qScore", "nmPoints", "rdsVer"} {
		m[k] = "v-" + k
	}
	return m
}

// TestEveryOperation calls every operation of the registry through the real
// client and decodes its answer.
func TestEveryOperation(t *testing.T) {
	srv, cl := start(t, sandbox.Options{})
	ctx := context.Background()
	reqs := bodies("LIVE0001")
	i := 0
	type debit struct {
		ref             string
		amount, closing decimal.Decimal
	}
	debits := map[string]debit{} // orderid -> the call's pool debit
	for _, op := range svcapi.Operations() {
		body, ok := reqs[op.Name]
		if !ok {
			t.Fatalf("no test body for %s", op.Name)
		}
		if r, ok := body["externalRef"].(string); ok && op.Billable {
			i++
			body["externalRef"] = fmt.Sprintf("%s%02d", r, i)
		}
		var arg any = body
		if body == nil {
			arg = nil
		}
		env, err := cl.Do(ctx, op.Name, arg)
		if err != nil {
			t.Errorf("%s: %v", op.Name, err)
			continue
		}
		if env.Environment != "SANDBOX" || env.Timestamp == "" || env.SvcUUID == "" {
			t.Errorf("%s: envelope %+v lacks environment/timestamp/svc_uuid", op.Name, env)
		}
		if op.Pool != svcapi.PoolNone {
			p, err := svcapi.ExtractPool(env)
			if err != nil {
				t.Errorf("%s: ExtractPool: %v", op.Name, err)
				continue
			}
			if !p.Delta().IsZero() || p.Amount.Sign() <= 0 {
				t.Errorf("%s: pool %+v does not add up", op.Name, p)
			}
			if p.Shape != op.Pool {
				t.Errorf("%s: pool shape %s, want %s", op.Name, p.Shape, op.Pool)
			}
			if env.OrderID == "" {
				t.Errorf("%s: no orderid", op.Name)
			}
			debits[string(env.OrderID)] = debit{body["externalRef"].(string), p.Amount, p.Closing}
			if want, ok := charges[op.Name]; ok && !p.Amount.Equal(decimal.RequireFromString(want)) {
				t.Errorf("%s: charged %s, want %s", op.Name, p.Amount, want)
			}
		}
		checkShape(t, op.Name, env)
	}
	// Every billable call shows in today's statement with the same amount.
	page, err := cl.Statement(ctx, svcapi.StatementRequest{BankProfileID: "7", AccountNumber: srv.Credentials().Account,
		ExternalRef: "S1", Pagination: svcapi.Pagination{PageNumber: "1", RecordsPerPage: "100"},
		Filters: svcapi.StatementFilters{TxnDateFrom: "2026-11-21", TxnDateTo: "2026-11-21"}})
	if err != nil {
		t.Fatalf("statement: %v", err)
	}
	for _, r := range page.Records {
		if d, ok := debits[string(r.SvcOrderID)]; ok {
			if !d.amount.Equal(r.TxnChargedValue.Decimal) || r.TxnMode != "DR" || string(r.ClientOrderID) != d.ref ||
				!r.ClosingBalance.Valid || !d.closing.Equal(r.ClosingBalance.Decimal) {
				t.Errorf("record %s: %s %s %s closing %s; the call %s debited %s, closing %s",
					r.SvcOrderID, r.ClientOrderID, r.TxnMode, r.TxnChargedValue.Decimal, r.ClosingBalance.Decimal, d.ref, d.amount, d.closing)
			}
			delete(debits, string(r.SvcOrderID))
		}
	}
	if len(debits) != 0 || i != 13 {
		t.Errorf("pool debits missing from the statement: %v (%d billable calls)", debits, i)
	}
}

// charges are the sandbox's price list (README).
var charges = map[string]string{
	svcapi.OpVerifyPanPlusV2: "1.50", svcapi.OpLitigation: "25.00", svcapi.OpCreditReport: "35.40",
	svcapi.OpFundTransfer: "1006.40", svcapi.OpBrandOrder: "500", svcapi.OpNameAbbreviations: "0.59",
	svcapi.OpCorporateEmpCheck: "5.90", svcapi.OpBalanceInquiry: "1.18",
}

// checkShape decodes the data of an operation into the fields the spec
// names, so a renamed or missing field fails.
func checkShape(t *testing.T, op string, env *svcapi.Envelope) {
	t.Helper()
	var data any
	if err := json.Unmarshal(env.Data, &data); err != nil {
		t.Errorf("%s: data: %v", op, err)
		return
	}
	want := map[string][]string{
		svcapi.OpCreditReport:             {"externalRef", "poolReferenceId", "txnReferenceId", "pool", "creditReport.personalInfo.Name.FullName", "creditReport.retailAccountDetails"},
		svcapi.OpAddPaymentMethod:         {"gcId", "accountType", "isPrimary", "isVerified", "accountNumber", "created_at", "updated_at", "_id"},
		svcapi.OpBalanceInquiry:           {"externalRef", "bankName", "svcId", "payableValue", "transactionValue", "openingBalance", "closingBalance", "miniStatement"},
		svcapi.OpVerifyPanPlusV2:          {"panPlusDataV2.panNumber", "panPlusDataV2.userAddress.full", "pool.openingBal"},
		svcapi.OpInitiateUserRegistration: {"otpReference", "recipient.mobile"},
		svcapi.OpLitigation:               {"litigationDetails", "pool.closingBal"},
		svcapi.OpOkycQr:                   {"qrStatus", "qrExpiryDt", "qrString"},
		svcapi.OpCorporateEmpCheck:        {"employeData.personalDetails.userFullName", "employeData.employmentDetails.uanList", "pool.referenceId", "pool.paymentAmount"},
		svcapi.OpFundTransfer:             {"txnValue", "remitterMobile", "beneficiaryAccount", "beneficiaryIfsc", "pool.amount"},
		svcapi.OpCompanyLookup:            {"companyData.fllpStatus", "companyData.directors", "pool.openingBal"},
		svcapi.OpMobileNameLookup:         {"mobileLinkedName", "pool.mode"},
		svcapi.OpBrandOrder:               {"txnValue", "sender.name", "receiver.cardNumber", "receiver.cardExpiry"},
		svcapi.OpMobilePanLookup:          {"panData.pan", "panData.name"},
		svcapi.OpPanDin:                   {"panDinData.din"},
		svcapi.OpNameAbbreviations:        {"svcId", "abbreviations", "payableValue"},
		svcapi.OpStatement:                {"meta.totalPages", "records"},
		svcapi.OpCollectOrders:            {"meta.totalRecords", "records"},
		svcapi.OpBillers:                  {"meta.totalRecords", "records"},
		svcapi.OpTxnStatus:                {"transactionStatusCode", "externalRef"},
	}[op]
	m, _ := data.(map[string]any)
	for _, path := range want {
		if _, ok := svcapi.GetPath(m, path); !ok {
			t.Errorf("%s: data has no %s", op, path)
		}
	}
	// The bank lists are arrays of banks, each with its code.
	if key := map[string]string{svcapi.OpAepsBanks: "iin", svcapi.OpVerifyBankAccountBanks: "ifscGlobal"}[op]; key != "" {
		var banks []map[string]any
		if err := json.Unmarshal(env.Data, &banks); err != nil || len(banks) == 0 || banks[0][key] == "" || banks[0][key] == nil {
			t.Errorf("%s: %v, %d banks, first %v", op, err, len(banks), banks)
		}
	}
}

func TestFailureCodes(t *testing.T) {
	srv, cl := start(t, sandbox.Options{})
	ctx := context.Background()
	pan := func(ref string) map[string]any {
		return map[string]any{"pan": "ABCPR1234F", "consent": "Y", "latitude": "1", "longitude": "2", "externalRef": ref}
	}
	code := func(err error) string {
		var e *svcapi.Error
		if errors.As(err, &e) {
			return e.StatusCode
		}
		return fmt.Sprintf("no *svcapi.Error: %v", err)
	}
	// Wrong credentials.
	for _, tc := range []struct {
		name string
		edit func(*svcapi.Config)
		op   string
		want string
	}{
		{"secret", func(c *svcapi.Config) { c.ClientSecret = "wrong" }, svcapi.OpVerifyPanPlusV2, "UAD"},
		{"client id", func(c *svcapi.Config) { c.ClientID = "other" }, svcapi.OpVerifyPanPlusV2, "UAD"},
		{"outlet", func(c *svcapi.Config) { c.OutletID = "OUTLET999" }, svcapi.OpAepsBanks, "OUI"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := srv.Config()
			cfg.MaxRetries = -1
			tc.edit(&cfg)
			c2, err := svcapi.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var body any
			if tc.op == svcapi.OpVerifyPanPlusV2 {
				body = pan("CRED" + tc.want)
			}
			_, err = c2.Do(ctx, tc.op, body)
			if got := code(err); got != tc.want {
				t.Errorf("Do = %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("auth code", func(t *testing.T) {
		env := rawCall(t, srv, "/fi/aeps/banks", "GET", nil, map[string]string{svcapi.HeaderAuthCode: "2"})
		if env.StatusCode != "IAC" {
			t.Errorf("statuscode %s, want IAC", env.StatusCode)
		}
		env = rawCall(t, srv, "/fi/aeps/banks", "GET", nil, map[string]string{svcapi.HeaderEndpointIP: ""})
		if env.StatusCode != "IAN" {
			t.Errorf("statuscode %s, want IAN", env.StatusCode)
		}
		env = rawCall(t, srv, "/fi/aeps/banks", "GET", nil, map[string]string{svcapi.HeaderOutletID: ""})
		if env.StatusCode != "OUI" {
			t.Errorf("no outlet id on an H5 operation: statuscode %s, want OUI", env.StatusCode)
		}
		env = rawCall(t, srv, "/identity/verifyBankAccount/banks", "GET", nil, map[string]string{svcapi.HeaderOutletID: ""})
		if env.StatusCode != "TXN" {
			t.Errorf("no outlet id on an H4 operation: statuscode %s, want TXN", env.StatusCode)
		}
	})
	t.Run("conditional field", func(t *testing.T) {
		raw, _ := json.Marshal(map[string]any{"name": "A Rao", "searchType": "Individual", "address": "Pune",
			"latitude": "1", "longitude": "2", "externalRef": "COND1"})
		env := rawCall(t, srv, "/identity/litigation", "POST", raw, nil)
		if env.StatusCode != "RPI" || !strings.Contains(string(env.Status), "fatherName") {
			t.Errorf("envelope %s %q, want RPI naming fatherName", env.StatusCode, env.Status)
		}
	})
	t.Run("missing field", func(t *testing.T) {
		body := pan("MISS1")
		delete(body, "pan")
		raw, _ := json.Marshal(body)
		env := rawCall(t, srv, "/identity/verifyPanPlusV2", "POST", raw, nil)
		if env.StatusCode != "RPI" || !strings.Contains(string(env.Status), "pan") {
			t.Errorf("envelope %s %q, want RPI naming pan", env.StatusCode, env.Status)
		}
		if env.OrderID != "" || env.Environment != "SANDBOX" {
			t.Errorf("failure envelope %+v: want orderid null, environment SANDBOX", env)
		}
	})
	t.Run("duplicate ref", func(t *testing.T) {
		before := srv.Balance()
		if _, err := cl.Do(ctx, svcapi.OpVerifyPanPlusV2, pan("DUP1")); err != nil {
			t.Fatal(err)
		}
		_, err := cl.Do(ctx, svcapi.OpVerifyPanPlusV2, pan("DUP1"))
		if got := code(err); got != "DTX" {
			t.Errorf("second call = %s, want DTX", got)
		}
		if got := before.Sub(srv.Balance()); !got.Equal(decimal.RequireFromString("1.50")) {
			t.Errorf("debited %s for two calls with one ref, want 1.50", got)
		}
		if n := srv.CallCount("DUP1"); n != 2 {
			t.Errorf("CallCount = %d, want 2", n)
		}
		// A ref of the generated history is taken too.
		ref := srv.Planted()[0].ExternalRef
		if _, err := cl.Do(ctx, svcapi.OpVerifyPanPlusV2, pan(ref)); code(err) != "DTX" {
			t.Errorf("history ref %s: %v, want DTX", ref, err)
		}
	})
	t.Run("short balance", func(t *testing.T) {
		poor, cl := start(t, sandbox.Options{OpeningBalance: decimal.RequireFromString("0.01"), Days: 1, NoDefects: true, CallsPerDay: 1})
		before := poor.Balance()
		_, err := cl.Do(ctx, svcapi.OpVerifyPanPlusV2, pan("POOR1"))
		if got := code(err); got != "IAB" {
			t.Errorf("Do = %s, want IAB", got)
		}
		if !poor.Balance().Equal(before) {
			t.Errorf("balance %s after IAB, want %s unchanged", poor.Balance(), before)
		}
		st, err := cl.TxnStatus(ctx, time.Date(2026, 11, 21, 0, 0, 0, 0, recon.IST), "POOR1")
		if err != nil || st.TransactionStatusCode == svcapi.StatusSuccess {
			t.Errorf("txnStatus after IAB = %+v, %v; want a failure", st, err)
		}
	})
}

func TestBillerFilters(t *testing.T) {
	srv, cl := start(t, sandbox.Options{})
	ctx := context.Background()
	all := func(f svcapi.BillerFilters, per int) []svcapi.Biller {
		t.Helper()
		var out []svcapi.Biller
		for page := 1; ; page++ {
			p, err := cl.Billers(ctx, svcapi.BillersRequest{Pagination: svcapi.Pagination{PageNumber: itoa(page), RecordsPerPage: itoa(per)}, Filters: f})
			if err != nil {
				t.Fatal(err)
			}
			if int(p.Meta.RecordsOnCurrentPage) != len(p.Records) {
				t.Fatalf("page %d: recordsOnCurrentPage %d, %d records", page, p.Meta.RecordsOnCurrentPage, len(p.Records))
			}
			out = append(out, p.Records...)
			if int(p.Meta.CurrentPage) >= int(p.Meta.TotalPages) {
				return out
			}
		}
	}
	every := all(svcapi.BillerFilters{}, 70)
	if len(every) != srv.Counts().Billers {
		t.Fatalf("%d billers, Counts says %d", len(every), srv.Counts().Billers)
	}
	cats := map[string]int{}
	after := "2026-09-01"
	newer := 0
	for _, b := range every {
		cats[string(b.CategoryKey)]++
		if string(b.UpdatedDate) > after {
			newer++
		}
	}
	if len(cats) < 8 {
		t.Errorf("billers in %d categories, want a spread", len(cats))
	}
	if got := all(svcapi.BillerFilters{UpdatedAfterDate: after}, 1000); len(got) != newer || newer == 0 {
		t.Errorf("updatedAfterDate %s: %d billers, want %d", after, len(got), newer)
	}
	// Strictly after: the day of the newest biller excludes it.
	if got := all(svcapi.BillerFilters{UpdatedAfterDate: "2026-11-20"}, 1000); len(got) != 0 {
		t.Errorf("updatedAfterDate = the last day gave %d billers, want 0", len(got))
	}
	for k, n := range cats {
		got := all(svcapi.BillerFilters{CategoryKey: k}, 1000)
		if len(got) != n {
			t.Errorf("categoryKey %s: %d billers, want %d", k, len(got), n)
		}
		break
	}
	// Unknown account and a too-large page.
	_, err := cl.Statement(ctx, svcapi.StatementRequest{BankProfileID: "7", AccountNumber: "999", ExternalRef: "X",
		Pagination: svcapi.Pagination{PageNumber: "1", RecordsPerPage: "10"}, Filters: svcapi.StatementFilters{TxnDateFrom: "2026-11-01", TxnDateTo: "2026-11-02"}})
	var e *svcapi.Error
	if !errors.As(err, &e) || e.StatusCode != "ERR" {
		t.Errorf("statement of an unlinked account: %v, want ERR", err)
	}
	p, err := cl.Statement(ctx, svcapi.StatementRequest{BankProfileID: "7", AccountNumber: srv.Credentials().Account, ExternalRef: "X",
		Pagination: svcapi.Pagination{PageNumber: "1", RecordsPerPage: "5000"}, Filters: svcapi.StatementFilters{TxnDateFrom: "2026-10-01", TxnDateTo: "2026-11-30"}})
	if err != nil || len(p.Records) != 1000 || int(p.Meta.RecordTo) != 1000 || int(p.Meta.TotalPages) != (srv.Counts().Statement+1+999)/1000 {
		t.Errorf("recordsPerPage 5000: %v, %d records, meta %+v", err, len(p.Records), p.Meta)
	}
}

// TestConcurrentDuplicateRef: one externalRef sent ten times at once is
// executed once; the other nine answer DTX and debit nothing.
func TestConcurrentDuplicateRef(t *testing.T) {
	srv, cl := start(t, sandbox.Options{Days: 2, NoDefects: true})
	before := srv.Balance()
	codes := make(chan string, 10)
	for range 10 {
		go func() {
			_, err := cl.Do(context.Background(), svcapi.OpVerifyPanPlusV2,
				map[string]any{"pan": "ABCPR1234F", "consent": "Y", "latitude": "1", "longitude": "2", "externalRef": "RACE1"})
			var e *svcapi.Error
			switch {
			case err == nil:
				codes <- svcapi.StatusSuccess
			case errors.As(err, &e):
				codes <- e.StatusCode
			default:
				codes <- err.Error()
			}
		}()
	}
	got := map[string]int{}
	for range 10 {
		got[<-codes]++
	}
	if got[svcapi.StatusSuccess] != 1 || got["DTX"] != 9 {
		t.Errorf("answers %v, want 1 TXN and 9 DTX", got)
	}
	if d := before.Sub(srv.Balance()); !d.Equal(decimal.RequireFromString("1.50")) {
		t.Errorf("debited %s, want 1.50 once", d)
	}
}
