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

	// Each billable operation, with its request and the sandbox's charge.
	for _, tc := range []struct {
		op     string
		body   map[string]any
		charge string // "" for an operation that debits nothing
		shape  svcapi.PoolShape
	}{
		{svcapi.OpVerifyPanPlusV2, withLoc(map[string]any{"pan": "AAAPZ0000Z", "externalRef": "SBXPAN01", "consent": "Y"}), "1.5", svcapi.PoolA},
		{svcapi.OpMobileNameLookup, withLoc(map[string]any{"mobileNumber": "9000000001", "externalRef": "SBXMN01", "consent": "Y"}), "2.36", svcapi.PoolA},
		{svcapi.OpMobilePanLookup, withLoc(map[string]any{"mobileNumber": "9000000001", "externalRef": "SBXMP01"}), "3.54", svcapi.PoolA},
		{svcapi.OpPanDin, withLoc(map[string]any{"pan": "AAAPZ0000Z", "externalRef": "SBXDIN01"}), "2.95", svcapi.PoolA},
		{svcapi.OpNameAbbreviations, map[string]any{"name": "TEST PERSON ONE", "maxLength": 8, "externalRef": "SBXNA01"}, "0.59", svcapi.PoolData},
		{svcapi.OpLitigation, withLoc(map[string]any{"name": "TEST", "fatherName": "TEST FATHER", "searchType": "Individual",
			"address": "1 TEST STREET", "externalRef": "SBXLIT01"}), "25", svcapi.PoolA},
		{svcapi.OpCreditReport, withLoc(map[string]any{"name": "TEST", "dob": "1990-01-01", "mobile": "9000000001",
			"inquiryPurposeCode": "05", "gender": "Male", "consent": "Y", "externalRef": "SBXCR01"}), "35.4", svcapi.PoolA},
		{svcapi.OpCompanyLookup, withLoc(map[string]any{"companyIdentityNumber": "FTEST-0001", "externalRef": "SBXCO01", "consent": "Y"}), "11.8", svcapi.PoolA},
		{svcapi.OpCorporateEmpCheck, withLoc(map[string]any{"customerPhoneNumber": "9000000001", "externalRef": "SBXEMP01", "consent": "Y"}), "5.9", svcapi.PoolB},
		{svcapi.OpBalanceInquiry, balanceRequest(), "1.18", svcapi.PoolData},
		{svcapi.OpFundTransfer, withLoc(map[string]any{"remitterMobile": "9000000001", "beneficiaryId": "BEN01",
			"transferMode": "NEFT", "transferAmount": "100.25", "externalRef": "SBXFT01"}), "103.2", svcapi.PoolA},
		{svcapi.OpBrandOrder, brandOrderRequest("SBXBO01", "S", 250), "250", svcapi.PoolA},
		{svcapi.OpAddPaymentMethod, map[string]any{"gcId": "GC1", "accountType": "VPA", "upiId": "t@x"}, "", ""},
		{svcapi.OpInitiateUserRegistration, withLoc(map[string]any{"mobile": "9000000001", "email": "t@example.invalid",
			"pan": "AAAPZ0000Z", "pincode": "560000"}), "", ""},
		{svcapi.OpOkycQr, withLoc(map[string]any{"consent": "Y", "externalRef": "SBXQR01"}), "", ""},
		{svcapi.OpAepsBanks, nil, "", ""},
		{svcapi.OpVerifyBankAccountBanks, nil, "", ""},
	} {
		var body any
		if tc.body != nil {
			body = tc.body
		}
		env, err := c.Do(ctx, tc.op, body)
		if err != nil {
			t.Errorf("%s: %v", tc.op, err)
			continue
		}
		if !env.OK() {
			t.Errorf("%s: statuscode %s", tc.op, env.StatusCode)
		}
		p, err := svcapi.ExtractPool(env)
		switch {
		case tc.charge == "" && !errors.Is(err, svcapi.ErrNoPool):
			t.Errorf("%s: pool %+v, %v; want none", tc.op, p, err)
		case tc.charge == "":
		case err != nil:
			t.Errorf("%s: pool: %v", tc.op, err)
		case !p.Amount.Equal(decimal.RequireFromString(tc.charge)) || !p.Delta().IsZero() || p.Shape != tc.shape:
			t.Errorf("%s: pool %s %s - %s = %s, want a %s debit of %s that adds up", tc.op, p.Shape, p.Opening, p.Amount, p.Closing,
				tc.shape, tc.charge)
		}
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
	_, err = c.Do(ctx, svcapi.OpVerifyPanPlusV2, withLoc(map[string]any{"pan": "AAAPZ0000Z", "externalRef": "SBXPAN01", "consent": "Y"}))
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
	_, err := c.Do(context.Background(), svcapi.OpPanDin, withLoc(map[string]any{"pan": "AAAPZ0000Z", "externalRef": "SBXTUP01"}))
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
