package bulk

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestMaxDebitHoldsWithDroppedAnswers: with every third answer dropped
// (executed and debited, the answer lost), a run of 2.50 calls never
// spends more than --max-debit: the calls whose debit is unknown count at
// the expected debit until resolved. Before, --max-debit 50 spent 97.50.
func TestMaxDebitHoldsWithDroppedAnswers(t *testing.T) {
	price := decimal.RequireFromString("2.50")
	for _, limit := range []string{"50", "500", "48.75"} {
		for _, conc := range []int{1, 16} {
			t.Run(fmt.Sprintf("%s/concurrency%d", limit, conc), func(t *testing.T) {
				fx := newFixture(t, 400, bulktest.Options{Price: price, DropEvery: 3})
				r := fx.runner(conc)
				r.MaxDebit = decimal.RequireFromString(limit)
				sum, err := r.Execute(context.Background(), fx.run, fx.rows)
				if err != nil || sum.Stop != StopMaxDebit {
					t.Fatalf("Execute = %+v, %v; want a max-debit stop", sum, err)
				}
				spent := fx.srv.Debited()
				pending, known := sum.PendingDebit()
				t.Logf("--max-debit %s, concurrency %d: spent %s; %s", limit, conc, spent, sum.Debits())
				if spent.GreaterThan(r.MaxDebit) || spent.LessThanOrEqual(r.MaxDebit.Sub(price)) {
					t.Errorf("spent %s with --max-debit %s: want within one call of it, never over", spent, r.MaxDebit)
				}
				if !known || !sum.Debit.Add(pending).Equal(spent) || sum.Pending == 0 {
					t.Errorf("counts %s: confirmed + pending at the expected debit should be what was spent, %s", sum.Debits(), spent)
				}
			})
		}
	}
}

