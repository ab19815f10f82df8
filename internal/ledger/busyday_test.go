package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// TestEndToEndBusyDays: days with more records than seconds (10,000
// records a day from 23:30, as a day of the 10,000,000-record month has
// from 06:00) are checked like any other: the check finds exactly the
// planted defects, no gap from a chain it could not order.
func TestEndToEndBusyDays(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	srv := startSandbox(t, sandbox.Options{Seed: 5, Days: 2, TotalRecords: 20_000,
		CallsFrom: 23*time.Hour + 30*time.Minute - time.Second, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	db := openDB(t)
	syncSandbox(t, db, srv)
	if sum := importCallLog(t, db, srv.Sandbox); sum.Bad != 0 || sum.Imported != srv.Counts().Calls {
		t.Fatalf("import = %+v (errors %v), want all %d lines imported", sum, sum.Errors, srv.Counts().Calls)
	}
	from, to := srv.Period()
	rep, err := ledger.Check(context.Background(), db, ledger.CheckOptions{From: from, To: to, TimingWindow: ledger.DefaultTimingWindow})
	if err != nil {
		t.Fatal(err)
	}
	compareFindings(t, db, rep, srv.Planted())
}
