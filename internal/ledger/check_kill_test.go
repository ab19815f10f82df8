package ledger_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
)

// interrupting is the store with its stream of calls cut after n calls:
// the run's context is cancelled there, as a SIGINT would, while rows of
// the run are being written. after counts the calls the check took after
// that.
type interrupting struct {
	*store.DB
	n      int
	cancel context.CancelFunc
	after  int
}

func (s *interrupting) CheckCalls(ctx context.Context, w ledger.Window) iter.Seq2[recon.Call, error] {
	return func(yield func(recon.Call, error) bool) {
		i := 0
		for c, err := range s.DB.CheckCalls(ctx, w) {
			if i++; i == s.n {
				s.cancel()
			} else if i > s.n {
				s.after++
			}
			if !yield(c, err) {
				return
			}
		}
	}
}

// dumpResults lists the result rows of every run, without run ids, sorted.
func dumpResults(tb testing.TB, db *store.DB) []string {
	tb.Helper()
	var out []string
	for _, q := range []string{
		`SELECT outcome || '|' || COALESCE(call_id, 0) || '|' || svc_order_id || '|' || call_amount || '|' || statement_amount || '|' || delta || '|' || note || '|' || suggested_pair FROM recon_matches`,
		`SELECT 'matched|' || call_id || '|' || svc_order_id || '|' || amount || '|' || amount || '|||' FROM recon_matched`,
		`SELECT kind || '|' || ts || '|' || delta || '|' || explained_by || '|' || note FROM recon_breaks`,
		`SELECT svc_order_id || '|' || reversal_found || '|' || reversal_amount FROM recon_reversals`,
		`SELECT svc_order_id || '|' || age_days FROM recon_unsettled`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			tb.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		rows.Close()
	}
	slices.Sort(out)
	return out
}

// TestCheckInterruptedAndRunAgain: a check stopped half-way leaves none of
// its rows (they are written in one transaction, as they are found), only
// the failed attempt in the history; the next check ends identical to a
// check of an untouched database.
func TestCheckInterruptedAndRunAgain(t *testing.T) {
	srv := startSandbox(t, sandbox.Options{Seed: 9, Days: 6, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	from, to := srv.Period()
	db := openDB(t)
	syncSandbox(t, db, srv)
	importCallLog(t, db, srv.Sandbox)

	clean := openDB(t)
	syncSandbox(t, clean, srv)
	importCallLog(t, clean, srv.Sandbox)
	if _, err := ledger.Check(context.Background(), clean, ledger.CheckOptions{From: from, To: to}); err != nil {
		t.Fatal(err)
	}
	want := dumpResults(t, clean)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := srv.Counts().Calls
	cut := &interrupting{DB: db, n: calls / 2, cancel: cancel}
	if _, err := ledger.Check(ctx, cut, ledger.CheckOptions{From: from, To: to}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted check = %v, want context.Canceled", err)
	}
	// The stream had read ahead; the stages stop within a few hundred calls.
	if cut.after > 300 {
		t.Errorf("the check took %d calls after it was cancelled, want at most 300", cut.after)
	}
	if got := dumpResults(t, db); len(got) != 0 {
		t.Fatalf("after the interrupted check %d result rows are stored, want none", len(got))
	}
	var states []string
	rows, _ := db.Query(`SELECT state FROM recon_runs ORDER BY id`)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		states = append(states, s)
	}
	rows.Close()
	if !slices.Equal(states, []string{ledger.RunInterrupted}) {
		t.Errorf("runs after the interrupted check = %q, want one interrupted attempt", states)
	}
	if _, err := ledger.Check(context.Background(), db, ledger.CheckOptions{From: from, To: to}); err != nil {
		t.Fatal(err)
	}
	if got := dumpResults(t, db); !slices.Equal(got, want) {
		t.Errorf("checked again: %d result rows, a clean check %d; contents differ", len(got), len(want))
	}
}

// failingStatement is the store with its stream of statement records
// failing at once, as a database error would.
type failingStatement struct{ *store.DB }

func (s failingStatement) CheckStatement(context.Context, ledger.Window) iter.Seq2[ledger.Record, error] {
	return func(yield func(ledger.Record, error) bool) { yield(ledger.Record{}, errors.New("disk I/O error")) }
}

// TestCheckFailedIsNotInterrupted: a check that fails of itself (not
// cancelled) leaves a failed run in the history, an interrupted one is
// only a cancelled check's (TestCheckInterruptedAndRunAgain).
func TestCheckFailedIsNotInterrupted(t *testing.T) {
	db := openDB(t)
	addCalls(t, db, tcall{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"})
	day := date(t, "2026-11-21")
	if _, err := ledger.Check(context.Background(), failingStatement{db}, ledger.CheckOptions{From: day, To: day}); err == nil ||
		!strings.Contains(err.Error(), "disk I/O error") {
		t.Fatalf("check = %v, want the statement's error", err)
	}
	var state string
	if err := db.QueryRow(`SELECT state FROM recon_runs`).Scan(&state); err != nil || state != ledger.RunFailed {
		t.Errorf("run's state = %q (%v), want %q", state, err, ledger.RunFailed)
	}
}
