package ledger

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

func TestAge(t *testing.T) {
	asOf := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		day, amount string
		age         int
		bucket      string
		wantErr     bool
	}{
		{"2026-11-20", "1", 0, "0-1", false}, {"2026-11-22", "1", 0, "0-1", false}, {"2026-11-17", "1", 3, "2-3", false},
		{"2026-11-12", "1", 8, "8-30", false}, {"2025-10-16", "1", 400, ">30", false},
		{"2026-11-xx", "1", 0, "", true}, {"2026-11-20", "one", 0, "", true},
	} {
		r := recon.Record{Kind: recon.Orders, SvcOrderID: "O"}
		r.Values[recon.FTxnDate], r.Values[recon.FTxnChargedValue] = tt.day, tt.amount
		u, _, err := age(asOf, &r)
		if (err != nil) != tt.wantErr || (err == nil && (u.AgeDays != tt.age || u.AgeBucket != tt.bucket)) {
			t.Errorf("age(%s, %s) = %d %s, %v; want %d %s, error %v", tt.day, tt.amount, u.AgeDays, u.AgeBucket, err, tt.age, tt.bucket, tt.wantErr)
		}
	}
}

// TestUnsettledOrders: each order of the stream is aged and emitted with
// its amount, in order; a bad order or a failing stream is an error.
func TestUnsettledOrders(t *testing.T) {
	order := func(svc, day, amount string) recon.Record {
		r := recon.Record{Kind: recon.Orders, SvcOrderID: svc}
		r.Values[recon.FTxnDate], r.Values[recon.FTxnChargedValue], r.Values[recon.FTxnDateTime] = day, amount, day+" 12:00:00"
		return r
	}
	asOf := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var got []string
	emit := func(u Unsettled, amount decimal.Decimal) {
		got = append(got, u.SvcOrderID+" "+u.TxnDateTime+" "+u.Amount+" "+u.AgeBucket+" "+recon.Money(amount))
	}
	err := unsettledOrders(slices2([]recon.Record{order("A", "2026-11-19", "5"), order("B", "2026-10-01", "7.5")}), asOf, emit)
	want := []string{"A 2026-11-19 12:00:00 5.00 0-1 5.00", "B 2026-10-01 12:00:00 7.50 >30 7.50"}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("unsettledOrders = %q, %v; want %q", got, err, want)
	}
	if err := unsettledOrders(slices2([]recon.Record{order("C", "2026-11-xx", "1")}), asOf, emit); err == nil {
		t.Error("an order with a bad date: no error")
	}
	boom := errors.New("boom")
	failing := func(yield func(recon.Record, error) bool) { yield(recon.Record{}, boom) }
	if err := unsettledOrders(failing, asOf, emit); !errors.Is(err, boom) {
		t.Errorf("a failing stream: %v, want %v", err, boom)
	}
}
