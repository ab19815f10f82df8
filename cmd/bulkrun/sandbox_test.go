package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// sandboxService runs the sandbox for a test.
type sandboxService struct{ *sandbox.Server }

func startSandbox(t *testing.T, f sandbox.Faults) sandboxService {
	t.Helper()
	srv, err := sandbox.Start(sandbox.Options{Seed: 7, Days: 2, NoDefects: true, Faults: f})
	if errors.Is(err, sandbox.ErrNotImplemented) {
		t.Skip("sandbox not implemented yet")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return sandboxService{srv}
}

func (s sandboxService) Environ() []string {
	c := s.Config()
	return []string{"SVC_BASE_URL=" + c.BaseURL, "SVC_CLIENT_ID=" + c.ClientID, "SVC_CLIENT_SECRET=" + c.ClientSecret,
		"SVC_OUTLET_ID=" + c.OutletID, "SVC_ENDPOINT_IP=" + c.EndpointIP}
}

// verifyPanCharge is the sandbox's charge for verifyPanPlusV2.
const verifyPanCharge = "1.50"

// TestSandboxKilledRunsCallEveryRowExactlyOnce is the kill test against the
// sandbox without dropped connections, 5xx pages or latency (the sandbox
// does not execute a request whose client went away during its latency:
// that is a dropped request too); --rate keeps the run slow enough to be
// killed. Every row ends success, reached the sandbox exactly once and was
// debited once.
func TestSandboxKilledRunsCallEveryRowExactlyOnce(t *testing.T) {
	svc := startSandbox(t, sandbox.Faults{Pending: 0.03})
	rows, _ := killAndResume(t, svc, 600, "--rate", "300")
	for i, r := range rows {
		if n := svc.CallCount(r["externalRef"]); n != 1 {
			t.Errorf("row %d (%s): CallCount = %d, want 1", i, r["externalRef"], n)
		}
	}
	checkSandboxSuccess(t, svc, rows)
}

// TestSandboxKilledRunsWithDropsDebitEveryRowOnce is the kill test against
// the sandbox with dropped connections (executed or not), TUP answers and
// 5xx pages. A request dropped before the sandbox executed it is found not
// executed by recheck and the row is sent again: every row ends success, a
// row reached the sandbox more than once only if recheck proved an earlier
// request unexecuted (checked by killAndResume), and the statement holds
// exactly one debit per row.
func TestSandboxKilledRunsWithDropsDebitEveryRowOnce(t *testing.T) {
	svc := startSandbox(t, sandbox.Faults{Latency: 10 * time.Millisecond, Drop: 0.03, Pending: 0.03, ServerError: 0.01})
	rows, journal := killAndResume(t, svc, 600)
	twice := 0
	for _, r := range rows {
		if svc.CallCount(r["externalRef"]) > 1 {
			twice++
			if journal[r["externalRef"]].Attempts < 2 {
				t.Errorf("row %s reached the sandbox more than once without a proven unexecuted request", r["externalRef"])
			}
		}
	}
	t.Logf("%d rows reached the sandbox more than once", twice)
	checkSandboxSuccess(t, svc, rows)
}

// checkSandboxSuccess checks that every row ended success with the
// sandbox's charge and that today's statement holds exactly one DR record
// per row's externalRef, of that charge.
func checkSandboxSuccess(t *testing.T, svc sandboxService, rows []map[string]string) {
	t.Helper()
	for i, r := range rows {
		if r["outcome"] != bulk.StateSuccess || r["poolAmount"] != verifyPanCharge || r["orderid"] == "" {
			t.Errorf("row %d (%s): %s with pool %q orderid %q, want success %s", i, r["externalRef"], r["outcome"], r["poolAmount"], r["orderid"], verifyPanCharge)
		}
	}
	debits := sandboxDebits(t, svc)
	for i, r := range rows {
		ref := r["externalRef"]
		if d := debits[ref]; len(d) != 1 || d[0] != verifyPanCharge {
			t.Errorf("row %d (%s): statement DR records %v, want exactly one of %s", i, ref, d, verifyPanCharge)
		}
	}
}

// sandboxDebits reads every statement page of today (IST; yesterday too,
// in case the test ran over midnight) with faults off and returns the DR
// amounts per clientOrderId.
func sandboxDebits(t *testing.T, svc sandboxService) map[string][]string {
	t.Helper()
	svc.SetFaults(sandbox.Faults{})
	cl, err := svcapi.New(svc.Config())
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().In(recon.IST)
	out := map[string][]string{}
	seen := 0
	for page := 1; ; page++ {
		p, err := cl.Statement(context.Background(), svcapi.StatementRequest{BankProfileID: "7",
			AccountNumber: sandbox.DefaultCredentials.Account, ExternalRef: "STMT" + strconv.Itoa(page),
			Pagination: svcapi.Pagination{PageNumber: strconv.Itoa(page), RecordsPerPage: "1000"},
			Filters: svcapi.StatementFilters{TxnDateFrom: today.AddDate(0, 0, -1).Format(time.DateOnly),
				TxnDateTo: today.Format(time.DateOnly)}})
		if err != nil {
			t.Fatalf("statement page %d: %v", page, err)
		}
		for _, r := range p.Records {
			if r.TxnMode == "DR" {
				out[string(r.ClientOrderID)] = append(out[string(r.ClientOrderID)], r.TxnChargedValue.Decimal.StringFixed(2))
			}
		}
		seen += len(p.Records)
		if int(p.Meta.CurrentPage) >= int(p.Meta.TotalPages) {
			if int(p.Meta.TotalRecords) != seen {
				t.Fatalf("statement: %d records read, meta.totalRecords %d", seen, p.Meta.TotalRecords)
			}
			return out
		}
	}
}

// TestSandboxDropsAndTUPEndPendingAndRecheckResolves runs a file against the
// sandbox with dropped connections and TUP answers: those rows end pending
// (exit 3), every row reached the service exactly once, and recheck resolves
// every pending row: success when the sandbox executed it, unsent again
// (exit 1) when a dropped request was never executed; resume then sends
// those rows again, and in the end every row is debited exactly once.
func TestSandboxDropsAndTUPEndPendingAndRecheckResolves(t *testing.T) {
	svc := startSandbox(t, sandbox.Faults{Drop: 0.1, Pending: 0.1, Seed: 3})
	dir := t.TempDir()
	in := writeInput(t, dir, 120)
	dbPath := filepath.Join(dir, "bulk.db")
	code, stdout, stderr := runCLIEnv(t, svc.Environ(), "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath,
		"--concurrency", "6", "--set", "longitude=77.59", "--set", "consent=Y", "--call-log", filepath.Join(dir, "calls.jsonl"))
	if code != cli.ExitFindings || !strings.Contains(stderr, "pending") {
		t.Fatalf("run: exit %d, want %d (pending rows)\n%s%s", code, cli.ExitFindings, stdout, stderr)
	}
	// Every call is in the call log and in the calls table.
	logged, err := os.ReadFile(filepath.Join(dir, "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(logged), `"operation":"verifyPanPlusV2"`); n != 120 {
		t.Errorf("call log has %d verifyPanPlusV2 lines, want 120", n)
	}
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var stored int
	db.QueryRow(`SELECT count(DISTINCT external_ref) FROM calls WHERE operation = 'verifyPanPlusV2'`).Scan(&stored)
	db.Close()
	if stored != 120 {
		t.Errorf("calls table holds %d verifyPanPlusV2 refs, want 120", stored)
	}
	before := results(t, in+".results.csv")
	pending := 0
	for i, r := range before {
		if n := svc.CallCount(r["externalRef"]); n != 1 {
			t.Errorf("row %d: CallCount = %d, want 1", i, n)
		}
		if r["outcome"] == bulk.StatePending {
			pending++
		}
	}
	if pending < 10 {
		t.Fatalf("%d pending rows, want the drops and TUPs (about 24)", pending)
	}
	code, stdout, stderr = runCLIEnv(t, svc.Environ(), "recheck", runID(t, dbPath), "--min-wait", "0", "--db", dbPath)
	after := results(t, in+".results.csv")
	unsent := 0
	for i, r := range after {
		switch {
		case before[i]["outcome"] != bulk.StatePending && r["outcome"] != before[i]["outcome"]:
			t.Errorf("row %d changed from %s to %s without being pending", i, before[i]["outcome"], r["outcome"])
		case r["outcome"] == bulk.StateSuccess:
			if r["poolAmount"] != verifyPanCharge {
				t.Errorf("row %d: success with pool %q", i, r["poolAmount"])
			}
		case r["outcome"] == bulk.OutcomeUnsent:
			// A dropped call the sandbox did not execute: to be sent again.
			unsent++
			if r["statuscode"] != svcapi.TxnNotFound || !strings.Contains(r["error"], "returned to unsent") {
				t.Errorf("row %d: unsent with %s %q, want %s and an audit note", i, r["statuscode"], r["error"], svcapi.TxnNotFound)
			}
		default:
			t.Errorf("row %d: outcome %q after recheck", i, r["outcome"])
		}
		if n := svc.CallCount(r["externalRef"]); n != 1 {
			t.Errorf("row %d: CallCount after recheck = %d, want 1", i, n)
		}
	}
	wantCode := 0
	if unsent > 0 {
		wantCode = cli.ExitFailure
		if !strings.Contains(stderr, "bulkrun resume") || !strings.Contains(stdout, fmt.Sprintf("%d not executed", unsent)) {
			t.Errorf("recheck output does not count the %d unexecuted rows or name resume:\n%s%s", unsent, stdout, stderr)
		}
	}
	if code != wantCode {
		t.Fatalf("recheck: exit %d, want %d (%d rows unsent again)\n%s%s", code, wantCode, unsent, stdout, stderr)
	}
	t.Logf("%d dropped rows not executed by the sandbox, sent again", unsent)
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), svc.Environ()...)
		return cmd
	}
	id := runID(t, dbPath)
	if unsent > 0 {
		// The same run command continues the run and sends them again.
		code, stdout, stderr = runCLIEnv(t, svc.Environ(), "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath,
			"--concurrency", "6", "--set", "longitude=77.59", "--set", "consent=Y", "--log-level", "error")
		if code != 0 && code != cli.ExitFindings || !strings.Contains(stdout, fmt.Sprintf("%d rows recheck found never executed", unsent)) {
			t.Fatalf("run again: exit %d\n%s%s", code, stdout, stderr)
		}
	}
	settle(t, command, dbPath, id)
	final := results(t, in+".results.csv")
	journal := journalByRef(t, dbPath, id)
	for i, r := range final {
		ref := r["externalRef"]
		if after[i]["outcome"] == bulk.OutcomeUnsent && svc.CallCount(ref) < 2 {
			t.Errorf("row %d (%s) unsent after recheck but CallCount = %d, want it sent again", i, ref, svc.CallCount(ref))
		}
		if n := svc.CallCount(ref); n > journal[ref].Attempts {
			t.Errorf("row %d (%s): CallCount %d in %d attempts", i, ref, n, journal[ref].Attempts)
		}
	}
	checkSandboxSuccess(t, svc, final)
}

