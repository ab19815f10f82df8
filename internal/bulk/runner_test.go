package bulk

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func openDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "bulk.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// panCSV writes an input file of n verifyPanPlusV2 rows (no externalRef
// column: refs are derived) and returns its path.
func panCSV(tb testing.TB, n int) string {
	tb.Helper()
	var sb strings.Builder
	sb.WriteString("pan,latitude,longitude,consent\n")
	for i := range n {
		fmt.Fprintf(&sb, "ABCDE%04dF,012.97,077.59,Y\n", i)
	}
	path := filepath.Join(tb.TempDir(), "pans.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

type fixture struct {
	db     *store.DB
	srv    *bulktest.Server
	client *svcapi.Client
	run    *Run
	table  *Table
	rows   []Row
}

func newFixture(tb testing.TB, n int, opts bulktest.Options) *fixture {
	tb.Helper()
	srv := bulktest.Start(opts)
	tb.Cleanup(srv.Close)
	fx := newFixtureFor(tb, n, srv.Config())
	fx.srv = srv
	return fx
}

// newFixtureFor prepares a run of n verifyPanPlusV2 rows against the
// service cfg points at.
func newFixtureFor(tb testing.TB, n int, cfg svcapi.Config) *fixture {
	tb.Helper()
	fx := &fixture{db: openDB(tb)}
	var err error
	if fx.client, err = svcapi.New(cfg); err != nil {
		tb.Fatal(err)
	}
	if fx.table, err = ReadTable(panCSV(tb, n)); err != nil {
		tb.Fatal(err)
	}
	op := mustOp(tb, svcapi.OpVerifyPanPlusV2)
	ctx := context.Background()
	id, err := UniqueRunID(ctx, fx.db)
	if err != nil {
		tb.Fatal(err)
	}
	if fx.rows, err = Build(op, fx.table, nil, id); err != nil {
		tb.Fatal(err)
	}
	fx.run = &Run{ID: id, Op: op.Name, InputPath: fx.table.Path, InputSHA256: fx.table.SHA256, TotalRows: len(fx.rows)}
	if err := CreateRun(ctx, fx.db, fx.run); err != nil {
		tb.Fatal(err)
	}
	return fx
}

func (fx *fixture) runner(conc int) *Runner {
	return &Runner{DB: fx.db, Client: fx.client, Log: quietLog(), Concurrency: conc, Secret: bulktest.ClientSecret}
}

// journalRows returns a run's journal rows in line order.
func journalRows(ctx context.Context, db Journal, runID string) ([]Entry, error) {
	var out []Entry
	err := entries(ctx, db, runID, func(e Entry) error { out = append(out, e); return nil })
	return out, err
}

func (fx *fixture) entries(tb testing.TB) map[int]Entry {
	tb.Helper()
	es, err := journalRows(context.Background(), fx.db, fx.run.ID)
	if err != nil {
		tb.Fatal(err)
	}
	m := map[int]Entry{}
	for _, e := range es {
		m[e.Line] = e
	}
	return m
}

// checkAtMostOnce fails unless every journaled row reached the server
// exactly once and every unjournaled row never.
func (fx *fixture) checkAtMostOnce(tb testing.TB) {
	tb.Helper()
	es := fx.entries(tb)
	for _, r := range fx.rows {
		got := fx.srv.CallCount(r.Ref)
		_, journaled := es[r.Line]
		if journaled && got != 1 || !journaled && got != 0 {
			tb.Errorf("line %d (%s): CallCount = %d, journaled %v", r.Line, r.Ref, got, journaled)
		}
	}
}

func TestExecuteCallsEveryRowOnceAndRecheckResolves(t *testing.T) {
	fx := newFixture(t, 300, bulktest.Options{Drop: 0.05, Pending: 0.05, Fail: 0.05, Latency: time.Millisecond})
	ctx := context.Background()
	sum, err := fx.runner(8).Execute(ctx, fx.run, fx.rows)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if sum.Stop != "" || fx.run.State != RunDone || sum.Unsent != 0 || sum.Sent != 300 {
		t.Fatalf("Execute = %+v, state %s; want all 300 sent, done", sum, fx.run.State)
	}
	fx.checkAtMostOnce(t)
	want := decimal.Zero
	var pending int
	for line, e := range fx.entries(t) {
		fault := fx.srv.Fault(e.Ref)
		wantState := map[string]string{bulktest.FaultNone: StateSuccess, bulktest.FaultDrop: StatePending,
			bulktest.FaultPending: StatePending, bulktest.FaultFail: StateFailed}[fault]
		if e.State != wantState {
			t.Errorf("line %d fault %q: state %s, want %s (error %q)", line, fault, e.State, wantState, e.Error)
		}
		if e.State == StateSuccess {
			want = want.Add(bulktest.Amount(e.Ref))
			if e.PoolAmount != bulktest.Amount(e.Ref).StringFixed(2) || e.OrderID == "" || e.StatusCode != "TXN" {
				t.Errorf("line %d: pool %q orderid %q statuscode %q", line, e.PoolAmount, e.OrderID, e.StatusCode)
			}
		}
		if e.State == StatePending {
			pending++
		}
		if strings.Contains(string(e.Response), bulktest.ClientSecret) || strings.Contains(string(e.Response), "4111111111111111") {
			t.Errorf("line %d: stored response holds a secret or a full card number: %s", line, e.Response)
		}
	}
	if !sum.Debit.Equal(want) {
		t.Errorf("Summary.Debit = %s, want %s", sum.Debit, want)
	}
	if pending == 0 || sum.Pending != pending {
		t.Fatalf("pending rows = %d (summary %d), want some from the faults", pending, sum.Pending)
	}

	rc := &Rechecker{DB: fx.db, Client: fx.client, Log: quietLog()}
	rs, err := rc.Recheck(ctx, fx.run)
	if err != nil {
		t.Fatalf("Recheck: %v", err)
	}
	if rs.Checked != pending || rs.Success != pending || rs.StillPending != 0 {
		t.Errorf("Recheck = %+v, want %d looked up and all success", rs, pending)
	}
	c, _ := CountRows(ctx, fx.db, fx.run)
	if !c.Debit.Equal(fx.srv.Debited()) {
		t.Errorf("journal debits %s, server debited %s", c.Debit, fx.srv.Debited())
	}

	// Nothing is sent again by a second Execute of a done run.
	before := fx.srv.Requests()
	if sum, err := fx.runner(8).Execute(ctx, fx.run, fx.rows); err != nil || sum.Sent != 0 {
		t.Errorf("second Execute = %+v, %v; want nothing sent", sum, err)
	}
	if got := fx.srv.Requests(); got != before {
		t.Errorf("server requests %d → %d after a second Execute", before, got)
	}
}

func TestRecheckMinWaitAndStillPending(t *testing.T) {
	fx := newFixture(t, 60, bulktest.Options{Pending: 0.5, StillPending: 0.5})
	ctx := context.Background()
	if _, err := fx.runner(4).Execute(ctx, fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	c, _ := CountRows(ctx, fx.db, fx.run)
	rc := &Rechecker{DB: fx.db, Client: fx.client, Log: quietLog(), MinWait: time.Hour}
	rs, err := rc.Recheck(ctx, fx.run)
	if err != nil || rs.TooYoung != c.Pending || rs.Checked != 0 {
		t.Fatalf("Recheck(min-wait 1h) = %+v, %v; want all %d left for later", rs, err, c.Pending)
	}
	rc.MinWait = 0
	if rs, err = rc.Recheck(ctx, fx.run); err != nil {
		t.Fatal(err)
	}
	if rs.StillPending == 0 || rs.Success == 0 || rs.StillPending+rs.Success != c.Pending {
		t.Errorf("Recheck = %+v, want the %d pending split into still pending and success", rs, c.Pending)
	}
}

func TestInterruptedRunFinishesInFlightCallsAndResumes(t *testing.T) {
	fx := newFixture(t, 200, bulktest.Options{Latency: 3 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int64
	r := fx.runner(8)
	r.Client = countingCaller{Caller: fx.client, after: func() {
		if done.Add(1) == 40 {
			cancel()
		}
	}}
	sum, err := r.Execute(ctx, fx.run, fx.rows)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if sum.Stop != StopInterrupted || fx.run.State != RunStopped || sum.Unsent == 0 || sum.Sending != 0 {
		t.Fatalf("interrupted Execute = %+v, state %s; want stopped with unsent rows and none sending", sum, fx.run.State)
	}
	if sum.Success != sum.Sent {
		t.Errorf("in-flight calls not journaled: %d sent, %d success", sum.Sent, sum.Success)
	}
	fx.checkAtMostOnce(t)
	sum, err = fx.runner(8).Execute(context.Background(), fx.run, fx.rows)
	if err != nil || sum.Success != 200 || fx.run.State != RunDone {
		t.Fatalf("resumed Execute = %+v, %v; want all 200 success", sum, err)
	}
	fx.checkAtMostOnce(t)
}

// countingCaller calls after() once each call returned.
type countingCaller struct {
	Caller
	after func()
}

func (c countingCaller) Do(ctx context.Context, op string, body any) (*svcapi.Envelope, error) {
	env, err := c.Caller.Do(ctx, op, body)
	c.after()
	return env, err
}

// journalSending inserts a journal row 'sending' sent age ago, as a process
// that died after journaling it leaves it.
func (fx *fixture) journalSending(tb testing.TB, row Row, age time.Duration) {
	tb.Helper()
	fx.journalSendingAt(tb, row, time.Now().Add(-age))
}

func (fx *fixture) journalSendingAt(tb testing.TB, row Row, sent time.Time) {
	tb.Helper()
	err := fx.db.Write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO bulk_rows (run_id, line, external_ref, state, sent_at) VALUES (?, ?, ?, 'sending', ?)`,
			fx.run.ID, row.Line, row.Ref, store.FormatTime(sent))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// TestRowLeftSendingIsResentOnlyOnceProvenNotExecuted: a row left 'sending'
// is pending on resume and not sent; recheck finds it not executed and
// returns it to unsent; the next Execute sends it once, with the same
// externalRef.
func TestRowLeftSendingIsResentOnlyOnceProvenNotExecuted(t *testing.T) {
	fx := newFixture(t, 20, bulktest.Options{})
	ctx := context.Background()
	row := fx.rows[3]
	// A process journaled line 5 and died before its request left.
	fx.journalSending(t, row, 0)
	sum, err := fx.runner(4).Execute(ctx, fx.run, fx.rows)
	if err != nil || sum.Recovered != 1 || sum.Pending != 1 || sum.Success != 19 || fx.run.State != RunDone {
		t.Fatalf("Execute = %+v, %v, state %s; want 1 recovered pending, 19 success, done", sum, err, fx.run.State)
	}
	if n := fx.srv.CallCount(row.Ref); n != 0 {
		t.Fatalf("the row left sending was sent by the resume: CallCount = %d", n)
	}
	rs, err := (&Rechecker{DB: fx.db, Client: fx.client, Log: quietLog()}).Recheck(ctx, fx.run)
	if err != nil || rs.NotExecuted != 1 || rs.Failed != 0 || rs.Checked != 1 {
		t.Fatalf("Recheck = %+v, %v; want the row not executed", rs, err)
	}
	e := fx.entries(t)[row.Line]
	if e.State != StateUnsent || e.StatusCode != svcapi.TxnNotFound || e.Attempts != 1 || !strings.Contains(e.Error, "returned to unsent") {
		t.Errorf("row after recheck = %+v, want unsent, %s, 1 attempt, an audit note", e, svcapi.TxnNotFound)
	}
	run, err := LoadRun(ctx, fx.db, fx.run.ID)
	if err != nil || run.State != RunStopped {
		t.Fatalf("run after recheck = %+v, %v; want stopped (rows to send)", run, err)
	}
	c, _ := CountRows(ctx, fx.db, run)
	if c.Unsent != 1 || c.Returned != 1 || c.Journaled() != 19 {
		t.Errorf("counts after recheck = %+v; want 1 unsent (returned)", c)
	}
	if n := fx.srv.CallCount(row.Ref); n != 0 {
		t.Fatalf("recheck sent the row: CallCount = %d", n)
	}

	sum, err = fx.runner(4).Execute(ctx, run, fx.rows)
	if err != nil || sum.Sent != 1 || sum.Success != 20 || sum.Unsent != 0 || run.State != RunDone {
		t.Fatalf("Execute after recheck = %+v, %v, state %s; want the one row sent, all success, done", sum, err, run.State)
	}
	if n := fx.srv.CallCount(row.Ref); n != 1 {
		t.Errorf("CallCount(%s) = %d, want 1", row.Ref, n)
	}
	e = fx.entries(t)[row.Line]
	if e.State != StateSuccess || e.Ref != row.Ref || e.Attempts != 2 || e.PoolAmount != bulktest.Amount(row.Ref).StringFixed(2) {
		t.Errorf("row after the re-send = %+v; want success with the same ref, attempts 2", e)
	}
	fx.checkAtMostOnce(t)
	if !fx.srv.Debited().Equal(sum.Debit) {
		t.Errorf("server debited %s, journal %s", fx.srv.Debited(), sum.Debit)
	}
	// Nothing more to send or look up.
	if sum, err := fx.runner(4).Execute(ctx, run, fx.rows); err != nil || sum.Sent != 0 {
		t.Errorf("third Execute = %+v, %v; want nothing sent", sum, err)
	}
}

// TestDuplicateOnResendIsResolvedByRecheck: the first request of a row
// arrives late, after recheck found nothing and returned the row to unsent;
// the re-send is refused with DTX (nothing debited), the row is pending and
// recheck makes it success with the first request's order and debit.
func TestDuplicateOnResendIsResolvedByRecheck(t *testing.T) {
	fx := newFixture(t, 5, bulktest.Options{})
	ctx := context.Background()
	row := fx.rows[2]
	fx.journalSending(t, row, 10*time.Minute)
	rc := &Rechecker{DB: fx.db, Client: fx.client, Log: quietLog(), MinWait: time.Minute}
	if rs, err := rc.Recheck(ctx, fx.run); err != nil || rs.NotExecuted != 1 {
		t.Fatalf("Recheck = %+v, %v; want the row not executed", rs, err)
	}
	// The late request reaches the service now.
	if _, err := fx.client.Do(ctx, fx.run.Op, row.Body); err != nil {
		t.Fatalf("late request: %v", err)
	}
	sum, err := fx.runner(2).Execute(ctx, fx.run, fx.rows)
	if err == nil && sum.Pending != 1 {
		err = fmt.Errorf("pending %d, want 1", sum.Pending)
	}
	if err != nil {
		t.Fatalf("Execute = %+v: %v", sum, err)
	}
	e := fx.entries(t)[row.Line]
	if e.State != StatePending || e.StatusCode != "DTX" || e.Error != ReasonDuplicateResend || e.Attempts != 2 {
		t.Fatalf("re-sent row answered DTX = %+v; want pending %q", e, ReasonDuplicateResend)
	}
	rs, err := rc.Recheck(ctx, fx.run)
	if err == nil && rs.TooYoung != 1 {
		err = fmt.Errorf("too young %d, want 1", rs.TooYoung)
	}
	if err != nil {
		t.Fatalf("Recheck within --min-wait = %+v: %v", rs, err)
	}
	rc.MinWait = 0
	if rs, err = rc.Recheck(ctx, fx.run); err != nil || rs.Success != 1 {
		t.Fatalf("Recheck = %+v, %v; want the row success", rs, err)
	}
	e = fx.entries(t)[row.Line]
	if e.State != StateSuccess || e.StatusCode != "TXN" || e.OrderID == "" || e.PoolAmount != bulktest.Amount(row.Ref).StringFixed(2) {
		t.Errorf("row after recheck = %+v; want success with the late request's order and debit", e)
	}
	c, _ := CountRows(ctx, fx.db, fx.run)
	if c.Success != 5 || !c.Debit.Equal(fx.srv.Debited()) {
		t.Errorf("counts %+v; server debited %s once per row", c, fx.srv.Debited())
	}
	if n := fx.srv.CallCount(row.Ref); n != 2 {
		t.Errorf("CallCount = %d, want 2 (the late request and the refused re-send)", n)
	}
}

// TestDuplicateOnFirstAttemptFails: a ref the service already executed for
// something else (a file's own externalRef run --again) is a failure, not a
// row to take over.
func TestDuplicateOnFirstAttemptFails(t *testing.T) {
	fx := newFixture(t, 3, bulktest.Options{})
	ctx := context.Background()
	row := fx.rows[0]
	if _, err := fx.client.Do(ctx, fx.run.Op, row.Body); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.runner(1).Execute(ctx, fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	if e := fx.entries(t)[row.Line]; e.State != StateFailed || e.StatusCode != "DTX" {
		t.Errorf("row refused as a duplicate on its first call = %+v; want failed DTX", e)
	}
}

// TestMaxDebitStopsInTime: calls of 2.50 each under --max-debit 20.00
// stop at exactly eight: the ninth would pass the cap.
func TestMaxDebitStopsInTime(t *testing.T) {
	const conc = 4
	fx := newFixture(t, 100, bulktest.Options{Latency: time.Millisecond, Price: decimal.RequireFromString("2.50")})
	r := fx.runner(conc)
	r.MaxDebit = decimal.RequireFromString("20.00")
	sum, err := r.Execute(context.Background(), fx.run, fx.rows)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stop != StopMaxDebit || !sum.Debit.Equal(r.MaxDebit) || sum.Success != 8 {
		t.Errorf("Execute = stop %q debit %s, %d success; want max-debit stop at %s, 8 calls", sum.Stop, sum.Debit, sum.Success, r.MaxDebit)
	}
	if !fx.srv.Debited().Equal(sum.Debit) {
		t.Errorf("server debited %s, journal %s", fx.srv.Debited(), sum.Debit)
	}
	if fx.run.State != RunStopped || sum.Unsent != 92 {
		t.Errorf("state %s, unsent %d; want stopped with 92 rows left", fx.run.State, sum.Unsent)
	}
}

func TestServiceUnreachableLeavesRowsUnsent(t *testing.T) {
	fx := newFixture(t, 10, bulktest.Options{})
	fx.srv.Close()
	sum, err := fx.runner(2).Execute(context.Background(), fx.run, fx.rows)
	if err == nil || sum.Stop != StopError {
		t.Fatalf("Execute against a closed server = %+v, %v; want an error stop", sum, err)
	}
	if sum.Journaled() != 0 || sum.Unsent != 10 || fx.run.State != RunStopped {
		t.Errorf("Execute = %+v state %s; want every row unsent, run stopped", sum, fx.run.State)
	}
}

func TestResultsRoundTrip(t *testing.T) {
	fx := newFixture(t, 30, bulktest.Options{Pending: 0.1, Fail: 0.1})
	// The spend cap learns the expected debit from the first answer: a
	// first call left pending stops the run with no success row. The refs
	// hold a random run id, so take a run whose first call succeeds.
	for i := 0; fx.srv.Fault(fx.rows[0].Ref) != bulktest.FaultNone; i++ {
		if i == 100 {
			t.Fatal("no run whose first call succeeds in 100 tries")
		}
		fx = newFixture(t, 30, bulktest.Options{Pending: 0.1, Fail: 0.1})
	}
	ctx := context.Background()
	r := fx.runner(4)
	r.MaxDebit = decimal.RequireFromString("10") // leave some rows unsent
	if _, err := r.Execute(ctx, fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	rs := &Results{DB: fx.db, Run: fx.run, Table: fx.table, Op: mustOp(t, fx.run.Op)}
	out := filepath.Join(t.TempDir(), "res.csv")
	if err := rs.WriteCSV(ctx, out); err != nil {
		t.Fatal(err)
	}
	got := bulktest.ReadCSV(t, out)
	header := got[0]
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for i, want := range []string{"pan", "latitude", "longitude", "consent", "outcome", "statuscode", "status", "orderid", "externalRef", "poolAmount", "error"} {
		if header[i] != want {
			t.Fatalf("header = %q, want it to start with the input columns and the outcome columns", header)
		}
	}
	for _, k := range []string{"data.pool.amount", "data.panPlusDataV2.panStatus", "data.panPlusDataV2.userFullNameSplit", "data.panPlusDataV2.cardNumber"} {
		if _, ok := col[k]; !ok {
			t.Errorf("no column %s in %q", k, header)
		}
	}
	if len(got)-1 != len(fx.table.Records) {
		t.Fatalf("%d result rows, want %d", len(got)-1, len(fx.table.Records))
	}
	es := fx.entries(t)
	outcomes := map[string]int{}
	for i, rec := range fx.table.Records {
		row := got[i+1]
		for c, cell := range rec.Cells {
			if row[c] != cell {
				t.Errorf("row %d column %s = %q, want %q (input order and leading zeros kept)", i, header[c], row[c], cell)
			}
		}
		outcomes[row[col["outcome"]]]++
		e, ok := es[rec.Line]
		wantOutcome, wantAmount := OutcomeUnsent, ""
		if ok {
			wantOutcome, wantAmount = e.State, e.PoolAmount
		}
		if row[col["outcome"]] != wantOutcome || row[col["poolAmount"]] != wantAmount || row[col["externalRef"]] != fx.rows[i].Ref {
			t.Errorf("row %d: outcome %q pool %q ref %q; want %q %q %q", i, row[col["outcome"]], row[col["poolAmount"]],
				row[col["externalRef"]], wantOutcome, wantAmount, fx.rows[i].Ref)
		}
		if row[col["outcome"]] == StateSuccess {
			if row[col["data.panPlusDataV2.panStatus"]] != "VALID" || row[col["data.panPlusDataV2.userFullNameSplit"]] != `["TEST","","USER"]` {
				t.Errorf("row %d: flattened data wrong: %q", i, row)
			}
			if card := row[col["data.panPlusDataV2.cardNumber"]]; card != "XXXXXXXXXXXX1111" {
				t.Errorf("row %d: cardNumber = %q, want it masked to the last four", i, card)
			}
		}
	}
	for _, o := range []string{StateSuccess, OutcomeUnsent} {
		if outcomes[o] == 0 {
			t.Errorf("no %s rows in %v; the test wants every kind", o, outcomes)
		}
	}

	xl := XLSXPath(out)
	if err := rs.WriteXLSX(ctx, xl); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(xl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	xrows, err := f.GetRows("Results")
	if err != nil {
		t.Fatal(err)
	}
	if len(xrows) != len(got) || xrows[1][0] != got[1][0] || xrows[0][col["poolAmount"]] != "poolAmount" {
		t.Errorf("xlsx rows: %d (want %d), first cell %q (want %q)", len(xrows), len(got), xrows[1][0], got[1][0])
	}
	// The pool's amounts are numbers, equal to the CSV's exact text.
	for i, row := range got[1:] {
		if row[col["outcome"]] != StateSuccess {
			continue
		}
		for _, k := range []string{"poolAmount", "data.pool.openingBal", "data.pool.amount", "data.pool.closingBal"} {
			cell, _ := excelize.CoordinatesToCellName(col[k]+1, i+2)
			raw, _ := f.GetCellValue("Results", cell, excelize.Options{RawCellValue: true})
			if typ, _ := f.GetCellType("Results", cell); typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
				t.Errorf("%s %s is not a number cell (type %v)", k, cell, typ)
			} else if d, err := decimal.NewFromString(raw); err != nil || !d.Equal(decimal.RequireFromString(row[col[k]])) {
				t.Errorf("%s %s = %q, want the number %s", k, cell, raw, row[col[k]])
			}
		}
		break
	}
}

func TestFlattenData(t *testing.T) {
	tests := []struct {
		in   string
		want []KV
	}{
		{`{"statuscode":"TXN","data":{"b":1,"a":{"y":"x","z":null},"arr":[1, 2],"t":true}}`,
			[]KV{{"data.b", "1"}, {"data.a.y", "x"}, {"data.a.z", ""}, {"data.arr", "[1,2]"}, {"data.t", "true"}}},
		{`{"data":[{"bankId":1}]}`, []KV{{"data", `[{"bankId":1}]`}}},
		{`{"statuscode":"ERR"}`, nil},
		{`{"data":{"id":12345678901234567890}}`, []KV{{"data.id", "12345678901234567890"}}},
		{`not json`, nil},
	}
	for _, tt := range tests {
		got := flattenData([]byte(tt.in))
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("flattenData(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestLatestRunAndRunIDs(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if r, err := LatestRun(ctx, db, "verifyPanPlusV2", "abc"); r != nil || err != nil {
		t.Fatalf("LatestRun on empty db = %v, %v", r, err)
	}
	r := &Run{ID: NewRunID(), Op: "verifyPanPlusV2", InputPath: "x", InputSHA256: "abc", TotalRows: 3,
		Settings: Settings{Sets: Sets{"consent": "Y"}, MaxDebit: "10.50"}}
	if err := CreateRun(ctx, db, r); err != nil {
		t.Fatal(err)
	}
	got, err := LatestRun(ctx, db, "verifyPanPlusV2", "abc")
	if err != nil || got.ID != r.ID || got.Settings.Sets["consent"] != "Y" || got.Settings.MaxDebit != "10.50" || got.State != RunRunning {
		t.Errorf("LatestRun = %+v, %v", got, err)
	}
	if _, err := LoadRun(ctx, db, "NOPE1"); !errors.Is(err, ErrRunNotFound) {
		t.Errorf("LoadRun(unknown) = %v, want ErrRunNotFound", err)
	}
	if err := CreateRun(ctx, db, r); err == nil {
		t.Error("CreateRun with a taken id = nil, want an error")
	}
}

func TestResultsHideSecretInputColumns(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	op := mustOp(t, svcapi.OpBalanceInquiry)
	table, err := ParseTable("bio.csv", []byte("bankiin,biometricData.pidData,biometricData.hmac,receiver.cardNumber\n"+
		"607094,<PidData>secret</PidData>,abc123,4111111111111111\n"))
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{ID: "HIDE1", Op: op.Name, InputPath: "bio.csv", InputSHA256: "x", TotalRows: 1}
	if err := CreateRun(ctx, db, run); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "res.csv")
	if err := (&Results{DB: db, Run: run, Table: table, Op: op}).WriteCSV(ctx, out); err != nil {
		t.Fatal(err)
	}
	got := bulktest.ReadCSV(t, out)[1]
	want := []string{"607094", svcapi.Redacted, svcapi.Redacted, "XXXXXXXXXXXX1111", OutcomeUnsent}
	if fmt.Sprint(got[:5]) != fmt.Sprint(want) {
		t.Errorf("results row = %q, want it to start %q", got, want)
	}
}

// TestRateLimitSpacesRowStarts checks a lower bound only: 30 rows at 100
// rows per second cannot all start in less than 290 ms, however fast the
// machine.
func TestRateLimitSpacesRowStarts(t *testing.T) {
	fx := newFixture(t, 30, bulktest.Options{})
	r := fx.runner(8)
	r.Rate = 100
	start := time.Now()
	if _, err := r.Execute(context.Background(), fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 290*time.Millisecond {
		t.Errorf("30 rows at --rate 100 took %s, want at least 290ms", el)
	}
}

func TestRecheckResolvesOrphanedSendingRows(t *testing.T) {
	fx := newFixture(t, 3, bulktest.Options{})
	ctx := context.Background()
	// A process journaled two rows and died; the run was never resumed.
	fx.journalSending(t, fx.rows[0], 10*time.Minute)
	fx.journalSending(t, fx.rows[1], time.Minute)
	rs, err := (&Rechecker{DB: fx.db, Client: fx.client, Log: quietLog()}).Recheck(ctx, fx.run)
	if err != nil || rs.Checked != 1 || rs.NotExecuted != 1 {
		t.Fatalf("Recheck = %+v, %v; want the 10-minute-old sending row looked up (not found: unsent)", rs, err)
	}
	es := fx.entries(t)
	if es[fx.rows[0].Line].State != StateUnsent || es[fx.rows[1].Line].State != StateSending {
		t.Errorf("states = %s, %s; want unsent, sending (a young sending row may still be in flight)",
			es[fx.rows[0].Line].State, es[fx.rows[1].Line].State)
	}
}

// txnStub answers the transaction-status look-up with fn.
type txnStub struct {
	fn func(day time.Time) (*svcapi.TxnStatusData, error)
}

func (s txnStub) Do(context.Context, string, any) (*svcapi.Envelope, error) {
	return nil, errors.New("txnStub sends nothing")
}

func (s txnStub) TxnStatus(_ context.Context, day time.Time, _ string) (*svcapi.TxnStatusData, error) {
	return s.fn(day)
}

func TestRecheckNotFoundVariants(t *testing.T) {
	sna := &svcapi.TxnStatusData{TransactionStatusCode: svcapi.TxnNotFound}
	txn := &svcapi.TxnStatusData{TransactionStatusCode: "TXN", OrderID: "SVC1", Pool: &svcapi.Pool{Amount: decimal.RequireFromString("1.50")}}
	beforeMidnight := time.Date(2026, 11, 20, 23, 59, 30, 0, recon.IST)
	nextDay := func(ans, next *svcapi.TxnStatusData, nextErr error) func(time.Time) (*svcapi.TxnStatusData, error) {
		return func(day time.Time) (*svcapi.TxnStatusData, error) {
			if day.In(recon.IST).Day() == beforeMidnight.Day() {
				return ans, nil
			}
			return next, nextErr
		}
	}
	tests := []struct {
		name  string
		sent  time.Time
		fn    func(time.Time) (*svcapi.TxnStatusData, error)
		state string
		code  string
	}{
		{"not found in the data", time.Now().Add(-time.Hour), func(time.Time) (*svcapi.TxnStatusData, error) { return sna, nil },
			StateUnsent, svcapi.TxnNotFound},
		{"not found at the outer level", time.Now().Add(-time.Hour), func(time.Time) (*svcapi.TxnStatusData, error) {
			return nil, &svcapi.Error{StatusCode: svcapi.TxnNotFound, Status: "no record"}
		}, StateUnsent, svcapi.TxnNotFound},
		{"a failure at the service", time.Now().Add(-time.Hour), func(time.Time) (*svcapi.TxnStatusData, error) {
			return &svcapi.TxnStatusData{TransactionStatusCode: "IAN"}, nil
		}, StateFailed, "IAN"},
		{"still under process", time.Now().Add(-time.Hour), func(time.Time) (*svcapi.TxnStatusData, error) {
			return &svcapi.TxnStatusData{TransactionStatusCode: "TUP"}, nil
		}, StatePending, "TUP"},
		{"before midnight, found the next day", beforeMidnight, nextDay(sna, txn, nil), StateSuccess, "TXN"},
		{"before midnight, not found either day", beforeMidnight, nextDay(sna, sna, nil), StateUnsent, svcapi.TxnNotFound},
		{"before midnight, next day's look-up failed", beforeMidnight, nextDay(sna, nil, errors.New("connection reset")), StatePending, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, 1, bulktest.Options{})
			fx.journalSendingAt(t, fx.rows[0], tt.sent)
			if _, err := fx.runner(1).Execute(context.Background(), fx.run, fx.rows); err != nil {
				t.Fatal(err)
			}
			rc := &Rechecker{DB: fx.db, Client: txnStub{tt.fn}, Log: quietLog()}
			if _, err := rc.Recheck(context.Background(), fx.run); err != nil {
				t.Fatal(err)
			}
			e := fx.entries(t)[fx.rows[0].Line]
			if e.State != tt.state || e.StatusCode != tt.code {
				t.Errorf("row after recheck: %s %q, want %s %q", e.State, e.StatusCode, tt.state, tt.code)
			}
			if fx.srv.CallCount(fx.rows[0].Ref) != 0 {
				t.Error("recheck sent the row")
			}
		})
	}
}
