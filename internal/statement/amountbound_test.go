package statement

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestSyncAmountBeyondTheBound: a record whose amount is beyond the bound
// of an amount (recon.CheckAmount) is a fault of its page: the day is left
// failed at that page, naming the field, nothing of the page is stored;
// once the service answers sanely, a re-run stores what a clean sync does.
func TestSyncAmountBeyondTheBound(t *testing.T) {
	f0, cl0 := newFake(t)
	f0.fill(15)
	o0 := baseOptions(t, cl0)
	if _, err := Sync(context.Background(), o0); err != nil {
		t.Fatal(err)
	}
	clean := dumpRecords(t, sqlDB(o0.DB))
	for _, tc := range []struct {
		name, field string
		set         any
	}{
		{"401 digits", "txnChargedValue", strings.Repeat("9", 401)},
		{"401 digits as a number", "txnChargedValue", jsonNumber("1" + strings.Repeat("0", 400))},
		{"1e29", "orderValue", "1e29"},
		{"1e29 as a number", "txnTds", jsonNumber("1E+29")},
		{"16 digits", "convenienceFee", "1234567890123456.5"},
		{"5 decimals", "txnSurcharge", "0.12345"},
		{"negative", "txnCashback", "-9999999999999999"},
		{"closing balance", "closingBalance", "100000000000000000000.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, cl := newFake(t)
			f.fill(15)
			rec := f.records[recon.Statement]["2026-11-04"][12]
			good := rec[tc.field]
			rec[tc.field] = tc.set
			o := baseOptions(t, cl)
			sum, err := Sync(context.Background(), o)
			if !errors.Is(err, ErrIncomplete) || len(sum.Problems) != 1 {
				t.Fatalf("Sync = %v, %+v; want one problem (exit 1)", err, sum.Problems)
			}
			p := sum.Problems[0]
			if p.Day != "2026-11-04" || p.Page != 2 || !strings.Contains(p.Err, tc.field) || !strings.Contains(p.Err, "beyond the bound of an amount") {
				t.Errorf("problem = %+v, want window 2026-11-04 page 2 naming %s beyond the bound", p, tc.field)
			}
			if len(p.Err) > 400 {
				t.Errorf("the problem quotes the amount whole: %d characters", len(p.Err))
			}
			if got := countRecords(t, sqlDB(o.DB), recon.Statement); got != 4*15+10 {
				t.Errorf("statement records = %d, want %d (nothing of the page)", got, 4*15+10)
			}
			rec[tc.field] = good
			if _, err := Sync(context.Background(), o); err != nil {
				t.Fatalf("healthy re-run: %v", err)
			}
			if got := dumpRecords(t, sqlDB(o.DB)); !slices.Equal(got, clean) {
				t.Errorf("after the re-run the records differ from a clean sync's")
			}
		})
	}
}

// jsonNumber is a JSON number of the fake's records (not a string).
type jsonNumber string

func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }
