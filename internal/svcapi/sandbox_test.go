package svcapi_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func startSandbox(tb testing.TB, opts sandbox.Options) (*sandbox.Server, *svcapi.Client) {
	tb.Helper()
	srv, err := sandbox.Start(opts)
	if err != nil {
		tb.Fatalf("sandbox: %v", err)
	}
	tb.Cleanup(func() { srv.Close() })
	cfg := srv.Config()
	cfg.RetryBase, cfg.RetryMax = time.Millisecond, 4*time.Millisecond
	return srv, newClient(tb, cfg)
}

// TestSandboxEveryOperation calls every operation of the registry through
// the client against the sandbox: each succeeds, and each debit is the
// sandbox's documented charge.
func TestSandboxEveryOperation(t *testing.T) {
	srv, c := startSandbox(t, sandbox.Options{Days: 2, NoDefects: true, Billers: 20})
	ctx := context.Background()
	from, _ := srv.Period()

	check := func(name string, env *svcapi.Envelope, p *svcapi.Pool, err error, charge string) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if !env.OK() {
			t.Errorf("%s: statuscode %s", name, env.StatusCode)
		}
		if charge == "" {
			return
		}
		if p == nil {
			t.Errorf("%s: no pool", name)
			return
		}
		if !p.Amount.Equal(decimal.RequireFromString(charge)) || !p.Delta().IsZero() {
			t.Errorf("%s: pool %s - %s = %s, want a debit of %s that adds up", name, p.Opening, p.Amount, p.Closing, charge)
		}
	}
	dataPool := func(p svcapi.Pool, err error) *svcapi.Pool {
		if err != nil {
			t.Error(err)
			return nil
		}
		return &p
	}

	env, pan, err := c.VerifyPanPlusV2(ctx, svcapi.VerifyPanPlusV2Request{PAN: "AAAPZ0000Z", Location: loc, ExternalRef: "SBXPAN01", Consent: "Y"})
	check("verifyPanPlusV2", env, poolOf(pan), err, "1.5")
	env, mn, err := c.MobileNameLookup(ctx, svcapi.MobileNameLookupRequest{MobileNumber: "9000000001", Location: loc, ExternalRef: "SBXMN01", Consent: "Y"})
	check("mobileNameLookup", env, poolOf(mn), err, "2.36")
	env, mp, err := c.MobilePanLookup(ctx, svcapi.MobilePanLookupRequest{MobileNumber: "9000000001", ExternalRef: "SBXMP01", Location: loc})
	check("mobilePanLookup", env, poolOf(mp), err, "3.54")
	env, din, err := c.PanDin(ctx, svcapi.PanDinRequest{PAN: "AAAPZ0000Z", Location: loc, ExternalRef: "SBXDIN01"})
	check("panDin", env, poolOf(din), err, "2.95")
	env, na, err := c.NameAbbreviations(ctx, svcapi.NameAbbreviationsRequest{Name: "TEST PERSON ONE", MaxLength: 8, ExternalRef: "SBXNA01"})
	if err == nil {
		check("nameAbbreviations", env, dataPool(na.Pool()), err, "0.59")
	} else {
		check("nameAbbreviations", env, nil, err, "")
	}
	env, lit, err := c.Litigation(ctx, svcapi.LitigationRequest{Name: "TEST", FatherName: "TEST FATHER", SearchType: svcapi.SearchIndividual,
		Address: "1 TEST STREET", Location: loc, ExternalRef: "SBXLIT01"})
	check("litigation", env, poolOf(lit), err, "25")
	env, cr, err := c.CreditReport(ctx, svcapi.CreditReportRequest{Name: "TEST", DOB: "1990-01-01", Mobile: "9000000001",
		InquiryPurposeCode: "05", Gender: "Male", Location: loc, Consent: "Y", ExternalRef: "SBXCR01"})
	check("creditReport", env, poolOf(cr), err, "35.4")
	env, co, err := c.CompanyLookup(ctx, svcapi.CompanyLookupRequest{CompanyIdentityNumber: "FTEST-0001", Location: loc, ExternalRef: "SBXCO01", Consent: "Y"})
	check("companyLookup", env, poolOf(co), err, "11.8")
	env, emp, err := c.CorporateEmpCheck(ctx, svcapi.CorporateEmpCheckRequest{CustomerPhoneNumber: "9000000001", Location: loc, ExternalRef: "SBXEMP01", Consent: "Y"})
	check("corporateEmpCheck", env, poolOf(emp), err, "5.9")
	if err == nil && (emp.Pool == nil || emp.Pool.Shape != svcapi.PoolB) {
		t.Errorf("corporateEmpCheck pool = %+v, want shape B", emp.Pool)
	}
	env, bi, err := c.BalanceInquiry(ctx, balanceRequest())
	if err == nil {
		check("balanceInquiry", env, dataPool(bi.Pool()), err, "1.18")
	} else {
		check("balanceInquiry", env, nil, err, "")
	}
	env, ft, err := c.FundTransfer(ctx, svcapi.FundTransferRequest{RemitterMobile: "9000000001", BeneficiaryID: "BEN01",
		TransferMode: svcapi.TransferNEFT, TransferAmount: decimal.RequireFromString("100.25"), Location: loc, ExternalRef: "SBXFT01"})
	check("fundTransfer", env, poolOf(ft), err, "103.2")
	env, bo, err := c.BrandOrder(ctx, svcapi.BrandOrderRequest{ExternalRef: "SBXBO01", ProductKey: "PK", Denomination: 250,
		Sender: svcapi.BrandSender{Name: "S"}, Receiver: svcapi.BrandReceiver{Name: "R", Contact: "r@example.invalid", GiftMessage: "hi"},
		Location: loc})
	check("brandOrder", env, poolOf(bo), err, "250")
	env, _, err = c.AddPaymentMethod(ctx, svcapi.AddPaymentMethodRequest{GcID: "GC1", AccountType: svcapi.AccountTypeVPA, UpiID: "t@x"})
	check("addPaymentMethod", env, nil, err, "")
	env, _, err = c.InitiateUserRegistration(ctx, svcapi.InitiateUserRegistrationRequest{Mobile: "9000000001", Email: "t@example.invalid",
		PAN: "AAAPZ0000Z", Pincode: "560000", Location: loc})
	check("initiateUserRegistration", env, nil, err, "")
	env, _, err = c.OkycQr(ctx, svcapi.OkycQrRequest{Location: loc, Consent: "Y", ExternalRef: "SBXQR01"})
	check("okycQr", env, nil, err, "")

	if _, err := c.AepsBanks(ctx); err != nil {
		t.Errorf("aepsBanks: %v", err)
	}
	if _, err := c.VerifyBankAccountBanks(ctx); err != nil {
		t.Errorf("verifyBankAccountBanks: %v", err)
	}
	if _, err := c.Billers(ctx, svcapi.BillersRequest{Pagination: svcapi.Pagination{PageNumber: "1", RecordsPerPage: "5"}}); err != nil {
		t.Errorf("billers: %v", err)
	}
	day := from.Format(time.DateOnly)
	for _, isOrder := range []bool{false, true} {
		req := statementRequest(isOrder)
		req.AccountNumber = srv.Credentials().Account
		req.Filters = svcapi.StatementFilters{TxnDateFrom: day, TxnDateTo: day}
		if p, err := c.Statement(ctx, req); err != nil || len(p.Records) == 0 {
			t.Errorf("statement (isOrder %v): %v, %v", isOrder, p, err)
		}
	}

	// The look-up finds a live call; a repeat of the same externalRef is
	// refused and debits nothing.
	st, err := c.TxnStatus(ctx, time.Now(), "SBXPAN01")
	if err != nil || st.TransactionStatusCode != svcapi.StatusSuccess || st.Pool == nil || st.Pool.Amount.String() != "1.5" {
		t.Errorf("TxnStatus(SBXPAN01) = %+v, %v", st, err)
	}
	_, _, err = c.VerifyPanPlusV2(ctx, svcapi.VerifyPanPlusV2Request{PAN: "AAAPZ0000Z", Location: loc, ExternalRef: "SBXPAN01", Consent: "Y"})
	var apiErr *svcapi.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != "DTX" {
		t.Errorf("repeat = %v, want *Error DTX", err)
	}
	if n := srv.CallCount("SBXPAN01"); n != 2 {
		t.Errorf("CallCount = %d, want 2", n)
	}
}

