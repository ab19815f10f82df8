package recon

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestRecordFieldsAreUnique(t *testing.T) {
	api, col := map[string]bool{}, map[string]bool{}
	for i, f := range RecordFields {
		if f.API == "" || f.Column == "" {
			t.Fatalf("field %d has an empty name: %+v", i, f)
		}
		if api[f.API] || col[f.Column] {
			t.Fatalf("field %d repeats a name: %+v", i, f)
		}
		api[f.API], col[f.Column] = true, true
	}
	if RecordFields[FTxnChargedValue].API != "txnChargedValue" || RecordFields[FSettlementSvcOrderID].Column != "settlement_svc_order_id" {
		t.Fatalf("index constants out of step with RecordFields")
	}
}

func TestBucketOf(t *testing.T) {
	for _, c := range []struct {
		days int
		want string
	}{{-1, "0-1"}, {0, "0-1"}, {1, "0-1"}, {2, "2-3"}, {3, "2-3"}, {4, "4-7"}, {7, "4-7"}, {8, "8-30"}, {30, "8-30"}, {31, ">30"}, {400, ">30"}} {
		if got := BucketOf(c.days); got != c.want {
			t.Errorf("BucketOf(%d) = %q, want %q", c.days, got, c.want)
		}
	}
}

func TestMoney(t *testing.T) {
	for _, c := range []struct{ in, money, exact string }{
		{"0", "0.00", "0"}, {"12.5", "12.50", "12.5"}, {"1.80", "1.80", "1.80"},
		{"-3.1", "-3.10", "-3.1"}, {"0.125", "0.125", "0.125"}, {"1000000", "1000000.00", "1000000"},
	} {
		d := decimal.RequireFromString(c.in)
		if got := Money(d); got != c.money {
			t.Errorf("Money(%s) = %q, want %q", c.in, got, c.money)
		}
		if got := Exact(d); got != c.exact {
			t.Errorf("Exact(%s) = %q, want %q", c.in, got, c.exact)
		}
	}
}

func TestParseKind(t *testing.T) {
	if k, err := ParseKind("orders"); err != nil || k != Orders {
		t.Fatalf("ParseKind(orders) = %v, %v", k, err)
	}
	if _, err := ParseKind("Statement"); err == nil {
		t.Fatal("ParseKind(Statement) accepted a wrong case")
	}
}

func TestPlainMoney(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"0", "0.00", true}, {"12", "12.00", true}, {"12.5", "12.50", true}, {"1.80", "1.80", true},
		{"-3.1", "-3.10", true}, {"-0.5", "-0.50", true}, {"0.05", "0.05", true},
		{"", "", false}, {"-", "", false}, {"-0", "", false}, {"-0.00", "", false}, {"012", "", false},
		{"0.125", "", false}, {"1.", "", false}, {".5", "", false}, {"1e2", "", false}, {" 1", "", false},
		{"1 ", "", false}, {"+1", "", false}, {"1.2.3", "", false}, {"abc", "", false},
	} {
		got, ok := PlainMoney(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("PlainMoney(%q) = %q, %v, want %q, %v", c.in, got, ok, c.want, c.ok)
		}
		if ok && got != Money(decimal.RequireFromString(c.in)) {
			t.Errorf("PlainMoney(%q) = %q, Money of it %q", c.in, got, Money(decimal.RequireFromString(c.in)))
		}
	}
}
