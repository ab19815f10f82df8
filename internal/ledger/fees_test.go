package ledger

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
)

const feeCard = `tolerance: "0.01"
products:
  IDV/MOBPAN: {charge: "3.54"}
  IDV: {charge: "2.00"}
  UPIC: {percent: "1.5", min: "1.00", max: "25.00"}
  DMT/IMPS: {charge: "5.90", onTopOf: orderValue}
  LITG:
    - {from: 2026-10-01, charge: "14.00"}
    - {from: 2026-10-15, charge: "15.00"}
  CIR: {charge: "35.40", surcharge: "0.00", cashback: "2.00", tds: "5"}
`

func parseCard(t *testing.T, src string) *rates.Card {
	t.Helper()
	c, err := rates.Parse("rates.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// feeLine is a finding as the tables below write it: kind, svcOrderId, field,
// expected, charged, difference.
func feeLine(f Fee) string {
	if f.Kind == recon.Unpriced {
		return strings.Join([]string{f.Kind, f.Product(), f.Charged, strconv.Itoa(f.Debits)}, " ")
	}
	return strings.Join([]string{f.Kind, f.SvcOrderID, f.Field, f.Expected, f.Charged, f.Difference}, " ")
}

// TestFeesStage prices debits one by one against a rate card: each row is
// a debit and the findings it makes (none, over, under), then the unpriced
// products once each at the end.
func TestFeesStage(t *testing.T) {
	card := parseCard(t, feeCard)
	d := func(svc, ts, code, sub, charged, orderValue string) Debit {
		return Debit{SvcOrderID: svc, TxnDateTime: ts, ProductCode: code, SubProductCode: sub, Charged: charged, OrderValue: orderValue}
	}
	for _, tc := range []struct {
		name  string
		debit Debit
		want  []string
	}{
		{"at its price", d("S1", "2026-10-20 10:00:00", "IDV", "MOBPAN", "3.54", "3.54"), nil},
		{"written otherwise", d("S1", "2026-10-20 10:00:00", "IDV", "MOBPAN", "3.540", ""), nil},
		{"one rupee above", d("S2", "2026-10-20 10:00:00", "IDV", "MOBPAN", "4.54", "4.54"),
			[]string{"overcharged S2 txnChargedValue 3.54 4.54 1.00"}},
		{"one rupee below", d("S3", "2026-10-20 10:00:00", "IDV", "MOBPAN", "2.54", ""),
			[]string{"undercharged S3 txnChargedValue 3.54 2.54 -1.00"}},
		{"within the tolerance", d("S4", "2026-10-20 10:00:00", "IDV", "MOBPAN", "3.55", ""), nil},
		{"just beyond it", d("S5", "2026-10-20 10:00:00", "IDV", "MOBPAN", "3.5501", ""),
			[]string{"overcharged S5 txnChargedValue 3.54 3.5501 0.0101"}},
		{"the product's price for another sub-product", d("S6", "2026-10-20 10:00:00", "IDV", "MOBNAME", "2.36", ""),
			[]string{"overcharged S6 txnChargedValue 2.00 2.36 0.36"}},
		{"a percentage at its min", d("S7", "2026-10-20 10:00:00", "UPIC", "", "1.00", "10.00"), nil},
		{"a percentage half up", d("S8", "2026-10-20 10:00:00", "UPIC", "", "1.51", "100.33"), nil}, // 1.50495 → 1.50, within 0.01
		{"a percentage at its max", d("S9", "2026-10-20 10:00:00", "UPIC", "", "30.00", "2000.00"),
			[]string{"overcharged S9 txnChargedValue 25.00 30.00 5.00"}},
		{"on top of orderValue", d("S10", "2026-10-20 10:00:00", "DMT", "IMPS", "1005.90", "1000.00"), nil},
		{"on top, fee short", d("S11", "2026-10-20 10:00:00", "DMT", "IMPS", "1002.95", "1000.00"),
			[]string{"undercharged S11 txnChargedValue 1005.90 1002.95 -2.95"}},
		{"the last day of the old price", d("S12", "2026-10-14 23:59:59", "LITG", "", "14.00", ""), nil},
		{"the day of the new one", d("S13", "2026-10-15 00:00:00", "LITG", "", "14.00", ""),
			[]string{"undercharged S13 txnChargedValue 15.00 14.00 -1.00"}},
		{"surcharge, cashback and TDS as the card says", Debit{SvcOrderID: "S14", TxnDateTime: "2026-10-20 10:00:00",
			ProductCode: "CIR", Charged: "35.40", Surcharge: "0.00", Cashback: "2.00", TDS: "0.10"}, nil},
		{"cashback short, TDS too high, a surcharge", Debit{SvcOrderID: "S15", TxnDateTime: "2026-10-20 10:00:00",
			ProductCode: "CIR", Charged: "35.40", Surcharge: "1.18", Cashback: "1.00", TDS: "0.10"},
			[]string{"overcharged S15 txnSurcharge 0.00 1.18 1.18", "overcharged S15 txnCashback 2.00 1.00 -1.00",
				"overcharged S15 txnTds 0.05 0.10 0.05"}},
		{"cashback above the card", Debit{SvcOrderID: "S16", TxnDateTime: "2026-10-20 10:00:00",
			ProductCode: "CIR", Charged: "35.40", Cashback: "3.00", TDS: "0.15"},
			[]string{"undercharged S16 txnCashback 2.00 3.00 1.00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			s := newFeeStage(card, func(f Fee, _ decimal.Decimal) { got = append(got, feeLine(f)) })
			if err := s.debit(&tc.debit); err != nil {
				t.Fatal(err)
			}
			s.end()
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if s.priced != 1 {
				t.Errorf("priced = %d, want 1", s.priced)
			}
		})
	}
}

// TestFeesUnpriced: a product without a price on a debit's day is listed
// once, after the priced ones' findings, with its debits and their total;
// credits never reach the stage (CheckDebits yields debits only).
func TestFeesUnpriced(t *testing.T) {
	card := parseCard(t, feeCard)
	var got []Fee
	s := newFeeStage(card, func(f Fee, _ decimal.Decimal) { got = append(got, f) })
	for _, d := range []Debit{
		{SvcOrderID: "A", TxnDateTime: "2026-09-30 10:00:00", ProductCode: "LITG", Charged: "14.00"}, // before its first price
		{SvcOrderID: "B", TxnDateTime: "2026-10-02 10:00:00", ProductCode: "KYB", SubProductCode: "COMPANY", Charged: "11.80"},
		{SvcOrderID: "C", TxnDateTime: "2026-10-03 10:00:00", ProductCode: "IDV", SubProductCode: "MOBPAN", Charged: "4.54"},
		{SvcOrderID: "D", TxnDateTime: "2026-10-05 10:00:00", ProductCode: "KYB", SubProductCode: "COMPANY", Charged: "11.80", Reversed: true},
		{SvcOrderID: "E", TxnDateTime: "2026-10-06 10:00:00", ProductCode: "LITG", Charged: "14.00"},
	} {
		if err := s.debit(&d); err != nil {
			t.Fatal(err)
		}
	}
	s.end()
	var lines []string
	for _, f := range got {
		lines = append(lines, feeLine(f))
	}
	want := []string{"overcharged C txnChargedValue 3.54 4.54 1.00", "unpriced LITG 14.00 1", "unpriced KYB/COMPANY 23.60 2"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if s.priced != 2 {
		t.Errorf("priced = %d, want 2 (C and E)", s.priced)
	}
	if len(got) == 3 {
		u := got[2]
		if u.SvcOrderID != "" || u.TxnDateTime != "2026-10-02 10:00:00" || u.Field != "" ||
			u.Rule != "no price for KYB/COMPANY in the rate card on its 2 debits' days (2026-10-02 to 2026-10-05)" {
			t.Errorf("unpriced row = %+v", u)
		}
	}
}

// TestFeesBadAmount: an amount that is no decimal stops the check,
// naming the record.
func TestFeesBadAmount(t *testing.T) {
	s := newFeeStage(parseCard(t, feeCard), func(Fee, decimal.Decimal) {})
	err := s.debit(&Debit{SvcOrderID: "S9", TxnDateTime: "2026-10-20 10:00:00", ProductCode: "UPIC", Charged: "1.00", OrderValue: "lots"})
	if err == nil || !strings.Contains(err.Error(), "record S9: orderValue \"lots\"") {
		t.Errorf("debit = %v, want the record and its orderValue named", err)
	}
}

// TestRunFees runs the stage as the pipeline wires it: every finding is
// written and counted in the summary (overcharged and undercharged by
// their differences' absolute values, unpriced by debits and total), the
// report lists them; a failed read stops it.
func TestRunFees(t *testing.T) {
	card := parseCard(t, feeCard)
	out := &findings{}
	tl := newTally(out)
	debits := []Debit{
		{SvcOrderID: "A", TxnDateTime: "2026-10-20 10:00:00", ProductCode: "IDV", SubProductCode: "MOBPAN", Charged: "4.54"},
		{SvcOrderID: "B", TxnDateTime: "2026-10-20 11:00:00", ProductCode: "IDV", SubProductCode: "MOBPAN", Charged: "4.54", Reversed: true},
		{SvcOrderID: "C", TxnDateTime: "2026-10-20 12:00:00", ProductCode: "LITG", Charged: "13.00"},
		{SvcOrderID: "D", TxnDateTime: "2026-10-20 13:00:00", ProductCode: "NEW", Charged: "7.00"},
		{SvcOrderID: "E", TxnDateTime: "2026-10-21 13:00:00", ProductCode: "NEW", Charged: "7.50"},
		{SvcOrderID: "F", TxnDateTime: "2026-10-21 14:00:00", ProductCode: "IDV", SubProductCode: "MOBPAN", Charged: "3.54"},
	}
	if err := runFees(card, slices2(debits), tl); err != nil {
		t.Fatal(err)
	}
	if len(out.fees) != 4 || !out.fees[1].Reversed {
		t.Fatalf("written %+v, want 4 findings, the reversed debit's among them", out.fees)
	}
	var s recon.Summary
	tl.fill(&s)
	f := s.Fees
	if f == nil || f.Priced != 4 || f.UnpricedProducts != 1 || f.RateCard != "rates.yaml" || f.SHA256 != card.SHA256 {
		t.Fatalf("summary fees = %+v", f)
	}
	for k, want := range map[string]recon.CountSum{recon.Overcharged: {Count: 2, Amount: "2.00"},
		recon.Undercharged: {Count: 1, Amount: "2.00"}, recon.Unpriced: {Count: 2, Amount: "14.50"}} {
		if f.Kinds[k] != want {
			t.Errorf("%s = %+v, want %+v", k, f.Kinds[k], want)
		}
	}
	if got := tl.fees.fees(); len(got) != 4 {
		t.Errorf("listed %d fee findings, want 4", len(got))
	}
	rep := &Report{Summary: s, Fees: tl.fees.fees()}
	if !rep.HasFindings() {
		t.Error("HasFindings = false with fee findings")
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fees against rates.yaml", "  overcharged", "unpriced NEW: 2 debits, 14.50",
		"overcharged 2026-10-20 10:00:00 svcOrderId A IDV/MOBPAN txnChargedValue: expected 3.54, charged 4.54, difference 1.00 (IDV/MOBPAN: charge 3.54)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}

	boom := errors.New("boom")
	failing := func(yield func(Debit, error) bool) { yield(Debit{}, boom) }
	if err := runFees(card, failing, newTally(&findings{})); !errors.Is(err, boom) {
		t.Errorf("runFees over a failing read = %v, want it", err)
	}
}

// TestNoRateCard: without a card the summary has no fees (not checked),
// and the report says so.
func TestNoRateCard(t *testing.T) {
	tl := newTally(&findings{})
	var s recon.Summary
	tl.fill(&s)
	if s.Fees != nil {
		t.Errorf("Fees = %+v without a rate card", s.Fees)
	}
	rep := &Report{Summary: s}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "fees: not checked (no rate card: --rates)") {
		t.Errorf("report:\n%s", b.String())
	}
}