// TestFirstCallGoesAlone: with --max-debit and no rate card, no second
// call leaves before the first one's answer has taught the expected
// debit; then they go out together. The first request is held at the
// service a while (a second one arriving meanwhile fails the test, however
// long the hold); the next ones are held until two are in flight at once.
func TestFirstCallGoesAlone(t *testing.T) {
	var mu sync.Mutex
	requests, early := 0, 0
	firstHeld := make(chan struct{})
	together := gate(2)
	fx := newFixture(t, 40, bulktest.Options{Price: decimal.RequireFromString("1.00"),
		Before: func(ref string, body map[string]any) {
			mu.Lock()
			requests++
			n := requests
			select {
			case <-firstHeld:
			default:
				if n > 1 {
					early++
				}
			}
			mu.Unlock()
			switch {
			case n == 1:
				select {
				case <-time.After(100 * time.Millisecond):
				case <-t.Context().Done():
				}
				close(firstHeld)
			case n <= 3:
				together(ref, body)
			}
		}})
	r := fx.runner(8)
	r.MaxDebit = decimal.RequireFromString("1000")
	if _, err := r.Execute(context.Background(), fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	if early > 0 {
		t.Errorf("%d requests arrived while the first one was held; want the first alone", early)
	}
	if fx.srv.Requests() != 40 {
		t.Errorf("%d requests, want 40", fx.srv.Requests())
	}
}

// TestFirstAnswerLostStopsARunWithoutAPrice: the first call's answer is
// lost: what a call costs is unknown, so no second call goes out under
// --max-debit; a rate card (Runner.Price) lets the run go on.
func TestFirstAnswerLostStopsARunWithoutAPrice(t *testing.T) {
	fx := newFixture(t, 10, bulktest.Options{Price: decimal.RequireFromString("2.00"), DropEvery: 1})
	r := fx.runner(4)
	r.MaxDebit = decimal.RequireFromString("9.00")
	sum, err := r.Execute(context.Background(), fx.run, fx.rows)
	if err != nil || sum.Stop != StopMaxDebit || fx.srv.Requests() != 1 || sum.Debits() != "0.00 confirmed + 1 rows pending of unknown debit" {
		t.Fatalf("Execute = %+v (%s), %v, %d requests; want a stop after one call", sum, sum.Debits(), err, fx.srv.Requests())
	}
	r.Price = func(string) (decimal.Decimal, bool) { return decimal.RequireFromString("2.00"), true }
	sum, err = r.Execute(context.Background(), fx.run, fx.rows)
	if err != nil || sum.Stop != StopMaxDebit || !fx.srv.Debited().Equal(decimal.RequireFromString("8.00")) {
		t.Fatalf("Execute with a price = %+v (%s), %v; want 4 calls in all (8.00 of 9.00)", sum, sum.Debits(), err)
	}
}

// TestDebitCapRoom: the arithmetic of the reservation.
func TestDebitCapRoom(t *testing.T) {
	d := decimal.RequireFromString
	for _, tt := range []struct {
		name string
		c    store.DebitCap
		n    int
		room int
		hold string
	}{
		{"first call alone", store.DebitCap{Limit: d("10")}, 5, 1, ""},
		{"first still in flight", store.DebitCap{Limit: d("10"), InFlight: 1}, 5, 0, store.BulkHoldReserved},
		{"price unknown, a row pending", store.DebitCap{Limit: d("10"), Pending: 1}, 5, 0, store.BulkHoldMaxDebit},
		{"room for three", store.DebitCap{Limit: d("10"), Debited: d("2.5"), Expected: d("2.5"), Known: true}, 5, 3, ""},
		{"exactly the cap", store.DebitCap{Limit: d("10"), Debited: d("7.5"), Expected: d("2.5"), Known: true}, 5, 1, ""},
		{"pending rows hold the rest", store.DebitCap{Limit: d("10"), Debited: d("5"), Expected: d("2.5"), Known: true, Pending: 2}, 5, 0, store.BulkHoldMaxDebit},
		{"in flight hold the rest", store.DebitCap{Limit: d("10"), Debited: d("5"), Expected: d("2.5"), Known: true, InFlight: 2}, 5, 0, store.BulkHoldReserved},
		{"reached", store.DebitCap{Limit: d("10"), Debited: d("10"), Expected: d("2.5"), Known: true}, 5, 0, store.BulkHoldMaxDebit},
		{"free calls", store.DebitCap{Limit: d("10"), Known: true, InFlight: 9}, 5, 5, ""},
	} {
		if room, hold := tt.c.Room(tt.n); room != tt.room || hold != tt.hold {
			t.Errorf("%s: Room(%d) = %d, %q; want %d, %q", tt.name, tt.n, room, hold, tt.room, tt.hold)
		}
	}
}

// TestDebitBeyondTheBoundIsAFaultOfTheRow: a TXN answer whose pool debit
// is beyond the bound of an amount (401 digits), or has no pool debit, is
// a fault of that row alone: pending, its debit unknown (counted at the
// expected debit), and recheck resolves it from the look-up's debit; the
// other rows are untouched.
func TestDebitBeyondTheBoundIsAFaultOfTheRow(t *testing.T) {
	huge := "1" + strings.Repeat("0", 400)
	var bad, none string
	fx := newFixture(t, 10, bulktest.Options{Price: decimal.RequireFromString("2.50"), Tamper: func(ref string, env map[string]any) {
		data := env["data"].(map[string]any)
		switch ref {
		case bad:
			data["pool"].(map[string]any)["amount"] = huge
		case none:
			delete(data, "pool")
		}
	}})
	bad, none = fx.rows[3].Ref, fx.rows[6].Ref
	ctx := context.Background()
	sum, err := fx.runner(4).Execute(ctx, fx.run, fx.rows)
	if err != nil || sum.Success != 8 || sum.Pending != 2 || sum.Debits() != "20.00 confirmed + 5.00 pending (2 rows at 2.50)" {
		t.Fatalf("Execute = %+v (%s), %v; want 8 success, the 2 rows pending", sum, sum.Debits(), err)
	}
	for _, r := range []Row{fx.rows[3], fx.rows[6]} {
		e := fx.entries(t)[r.Line]
		if e.State != StatePending || !strings.HasPrefix(e.Error, ReasonDebitUnknown) || e.PoolAmount != "" || len(e.Error) > 200 {
			t.Errorf("line %d = %s %q %q; want pending, debit unknown", r.Line, e.State, e.PoolAmount, e.Error)
		}
	}
	later := func() time.Time { return time.Now().Add(time.Hour) }
	rs, err := (&Rechecker{DB: fx.db, Client: fx.client, Log: quietLog(), Now: later}).Recheck(ctx, fx.run)
	if err != nil || rs.Success != 2 {
		t.Fatalf("Recheck = %+v, %v; want both rows success", rs, err)
	}
	c, _ := CountRows(ctx, fx.db, fx.run)
	if c.Debits() != "25.00 confirmed" || !c.Debit.Equal(fx.srv.Debited()) {
		t.Errorf("after recheck: %s; service debited %s", c.Debits(), fx.srv.Debited())
	}
}

// TestRecheckCountsTheDebitItResolves: a row resolved by the look-up is
// counted with the debit the look-up gives (its pool, else its txnValue);
// a TXN without any debit, or with one beyond the bound, leaves the row
// pending rather than success with no debit, so the confirmed total stays
// exact.
func TestRecheckCountsTheDebitItResolves(t *testing.T) {
	value := func(s string) svcapi.Amount {
		var a svcapi.Amount
		if err := a.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tt := range []struct {
		name    string
		d       *svcapi.TxnStatusData
		state   string
		debits  string
		checked int
	}{
		{"pool", &svcapi.TxnStatusData{TransactionStatusCode: "TXN", Pool: &svcapi.Pool{Amount: decimal.RequireFromString("1.75")}}, StateSuccess, "1.75 confirmed", 1},
		{"txnValue only", &svcapi.TxnStatusData{TransactionStatusCode: "TXN", TxnValue: value("3.10")}, StateSuccess, "3.10 confirmed", 1},
		{"no debit", &svcapi.TxnStatusData{TransactionStatusCode: "TXN"}, StatePending, "0.00 confirmed + 1 rows pending of unknown debit", 1},
		{"beyond the bound", &svcapi.TxnStatusData{TransactionStatusCode: "TXN", TxnValue: value("1" + strings.Repeat("0", 30))}, StatePending,
			"0.00 confirmed + 1 rows pending of unknown debit", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, 1, bulktest.Options{})
			fx.journalSending(t, fx.rows[0], time.Hour)
			if _, err := fx.runner(1).Execute(context.Background(), fx.run, fx.rows); err != nil {
				t.Fatal(err)
			}
			rc := &Rechecker{DB: fx.db, Client: txnStub{func(time.Time) (*svcapi.TxnStatusData, error) { return tt.d, nil }}, Log: quietLog()}
			rs, err := rc.Recheck(context.Background(), fx.run)
			if err != nil || rs.Checked != tt.checked {
				t.Fatal(rs, err)
			}
			c, _ := CountRows(context.Background(), fx.db, fx.run)
			if e := fx.entries(t)[fx.rows[0].Line]; e.State != tt.state || c.Debits() != tt.debits {
				t.Errorf("row after recheck = %s, debits %q; want %s, %q", e.State, c.Debits(), tt.state, tt.debits)
			}
		})
	}
}
