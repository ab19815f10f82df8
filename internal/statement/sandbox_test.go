package statement

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// startSandbox starts a small sandbox world and a client for it, with fast
// retries; it skips the test while the sandbox is not built.
func startSandbox(t testing.TB, o sandbox.Options) (*sandbox.Server, *svcapi.Client) {
	t.Helper()
	if o.Seed == 0 {
		o.Seed = 11
	}
	if o.Days == 0 {
		o.Days = 4
	}
	srv, err := sandbox.Start(o)
	if errors.Is(err, sandbox.ErrNotImplemented) {
		t.Skip("sandbox not implemented yet")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := srv.Config()
	cfg.RetryBase, cfg.RetryMax, cfg.MaxRetries = time.Millisecond, 5*time.Millisecond, 12
	cl, err := svcapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, cl
}

func sandboxOptions(t testing.TB, srv *sandbox.Server, cl Fetcher) Options {
	from, to := srv.Period()
	return Options{DB: openDB(t), Client: cl, Account: srv.Credentials().Account, From: from, To: to, PageSize: 7}
}

func TestSandboxSyncStoresTheGeneratedRecords(t *testing.T) {
	srv, cl := startSandbox(t, sandbox.Options{})
	o := sandboxOptions(t, srv, cl)
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatalf("Sync: %v %+v", err, sum.Problems)
	}
	c := srv.Counts()
	if got := countRecords(t, sqlDB(o.DB), recon.Statement); got != c.Statement {
		t.Errorf("statement records = %d, want %d", got, c.Statement)
	}
	if got := countRecords(t, sqlDB(o.DB), recon.Orders); got != c.Orders {
		t.Errorf("orders records = %d, want %d", got, c.Orders)
	}
	if sum.New != c.Statement+c.Orders {
		t.Errorf("New = %d, want %d", sum.New, c.Statement+c.Orders)
	}
	// A second run walks the held days again (all are among the last 7)
	// and adds nothing.
	sum, err = Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 0 || sum.Updated != 0 || sum.Rewalked != 8 || sum.Probed != 0 || sum.Late != 0 {
		t.Errorf("second run = %+v, want 8 held days walked again and nothing new", sum)
	}
	// Without recheck days, every held day is probed and none walked.
	o.RecheckDays = -1
	sum, err = Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 0 || sum.Pages != 0 || sum.Probed != 8 || sum.Unchanged != 8 {
		t.Errorf("third run = %+v, want 8 held days probed unchanged, no page", sum)
	}
}

func TestSandboxSyncWithFaults(t *testing.T) {
	clean, ccl := startSandbox(t, sandbox.Options{})
	co := sandboxOptions(t, clean, ccl)
	if _, err := Sync(context.Background(), co); err != nil {
		t.Fatal(err)
	}
	want := dumpRecords(t, sqlDB(co.DB))

	srv, _ := startSandbox(t, sandbox.Options{Faults: sandbox.Faults{ServerError: 0.10, Drop: 0.05, PageDrift: true}})
	var calls CallCounter
	cfg := srv.Config()
	cfg.RetryBase, cfg.RetryMax, cfg.MaxRetries = time.Millisecond, 5*time.Millisecond, 12
	cfg.Recorders = []svcapi.Recorder{&calls}
	cl, err := svcapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := sandboxOptions(t, srv, cl)
	o.Calls = &calls
	sum, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatalf("Sync with faults: %v %+v", err, sum.Problems)
	}
	if got := dumpRecords(t, sqlDB(o.DB)); !slices.Equal(got, want) {
		t.Errorf("with faults %d records stored, clean run %d; contents differ", len(got), len(want))
	}
	c := srv.Counts()
	if got := countRecords(t, sqlDB(o.DB), recon.Statement) + countRecords(t, sqlDB(o.DB), recon.Orders); got != c.Statement+c.Orders {
		t.Errorf("records = %d, want %d", got, c.Statement+c.Orders)
	}
	if sum.Retries == 0 {
		t.Errorf("no retries counted with 15%% faults")
	}
	t.Logf("faults: %s; windows walked more than once: %d", sum.Line(),
		queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM sync_windows WHERE walks > 1`))
}

func TestSandboxSyncResumed(t *testing.T) {
	srv, cl := startSandbox(t, sandbox.Options{})
	clean := sandboxOptions(t, srv, cl)
	if _, err := Sync(context.Background(), clean); err != nil {
		t.Fatal(err)
	}
	want := dumpRecords(t, sqlDB(clean.DB))

	o := sandboxOptions(t, srv, cl)
	ctx, cancel := context.WithCancel(context.Background())
	o.Client = &cancelAfter{f: cl, n: 6, cancel: cancel}
	if _, err := Sync(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Sync = %v, want context.Canceled", err)
	}
	o.Client = cl
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := dumpRecords(t, sqlDB(o.DB)); !slices.Equal(got, want) {
		t.Errorf("resumed run stored %d records, clean run %d; contents differ", len(got), len(want))
	}
}

func TestSandboxBillers(t *testing.T) {
	srv, cl := startSandbox(t, sandbox.Options{Billers: 40})
	o := BillerOptions{DB: openDB(t), Client: cl, PageSize: 9, Full: true}
	s, err := SyncBillers(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := srv.Counts().Billers; s.Seen != want || s.Added != want || s.Removed != 0 {
		t.Errorf("full sync = %+v, want %d seen and added", s, want)
	}
	o.Full = false
	s, err = SyncBillers(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Added != 0 || s.Changed != 0 || s.Removed != 0 || s.UpdatedAfter == "" {
		t.Errorf("incremental after full = %+v, want no change and an updatedAfter date", s)
	}
}
