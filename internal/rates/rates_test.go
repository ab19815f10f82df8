package rates

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shopspring/decimal"
)

const example = `tolerance: "0.00"          # optional, in rupees
products:
  PANV2: {charge: "2.50"}                      # a fixed charge per debit
  UPIC: {percent: "1.5", min: "1.00", max: "25.00"}   # a share of orderValue, bounded
  LITG:                                        # a price that changed mid-month
    - {from: 2026-10-01, charge: "14.00"}
    - {from: 2026-10-15, charge: "15.00"}
`

func mustParse(t *testing.T, src string) *Card {
	t.Helper()
	c, err := Parse("rates.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// TestIssueExample: the issue's example parses as written.
func TestIssueExample(t *testing.T) {
	c := mustParse(t, example)
	if got := strings.Join(c.Products(), " "); got != "PANV2 UPIC LITG" {
		t.Errorf("Products = %q", got)
	}
	if !c.Tolerance.IsZero() || len(c.SHA256) != 64 || c.Path != "rates.yaml" {
		t.Errorf("card = %+v", c)
	}
}

// TestExamplesInTestdata: the example and the sandbox's prices parse.
func TestExamplesInTestdata(t *testing.T) {
	for _, name := range []string{"rates.yaml", "rates-sandbox.yaml"} {
		c, err := Load(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Products()) == 0 {
			t.Errorf("%s: no products", name)
		}
	}
}

// TestExpected prices debits: fixed charges, percentages rounded to the
// paisa half up and bounded, on top of orderValue, and the price in
// effect on the debit's day (IST), the day of a change included.
func TestExpected(t *testing.T) {
	c := mustParse(t, `products:
  PANV2: {charge: "2.50"}
  PANV2/PANV201: {charge: "2.00"}
  UPIC: {percent: "1.5", min: "1.00", max: "25.00"}
  PCT: {percent: "0.5"}
  DMT/IMPS: {charge: "5.90", onTopOf: orderValue}
  GC: {percent: "2", max: "10.00", onTopOf: orderValue}
  LITG:
    - {from: 2026-10-01, charge: "14.00"}
    - {from: "2026-10-15", charge: "15.00"}
  IDV/LATE:
    - {from: 2026-10-15, charge: "9.00"}
  IDV: {charge: "3.00"}
`)
	for _, tc := range []struct {
		code, sub, day, orderValue string
		want                       string // "" for unpriced
	}{
		{"PANV2", "", "2026-10-03", "2.50", "2.50"},
		{"PANV2", "PANV201", "2026-10-03", "0", "2.00"}, // the sub-product wins
		{"PANV2", "OTHER", "2026-10-03", "0", "2.50"},   // else the product's
		{"UPIC", "", "2026-10-03", "1000.00", "15.00"},
		{"UPIC", "", "2026-10-03", "50.00", "1.00"},    // 0.75: raised to min
		{"UPIC", "", "2026-10-03", "66.67", "1.00"},    // 1.00005 → 1.00 = min
		{"UPIC", "", "2026-10-03", "1666.67", "25.00"}, // 25.00005 → 25.00 = max
		{"UPIC", "", "2026-10-03", "1700.00", "25.00"}, // 25.50: lowered to max
		{"PCT", "", "2026-10-03", "201.00", "1.01"},    // 1.005: half up
		{"PCT", "", "2026-10-03", "200.99", "1.00"},    // 1.00495: down
		{"PCT", "", "2026-10-03", "0.99", "0.00"},      // 0.00495
		{"PCT", "", "2026-10-03", "1.00", "0.01"},      // 0.005: half up
		{"DMT", "IMPS", "2026-10-03", "1000.00", "1005.90"},
		{"DMT", "NEFT", "2026-10-03", "1000.00", ""},
		{"GC", "", "2026-10-03", "250.00", "255.00"},
		{"GC", "", "2026-10-03", "1000.00", "1010.00"}, // 20.00 lowered to max
		{"LITG", "", "2026-09-30", "0", ""},            // before the first price
		{"LITG", "", "2026-10-01", "0", "14.00"},
		{"LITG", "", "2026-10-14", "0", "14.00"},
		{"LITG", "", "2026-10-15", "0", "15.00"}, // the day it changes
		{"LITG", "", "2026-11-30", "0", "15.00"},
		{"IDV", "LATE", "2026-10-14", "0", "3.00"}, // the sub-product's price starts later: the product's
		{"IDV", "LATE", "2026-10-15", "0", "9.00"},
		{"NOPE", "", "2026-10-15", "0", ""},
	} {
		p, ok := c.Lookup(tc.code, tc.sub, tc.day)
		if tc.want == "" {
			if ok {
				t.Errorf("Lookup(%s/%s, %s) = %s, want unpriced", tc.code, tc.sub, tc.day, p.Explain(dec(tc.orderValue)))
			}
			continue
		}
		if !ok {
			t.Errorf("Lookup(%s/%s, %s): unpriced, want %s", tc.code, tc.sub, tc.day, tc.want)
			continue
		}
		if got := p.Expected(dec(tc.orderValue)); !got.Equal(dec(tc.want)) {
			t.Errorf("%s/%s on %s, orderValue %s: Expected = %s, want %s (%s)", tc.code, tc.sub, tc.day, tc.orderValue,
				got, tc.want, p.Explain(dec(tc.orderValue)))
		}
	}
}

func TestExplain(t *testing.T) {
	c := mustParse(t, `products:
  UPIC: {percent: "1.5", min: "1.00", max: "25.00"}
  DMT/IMPS: {charge: "5.90", onTopOf: orderValue}
  LITG:
    - {from: 2026-10-15, charge: "15.00"}
  IDV: {charge: "3.54", cashback: "1.00", tds: "5"}
`)
	p, _ := c.Lookup("UPIC", "", "2026-11-01")
	d, _ := c.Lookup("DMT", "IMPS", "2026-11-01")
	l, _ := c.Lookup("LITG", "", "2026-11-01")
	i, _ := c.Lookup("IDV", "MOBPAN", "2026-11-01")
	for _, tc := range []struct{ got, want string }{
		{p.Explain(dec("2000")), "UPIC: 1.5% of orderValue 2000.00 = 30.00, max 25.00"},
		{p.Explain(dec("10")), "UPIC: 1.5% of orderValue 10.00 = 0.15, min 1.00"},
		{p.Explain(dec("100")), "UPIC: 1.5% of orderValue 100.00 = 1.50"},
		{d.Explain(dec("1000")), "DMT/IMPS: orderValue 1000.00 + charge 5.90"},
		{l.Explain(dec("15")), "LITG from 2026-10-15: charge 15.00"},
		{i.ExplainField(FieldCashback, dec("1")), "IDV: cashback 1.00"},
		{i.ExplainField(FieldTDS, dec("0.50")), "IDV: TDS 5% of txnCashback 0.50 = 0.03"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestParseErrors: every mistake is refused with the file and the line at
// fault.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty", ``, "rates.yaml:1: empty file"},
		{"syntax", "products:\n\tA: {charge: \"1\"}\n", "rates.yaml:2: found character that cannot start any token"},
		{"unknown top key", "tolerence: \"0\"\nproducts:\n  A: {charge: \"1\"}\n", `rates.yaml:1: top level: unknown key "tolerence"`},
		{"no products", "tolerance: \"0\"\n", "rates.yaml:1: missing products:"},
		{"unknown price key", "products:\n  A: {charge: \"1\"}\n  B:\n    charge: \"1\"\n    maxx: \"2\"\n", `rates.yaml:5: B: unknown key "maxx"`},
		{"both charge and percent", "products:\n  A:\n    charge: \"1.00\"\n    percent: \"2\"\n", "rates.yaml:4: A: both charge and percent"},
		{"neither", "products:\n  A: {min: \"1\"}\n", "rates.yaml:2: A: no price"},
		{"bounds on a charge", "products:\n  A:\n    charge: \"1\"\n    max: \"2\"\n", "rates.yaml:4: A: min and max bound a percent"},
		{"min above max", "products:\n  A:\n    percent: \"1\"\n    min: \"5\"\n    max: \"2\"\n", "rates.yaml:5: A: min 5.00 is above max 2.00"},
		{"negative", "products:\n  A: {charge: \"-1.00\"}\n", `rates.yaml:2: A: charge: want an amount such as "2.50"`},
		{"exponent", "products:\n  A: {charge: 2.5e1}\n", `rates.yaml:2: A: charge: want an amount`},
		{"not a number", "products:\n  A: {charge: cheap}\n", `rates.yaml:2: A: charge: want an amount`},
		{"too many decimals", "products:\n  A: {charge: \"1.00001\"}\n", "rates.yaml:2: A: charge: 1.00001: beyond the bound of an amount (more than 4 decimals)"},
		{"too many digits", "products:\n  A: {charge: \"1234567890123456\"}\n", "rates.yaml:2: A: charge: 1234567890123456: beyond the bound of an amount"},
		{"bad tolerance", "tolerance: \"-0.01\"\nproducts:\n  A: {charge: \"1\"}\n", "rates.yaml:1: tolerance: want an amount"},
		{"percent above 100", "products:\n  A: {percent: \"100.5\"}\n", "rates.yaml:2: A: percent: 100.5% is above 100%"},
		{"bad onTopOf", "products:\n  A: {charge: \"1\", onTopOf: txnValue}\n", "rates.yaml:2: A: onTopOf: want orderValue"},
		{"tds without cashback", "products:\n  A:\n    charge: \"1\"\n    tds: \"5\"\n", "rates.yaml:4: A: tds is a rate on txnCashback"},
		{"bad key", "products:\n  A B: {charge: \"1\"}\n", `rates.yaml:2: products: "A B": want a product code`},
		{"two slashes", "products:\n  A/B/C: {charge: \"1\"}\n", `rates.yaml:2: products: "A/B/C"`},
		{"product twice", "products:\n  A: {charge: \"1\"}\n  A: {charge: \"2\"}\n", `rates.yaml:3: products: "A" given twice (first on line 2)`},
		{"key twice", "products:\n  A:\n    charge: \"1\"\n    charge: \"2\"\n", `rates.yaml:4: A: "charge" given twice (first on line 3)`},
		{"bad date", "products:\n  A:\n    - {from: 2026-13-01, charge: \"1\"}\n", "rates.yaml:3: A: from: want a day YYYY-MM-DD"},
		{"list without from", "products:\n  A:\n    - {from: 2026-10-01, charge: \"1\"}\n    - {charge: \"2\"}\n", "rates.yaml:4: A: a price of a list needs its from day"},
		{"overlapping", "products:\n  A:\n    - {from: 2026-10-01, charge: \"1\"}\n    - {from: 2026-10-01, charge: \"2\"}\n", "rates.yaml:4: A: two prices from 2026-10-01 (the other on line 3): they overlap"},
		{"unordered", "products:\n  A:\n    - {from: 2026-10-15, charge: \"1\"}\n    - {from: 2026-10-01, charge: \"2\"}\n", "rates.yaml:4: A: from 2026-10-01 comes after from 2026-10-15 (line 3)"},
		{"empty list", "products:\n  A: []\n", "rates.yaml:2: A: an empty list"},
		{"a price that is a number", "products:\n  A: 2.50\n", `rates.yaml:2: A: want a mapping, got "2.50"`},
		{"unknown operation", "products:\n  A: {charge: \"1\"}\noperations:\n  fly: A\n", `rates.yaml:4: operations: unknown operation "fly"`},
		{"operation of no product", "products:\n  A: {charge: \"1\"}\noperations:\n  litigation: B\n", "rates.yaml:4: operations: litigation: want a product key listed under products"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("rates.yaml", []byte(tc.src))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v, want a *ParseError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Parse = %q, want it to start with %q", err, tc.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rates.yaml")
	if err := os.WriteFile(p, []byte(example), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(example)); c.SHA256 != hex.EncodeToString(sum[:]) || c.Path != p {
		t.Errorf("SHA256, Path = %q, %q; want sha256sum of the file, %q", c.SHA256, c.Path, p)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.yaml")); err == nil {
		t.Error("Load of a missing file: no error")
	}
}

// TestDebit: bulkrun's expected debit of an operation.
func TestDebit(t *testing.T) {
	c := mustParse(t, `products:
  IDV/PANPLUSV2: {charge: "1.50"}
  UPIC: {percent: "1.5", max: "25.00"}
  PCT: {percent: "1.5"}
  DMT/IMPS: {charge: "5.90", onTopOf: orderValue}
  LITG:
    - {from: 2026-10-01, charge: "14.00"}
    - {from: 2026-10-15, charge: "15.00"}
operations:
  verifyPanPlusV2: IDV/PANPLUSV2
  litigation: LITG
  creditReport: UPIC
  mobilePanLookup: PCT
  fundTransfer: DMT/IMPS
`)
	for _, tc := range []struct {
		op, day, want string // want "" for not known
	}{
		{"verifyPanPlusV2", "2026-10-03", "1.50"},
		{"litigation", "2026-09-30", ""},
		{"litigation", "2026-10-14", "14.00"},
		{"litigation", "2026-10-15", "15.00"},
		{"creditReport", "2026-10-15", "25.00"},
		{"mobilePanLookup", "2026-10-15", ""},
		{"fundTransfer", "2026-10-15", ""},
		{"panDin", "2026-10-15", ""},
	} {
		got, ok := c.Debit(tc.op, tc.day)
		switch {
		case tc.want == "" && ok:
			t.Errorf("Debit(%s, %s) = %s, want none", tc.op, tc.day, got)
		case tc.want != "" && (!ok || !got.Equal(dec(tc.want))):
			t.Errorf("Debit(%s, %s) = %s, %v; want %s", tc.op, tc.day, got, ok, tc.want)
		}
	}
}

// TestLoadBudgets: a rate card that is a FIFO (its open would wait for a
// writer), larger than 1 MiB (a sparse 2 GiB file) or with a line longer
// than 64 KiB is refused as a *ParseError naming it, before it is read.
func TestLoadBudgets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.yaml")
	if err := os.WriteFile(huge, []byte("products:\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 2<<30); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(long, []byte("products:\n  PANV2: {charge: \"2.50\"}\n# "+strings.Repeat("x", 70<<10)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: fifo + ": not a regular file (a FIFO): a rate card must be a file",
		huge: huge + ": 2 GiB: more than the 1 MiB a rate card may hold",
		long: long + ":3: line longer than 64 KiB, the longest a rate card's line may be",
	} {
		_, err := Load(path)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want a *ParseError %q", path, err, want)
		}
	}
}
