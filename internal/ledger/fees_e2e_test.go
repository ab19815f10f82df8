package ledger_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
)

// sandboxCard is testdata/rates-sandbox.yaml, the sandbox's prices, with
// the replacements of edit made.
func sandboxCard(t *testing.T, edit ...string) *rates.Card {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rates-sandbox.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.NewReplacer(edit...).Replace(string(b))
	if len(edit) > 0 && src == string(b) {
		t.Fatalf("the card has none of %q", edit)
	}
	c, err := rates.Parse("rates-sandbox.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkFees checks a sandbox month with a rate card and returns the run's
// report and its fee findings as stored.
func checkFees(t *testing.T, o sandbox.Options, card *rates.Card) (*ledger.Report, []ledger.Fee, *store.DB, *sandbox.Server) {
	t.Helper()
	o.End = time.Date(2026, 11, 30, 0, 0, 0, 0, recon.IST)
	srv := startSandbox(t, o)
	db := openDB(t)
	syncSandbox(t, db, srv)
	importCallLog(t, db, srv.Sandbox)
	from, to := srv.Period()
	rep, err := ledger.Check(context.Background(), db, ledger.CheckOptions{From: from, To: to, Rates: card})
	if err != nil {
		t.Fatal(err)
	}
	var fees []ledger.Fee
	for f, err := range db.ReportFees(context.Background(), rep.RunID) {
		if err != nil {
			t.Fatal(err)
		}
		fees = append(fees, *f)
	}
	return rep, fees, db, srv
}

// debitsOf lists the svcOrderIds of the period's statement debits whose
// product (CODE/SUB) is key, and counts all debits.
func debitsOf(t *testing.T, db *store.DB, key string) (ids []string, all int) {
	t.Helper()
	rows, err := db.Query(`SELECT svc_order_id, product_code || '/' || sub_product_code FROM records
		WHERE kind = 'statement' AND txn_mode = 'DR' ORDER BY svc_order_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, k string
		if err := rows.Scan(&id, &k); err != nil {
			t.Fatal(err)
		}
		all++
		if k == key {
			ids = append(ids, id)
		}
	}
	return ids, all
}

// TestRateCardOneRupeeBelow is the check: on a sandbox month, a
// rate card that prices one product one rupee below what the service
// charges flags every debit of that product, and no other, as overcharged
// by 1.00; the card at the service's prices flags nothing.
func TestRateCardOneRupeeBelow(t *testing.T) {
	if testing.Short() {
		t.Skip("a sandbox month: -short")
	}
	rep, fees, db, _ := checkFees(t, sandbox.Options{NoDefects: true}, sandboxCard(t, `CIR: {charge: "35.40"}`, `CIR: {charge: "34.40"}`))
	want, all := debitsOf(t, db, "CIR/CIRFULL")
	if len(want) < 10 {
		t.Fatalf("the month has %d credit-report debits: too few to tell", len(want))
	}
	var got []string
	for _, f := range fees {
		if f.Kind != recon.Overcharged || f.Product() != "CIR/CIRFULL" || f.Field != rates.FieldCharged ||
			f.Expected != "34.40" || f.Charged != "35.40" || f.Difference != "1.00" || f.Rule != "CIR: charge 34.40" {
			t.Errorf("finding %+v: want CIR/CIRFULL overcharged 34.40 → 35.40 by 1.00", f)
		}
		got = append(got, f.SvcOrderID)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("flagged %d debits, want every credit-report debit (%d) and no other", len(got), len(want))
	}
	fs := rep.Summary.Fees
	if fs == nil || fs.Priced != all || fs.Kinds[recon.Overcharged].Count != len(want) ||
		fs.Kinds[recon.Overcharged].Amount != recon.Money(decimal.NewFromInt(int64(len(want)))) || fs.UnpricedProducts != 0 ||
		fs.Kinds[recon.Undercharged].Count != 0 {
		t.Errorf("summary fees %+v: want all %d debits priced, %d overcharged", fs, all, len(want))
	}
	if !rep.HasFindings() {
		t.Error("HasFindings = false")
	}

	rep, fees, _, _ = checkFees(t, sandbox.Options{NoDefects: true}, sandboxCard(t))
	if len(fees) != 0 || rep.HasFindings() {
		t.Errorf("the sandbox's own prices flag %d fees: %+v", len(fees), fees)
	}
}

// TestSandboxMispricedProduct: the default world checked against the
// sandbox's prices flags exactly its planted mispriced debits (Mobile to
// PAN, 1.00 too much, on the days the sandbox names, reversed ones too)
// and the amountMismatch's record (1.18 too little), nothing unpriced.
func TestSandboxMispricedProduct(t *testing.T) {
	if testing.Short() {
		t.Skip("a sandbox month: -short")
	}
	rep, fees, db, srv := checkFees(t, sandbox.Options{}, sandboxCard(t))
	m := srv.Mispriced()
	var over []string
	var under []ledger.Fee
	for _, f := range fees {
		switch f.Kind {
		case recon.Overcharged:
			if f.Product() != "IDV/MOBPAN" || f.Difference != "1.00" || !slices.Contains(m.Days, f.TxnDateTime[:10]) {
				t.Errorf("overcharged %+v: want IDV/MOBPAN by 1.00 on %v", f, m.Days)
			}
			over = append(over, f.SvcOrderID)
		case recon.Undercharged:
			under = append(under, f)
		default:
			t.Errorf("finding %+v", f)
		}
	}
	var want []string
	ids, _ := debitsOf(t, db, "IDV/MOBPAN")
	for _, id := range ids {
		var ts string
		db.QueryRow(`SELECT txn_date_time FROM records WHERE kind = 'statement' AND svc_order_id = ?`, id).Scan(&ts)
		if slices.Contains(m.Days, ts[:10]) {
			want = append(want, id)
		}
	}
	slices.Sort(over)
	if len(want) == 0 || !slices.Equal(over, want) {
		t.Errorf("overcharged %v, want the mispriced debits %v", over, want)
	}
	var mismatch string
	for _, d := range srv.Planted() {
		if d.Kind == sandbox.DefectAmountMismatch {
			mismatch = d.SvcOrderID
		}
	}
	if len(under) != 1 || under[0].SvcOrderID != mismatch || under[0].Difference != "-1.18" {
		t.Errorf("undercharged %+v, want the amountMismatch's record %s by -1.18", under, mismatch)
	}
	if rep.Summary.Fees.UnpricedProducts != 0 {
		t.Errorf("unpriced products: %d", rep.Summary.Fees.UnpricedProducts)
	}
}