// A wrong secret is refused by the service (HTTP 401) before anything is
// executed: the run stops at the first row, which stays unsent — no file of
// failed rows that can only be re-sent with --again — and the same command
// with the right secret sends every row.
func TestWrongSecretStopsTheRunAndLeavesRowsUnsent(t *testing.T) {
	svc := startSandbox(t, sandbox.Faults{})
	dir := t.TempDir()
	in := writeInput(t, dir, 30)
	dbPath := filepath.Join(dir, "bulk.db")
	args := []string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "1",
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"}
	wrong := append(svc.Environ(), "SVC_CLIENT_SECRET=not-the-secret")
	code, stdout, stderr := runCLIEnv(t, wrong, args...)
	if code != cli.ExitFailure || !strings.Contains(stderr, "UAD") {
		t.Fatalf("wrong secret: exit %d, want %d naming UAD\n%s%s", code, cli.ExitFailure, stdout, stderr)
	}
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var journaled int
	db.QueryRow(`SELECT count(*) FROM bulk_rows`).Scan(&journaled)
	db.Close()
	if journaled != 0 {
		t.Fatalf("wrong secret: %d rows journaled, want 0 (all unsent)", journaled)
	}
	code, stdout, stderr = runCLIEnv(t, svc.Environ(), args...)
	if code != cli.ExitOK {
		t.Fatalf("right secret, same command: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	for i := range 30 {
		ref := fmt.Sprintf("B%s%06d", runID(t, dbPath), i+2)
		want := 1
		if i == 0 {
			want = 2 // refused (401, nothing executed), then executed
		}
		if n := svc.CallCount(ref); n != want {
			t.Errorf("row %d (%s): CallCount = %d, want %d", i, ref, n, want)
		}
	}
}
