package export

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// feesFixture is the fixture's current run (2) checked with a rate card:
// S2 overcharged (and its cashback short), S1 undercharged, and a product
// without a price, with its evidence recorded.
func feesFixture(tb testing.TB, o Options) (Files, string) {
	tb.Helper()
	db := fixtureDB(tb)
	const fees = `,"fees":{"rateCard":"rates.yaml","sha256":"0123456789abcdef0123456789abcdef","priced":5,"unpricedProducts":1,
	 "kinds":{"overcharged":{"count":2,"amount":"1.50"},"undercharged":{"count":1,"amount":"0.50"},"unpriced":{"count":2,"amount":"23.60"}}}}`
	ctx := context.Background()
	for _, q := range []string{
		`UPDATE recon_runs SET summary = ? WHERE id = 2`,
		`INSERT INTO recon_fees (run_id, kind, svc_order_id, txn_date_time, product_code, sub_product_code, field, expected,
			charged, difference, rule, debits, reversed) VALUES
			(2, 'overcharged', 'S2', '2026-11-01 11:00:00', 'PAN', 'V2', 'txnChargedValue', '49.50', '50.50', '1.00', 'PAN/V2: charge 49.50', 1, 0),
			(2, 'overcharged', 'S2', '2026-11-01 11:00:00', 'PAN', 'V2', 'txnCashback', '1.00', '0.50', '-0.50', 'PAN/V2: cashback 1.00', 1, 0),
			(2, 'undercharged', 'S1', '2026-11-01 10:00:00', 'PAN', '', 'txnChargedValue', '100.50', '100.00', '-0.50', 'PAN: charge 100.50', 1, 1),
			(2, 'unpriced', '', '2026-11-02 08:00:00', 'KYB', '', '', '', '23.60', '', 'no price for KYB in the rate card on its 2 debits'' days (2026-11-02 to 2026-11-03)', 2, 0)`,
	} {
		var args []any
		if strings.HasPrefix(q, "UPDATE") {
			args = []any{strings.TrimSuffix(fixSummary, "}") + fees}
		}
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			tb.Fatal(err)
		}
	}
	withEvidence(tb, db)
	dir := filepath.Join(tb.TempDir(), "out")
	o.From, o.To, o.Dir = fixFrom, fixTo, dir
	o.Evidence = func(ctx context.Context, id int64) (*evidence.View, error) { return evidence.Workbook(ctx, db, id) }
	files, err := Reconciliation(ctx, db, o)
	if err != nil {
		tb.Fatalf("Reconciliation: %v", err)
	}
	return files, dir
}