// TestSandboxPending: a billable call answered TUP is pending, sent once,
// and its outcome is found with TxnStatus.
func TestSandboxPending(t *testing.T) {
	srv, c := startSandbox(t, sandbox.Options{Days: 2, NoDefects: true, Billers: 5})
	srv.SetFaults(sandbox.Faults{Pending: 1})
	_, _, err := c.PanDin(context.Background(), svcapi.PanDinRequest{PAN: "AAAPZ0000Z", Location: loc, ExternalRef: "SBXTUP01"})
	if !errors.Is(err, svcapi.ErrPending) {
		t.Fatalf("PanDin = %v, want ErrPending", err)
	}
	if n := srv.CallCount("SBXTUP01"); n != 1 {
		t.Errorf("CallCount = %d, want 1", n)
	}
	srv.SetFaults(sandbox.Faults{})
	st, err := c.TxnStatus(context.Background(), time.Now(), "SBXTUP01")
	// The sandbox's Pending fault executes the call and answers TUP.
	if err != nil || st.TransactionStatusCode != svcapi.StatusSuccess || st.Pool == nil || st.Pool.Amount.String() != "2.95" {
		t.Errorf("TxnStatus of the pending call = %+v, %v; want TXN with a debit of 2.95", st, err)
	}
}

// poolOf returns the pool of a shape A or B payload, or nil.
func poolOf[D any](d *D) *svcapi.Pool {
	if x, ok := any(d).(interface{ PoolObject() *svcapi.Pool }); ok && d != nil {
		return x.PoolObject()
	}
	return nil
}
