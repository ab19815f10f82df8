package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
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

// TestSandboxKilledRunsCallEveryRowAtMostOnce is the kill test against the
// sandbox, with dropped connections, TUP answers and 5xx pages.
func TestSandboxKilledRunsCallEveryRowAtMostOnce(t *testing.T) {
	svc := startSandbox(t, sandbox.Faults{Latency: 10 * time.Millisecond, Drop: 0.03, Pending: 0.03, ServerError: 0.01})
	rows := killAndResume(t, svc, 600)
	for i, r := range rows {
		if r["outcome"] == bulk.StateSuccess && (r["poolAmount"] != verifyPanCharge || r["orderid"] == "") {
			t.Errorf("row %d: success with pool %q orderid %q", i, r["poolAmount"], r["orderid"])
		}
	}
}

// TestSandboxDropsAndTUPEndPendingAndRecheckResolves runs a file against the
// sandbox with dropped connections and TUP answers: those rows end pending
// (exit 3), every row reached the service exactly once, and recheck resolves
// every pending row.
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
	if code != 0 {
		t.Fatalf("recheck: exit %d\n%s%s", code, stdout, stderr)
	}
	after := results(t, in+".results.csv")
	for i, r := range after {
		switch {
		case before[i]["outcome"] != bulk.StatePending && r["outcome"] != before[i]["outcome"]:
			t.Errorf("row %d changed from %s to %s without being pending", i, before[i]["outcome"], r["outcome"])
		case r["outcome"] == bulk.StateSuccess:
			if r["poolAmount"] != verifyPanCharge {
				t.Errorf("row %d: success with pool %q", i, r["poolAmount"])
			}
		case r["outcome"] == bulk.StateFailed:
			// A dropped call the sandbox did not execute.
			if r["statuscode"] != svcapi.TxnNotFound {
				t.Errorf("row %d: failed with %s, want %s", i, r["statuscode"], svcapi.TxnNotFound)
			}
		default:
			t.Errorf("row %d: outcome %q after recheck", i, r["outcome"])
		}
		if n := svc.CallCount(r["externalRef"]); n != 1 {
			t.Errorf("row %d: CallCount after recheck = %d, want 1", i, n)
		}
	}
}