// TestExportFees: fees.csv and the Fees sheet list the run's fee
// findings (the debits by time, then the unpriced products), each with its
// exception and life; the Summary and summary.csv count and total each
// kind against the rate card; the verdict names them; the Legend explains
// the kinds.
func TestExportFees(t *testing.T) {
	files, dir := feesFixture(t, Options{})
	got := readCSV(t, filepath.Join(dir, "fees.csv"))
	header := strings.Join(got[0], ",")
	if header != "kind,txnDateTime,date,svcOrderId,productCode,subProductCode,field,expected,charged,difference,rule,debits,reversed,exception,life" {
		t.Errorf("fees.csv header %s", header)
	}
	var lines []string
	for _, r := range got[1:] {
		if !strings.HasPrefix(r[13], "EX-") || r[14] != evidence.LifeNew {
			t.Errorf("row %v: exception %q life %q, want an EX- id, new", r, r[13], r[14])
		}
		lines = append(lines, strings.Join(r[:13], ","))
	}
	want := []string{
		"undercharged,2026-11-01 10:00:00,2026-11-01,S1,PAN,,txnChargedValue,100.50,100.00,-0.50,PAN: charge 100.50,1,true",
		"overcharged,2026-11-01 11:00:00,2026-11-01,S2,PAN,V2,txnCashback,1.00,0.50,-0.50,PAN/V2: cashback 1.00,1,false",
		"overcharged,2026-11-01 11:00:00,2026-11-01,S2,PAN,V2,txnChargedValue,49.50,50.50,1.00,PAN/V2: charge 49.50,1,false",
		"unpriced,2026-11-02 08:00:00,2026-11-02,,KYB,,,,23.60,,no price for KYB in the rate card on its 2 debits' days (2026-11-02 to 2026-11-03),2,false",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("fees.csv rows:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// Each row's exception is the one the Exceptions sheet lists.
	ids := map[string]bool{}
	for _, r := range readCSV(t, filepath.Join(dir, "exceptions.csv"))[1:] {
		ids[r[0]+" "+r[1]+" "+r[2]] = true
	}
	for _, r := range got[1:] {
		key := r[3]
		switch {
		case r[0] == recon.Unpriced:
			key = r[4]
		case r[6] != "txnChargedValue":
			key += "/" + r[6]
		}
		if !ids[r[13]+" "+r[0]+" "+key] {
			t.Errorf("fees.csv row %v: exception %s %s %s not on the Exceptions sheet", r[:7], r[13], r[0], key)
		}
	}

	summary := map[string]string{}
	for _, r := range readCSV(t, filepath.Join(dir, "summary.csv"))[1:] {
		summary[r[0]+" "+r[1]] = r[2]
	}
	for k, v := range map[string]string{"fees checked": "true", "fees rateCard": "rates.yaml", "fees priced": "5",
		"fees overcharged.count": "2", "fees overcharged.amount": "1.50", "fees undercharged.count": "1",
		"fees undercharged.amount": "0.50", "fees unpriced.count": "2", "fees unpriced.amount": "23.60", "fees unpricedProducts": "1"} {
		if summary[k] != v {
			t.Errorf("summary.csv %s = %q, want %q", k, summary[k], v)
		}
	}
	if v := summary["verdict verdict"]; !strings.Contains(v, "2 fees overcharged (1.50 too much); 1 fee undercharged (0.50 too little); 1 product without a price") {
		t.Errorf("verdict %q does not name the fees", v)
	}

	f := openBook(t, files.Workbook)
	sheet := rows(t, f, "Fees")
	if len(sheet) != 5 || sheet[1][0] != recon.Undercharged || sheet[4][0] != recon.Unpriced {
		t.Errorf("Fees sheet rows %v", sheet)
	}
	if !strings.Contains(strings.Join(sheet[0], " "), "Against the rate card rates.yaml") {
		t.Errorf("Fees sheet's note: %v", sheet[0])
	}
	var block []string
	for _, r := range rows(t, f, "Summary") {
		if len(r) > 0 && (strings.HasPrefix(r[0], "Fees against") || strings.HasPrefix(r[0], "Overcharged") ||
			strings.HasPrefix(r[0], "Unpriced") || strings.HasPrefix(r[0], "Debits priced")) {
			block = append(block, strings.Join(r, "|"))
		}
	}
	wantBlock := []string{"Fees against the rate card rates.yaml|Count|Amount", "Debits priced|5",
		"Overcharged (too much)|2|1.50", "Unpriced: debits of products the card has no price for (1 product)|2|23.60"}
	if strings.Join(block, "\n") != strings.Join(wantBlock, "\n") {
		t.Errorf("Summary's fees:\n%s\nwant:\n%s", strings.Join(block, "\n"), strings.Join(wantBlock, "\n"))
	}
	legend := map[string]bool{}
	for _, r := range rows(t, f, "Legend") {
		legend[r[0]] = true
	}
	for _, k := range append(recon.FeeKinds, "rule") {
		if !legend[k] {
			t.Errorf("the Legend does not explain %s", k)
		}
	}
}

// TestExportNoRateCard: a run checked without a rate card has an empty
// Fees sheet that says so, and the Summary says the fees were not checked.
func TestExportNoRateCard(t *testing.T) {
	files, dir := exportFixture(t, Options{})
	if got := readCSV(t, filepath.Join(dir, "fees.csv")); len(got) != 1 {
		t.Errorf("fees.csv has %d rows, want the header alone", len(got))
	}
	f := openBook(t, files.Workbook)
	if sheet := rows(t, f, "Fees"); len(sheet) != 1 || !strings.Contains(strings.Join(sheet[0], " "), "No rate card was given") {
		t.Errorf("Fees sheet %v", sheet)
	}
	found := false
	for _, r := range rows(t, f, "Summary") {
		found = found || len(r) > 0 && r[0] == "Not checked: no rate card given (--rates)"
	}
	if !found {
		t.Error("the Summary does not say the fees were not checked")
	}
}
