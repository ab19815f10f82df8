package bulk

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// loseFirst loses the first request of every ref in refs on its way to the
// service (unexecuted, uncounted); later requests of those refs arrive.
func loseFirst(refs map[string]bool) func(string) bool {
	var mu sync.Mutex
	lost := map[string]bool{}
	return func(ref string) bool {
		mu.Lock()
		defer mu.Unlock()
		if !refs[ref] || lost[ref] {
			return false
		}
		lost[ref] = true
		return true
	}
}

// TestNeverSentRowsAreUnsentThenSentOnce: rows whose request was lost
// before the service executed it are pending after the run; the look-up
// says the service never executed them — as SNA, as ERR "Transaction not
// found", or as the look-up's own ERR "No such transaction" — and they are
// returned to unsent, never failed; the next Execute sends each once more,
// and every row ends success, executed and debited once.
func TestNeverSentRowsAreUnsentThenSentOnce(t *testing.T) {
	for _, style := range []string{bulktest.NotFoundSNA, bulktest.NotFoundERR, bulktest.NotFoundOuter} {
		t.Run(style, func(t *testing.T) {
			lost := map[string]bool{}
			fx := newFixture(t, 20, bulktest.Options{NotFound: style, Lost: loseFirst(lost)})
			for _, r := range fx.rows[:5] {
				lost[r.Ref] = true
			}
			ctx := context.Background()
			sum, err := fx.runner(4).Execute(ctx, fx.run, fx.rows)
			if err != nil || sum.Pending != 5 || sum.Success != 15 {
				t.Fatalf("Execute = %+v, %v; want 5 pending (lost), 15 success", sum, err)
			}
			later := func() time.Time { return time.Now().Add(10 * time.Minute) }
			rc := &Rechecker{DB: fx.db, Client: fx.client, Log: quietLog(), MinWait: time.Minute, Now: later}
			rs, err := rc.Recheck(ctx, fx.run)
			if err != nil || rs.NotExecuted != 5 || rs.Failed != 0 {
				t.Fatalf("Recheck = %+v, %v; want the 5 lost rows not executed, none failed", rs, err)
			}
			for _, r := range fx.rows[:5] {
				if e := fx.entries(t)[r.Line]; e.State != StateUnsent || !strings.Contains(e.Error, "never executed") {
					t.Errorf("line %d after recheck = %s %q; want unsent, never executed", r.Line, e.State, e.Error)
				}
			}
			sum, err = fx.runner(4).Execute(ctx, fx.run, fx.rows)
			if err != nil || sum.Sent != 5 || sum.Success != 20 || fx.run.State != RunDone {
				t.Fatalf("Execute after recheck = %+v, %v (%s); want the 5 rows sent once more, all success, done", sum, err, fx.run.State)
			}
			for _, r := range fx.rows {
				if n := fx.srv.CallCount(r.Ref); n != 1 {
					t.Errorf("%s executed %d times, want once", r.Ref, n)
				}
			}
			if !sum.Debit.Equal(fx.srv.Debited()) {
				t.Errorf("journal debits %s, service debited %s", sum.Debit, fx.srv.Debited())
			}
		})
	}
}

// TestNeverExecuted: the answers that prove a transaction was never
// executed, and those that do not.
func TestNeverExecuted(t *testing.T) {
	for _, tt := range []struct {
		code, msg string
		want      bool
	}{
		{"SNA", "", true},
		{"SNA", "anything", true},
		{"ERR", "Transaction not found", true},
		{"ERR", "No such transaction for this externalRef", true},
		{"ERR", "no record of this transaction", true},
		{"", "Transaction NOT FOUND", true},
		{"ERR", "Transaction failed", false},
		{"ERR", "", false},
		{"IAN", "invalid PAN: not found in the register", false},
		{"TXN", "not found", false},
		{"TUP", "", false},
	} {
		if got := NeverExecuted(tt.code, tt.msg); got != tt.want {
			t.Errorf("NeverExecuted(%q, %q) = %v, want %v", tt.code, tt.msg, got, tt.want)
		}
	}
}

// TestRecheckFailsOnlyOnADefiniteFailure: the look-up's answers and the
// state each gives a pending row: ERR "not found" (in the data or as the
// look-up's own answer) is unsent, ERR "Transaction failed" failed, an
// answer without a transaction status leaves the row pending.
func TestRecheckFailsOnlyOnADefiniteFailure(t *testing.T) {
	answer := func(d *svcapi.TxnStatusData, err error) func(time.Time) (*svcapi.TxnStatusData, error) {
		return func(time.Time) (*svcapi.TxnStatusData, error) { return d, err }
	}
	for _, tt := range []struct {
		name  string
		fn    func(time.Time) (*svcapi.TxnStatusData, error)
		state string
	}{
		{"ERR not found in the data", answer(&svcapi.TxnStatusData{TransactionStatusCode: "ERR", TransactionStatus: "Transaction not found"}, nil), StateUnsent},
		{"ERR not found at the outer level", answer(nil, &svcapi.Error{StatusCode: "ERR", Status: "No such transaction"}), StateUnsent},
		{"ERR failed", answer(&svcapi.TxnStatusData{TransactionStatusCode: "ERR", TransactionStatus: "Transaction failed"}, nil), StateFailed},
		{"ERR at the outer level, not about the transaction", answer(nil, &svcapi.Error{StatusCode: "ERR", Status: "Internal error"}), StatePending},
		{"no transaction status", answer(&svcapi.TxnStatusData{}, nil), StatePending},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, 1, bulktest.Options{})
			fx.journalSending(t, fx.rows[0], time.Hour)
			if _, err := fx.runner(1).Execute(context.Background(), fx.run, fx.rows); err != nil {
				t.Fatal(err)
			}
			rc := &Rechecker{DB: fx.db, Client: txnStub{tt.fn}, Log: quietLog()}
			rs, err := rc.Recheck(context.Background(), fx.run)
			if err != nil {
				t.Fatal(err)
			}
			if e := fx.entries(t)[fx.rows[0].Line]; e.State != tt.state {
				t.Errorf("row after recheck = %s (%+v); want %s", e.State, rs, tt.state)
			}
			if tt.state == StatePending && rs.LookupErrors != 1 {
				t.Errorf("Recheck = %+v; want the look-up counted as failed", rs)
			}
		})
	}
}
