package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// TestRunSandboxRates is the README's sandbox run with the sandbox's rate
// card: the mispriced product's debits are overcharged by 1.00 (every one
// on the days the sandbox names), the amountMismatch's record undercharged,
// in fees.csv, summary.csv, the printed report and the exceptions; the
// manifest names the card by its SHA-256; --fail-on-breaks makes it exit 3.
func TestRunSandboxRates(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "reports")
	card, err := filepath.Abs(filepath.Join("..", "..", "testdata", "rates-sandbox.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runCmd(t, "run", "--sandbox", "--out", out, "--db", filepath.Join(dir, "r.db"), "--rates", card)
	if err != nil {
		t.Fatalf("run --sandbox --rates: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := sb.Mispriced()
	over, under := 0, 0
	for _, r := range readCSV(t, filepath.Join(out, "fees.csv")) {
		switch r["kind"] {
		case recon.Overcharged:
			over++
			if r["productCode"]+"/"+r["subProductCode"] != "IDV/MOBPAN" || r["difference"] != "1.00" || r["expected"] != "3.54" ||
				!strings.Contains(strings.Join(m.Days, " "), r["date"]) || !strings.HasPrefix(r["exception"], "EX-") {
				t.Errorf("overcharged row %v: want IDV/MOBPAN, 3.54 → 4.54 on %v, with its exception", r, m.Days)
			}
		case recon.Undercharged:
			under++
			if r["difference"] != "-1.18" {
				t.Errorf("undercharged row %v: want the amountMismatch's record, -1.18", r)
			}
		default:
			t.Errorf("fees.csv row %v", r)
		}
	}
	if over < len(m.Days) || under != 1 {
		t.Errorf("fees.csv: %d overcharged, %d undercharged; want every mispriced debit of %v, and one", over, under, m.Days)
	}
	summary := map[string]string{}
	for _, r := range readCSV(t, filepath.Join(out, "summary.csv")) {
		summary[r["section"]+" "+r["key"]] = r["value"]
	}
	if summary["fees checked"] != "true" || summary["fees overcharged.count"] != strconv.Itoa(over) || summary["fees undercharged.amount"] != "1.18" {
		t.Errorf("summary.csv fees: %v", summary)
	}
	for _, want := range []string{"fees against " + card, "overcharged", "fees overcharged (" + strconv.Itoa(over) + ".00 too much)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var man evidence.Manifest
	b, err := os.ReadFile(filepath.Join(out, evidence.ManifestFile))
	if err == nil {
		err = json.Unmarshal(b, &man)
	}
	cb, _ := os.ReadFile(card)
	sum := sha256.Sum256(cb)
	if err != nil || man.Settings.RateCard == nil || man.Settings.RateCard.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("manifest settings %+v (%v): want the rate card's sha256", man.Settings, err)
	}

	_, _, err = runCmd(t, "run", "--sandbox", "--out", out, "--db", filepath.Join(dir, "r.db"), "--rates", card, "--fail-on-breaks")
	if code := cli.Exit(err, &bytes.Buffer{}); code != cli.ExitFindings {
		t.Errorf("run --fail-on-breaks: exit %d (%v), want %d", code, err, cli.ExitFindings)
	}
}

// TestRatesMistakes: a rate card with a mistake, or none at the path, is
// exit 2 naming the file and line, before a database or a report is made.
func TestRatesMistakes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "rates.yaml")
	os.WriteFile(bad, []byte("products:\n  LIT:\n    charge: \"25.00\"\n    percent: \"1\"\n"), 0o600)
	db := filepath.Join(dir, "none.db")
	for _, args := range [][]string{
		{"check", "--from", "2026-11-01", "--to", "2026-11-02", "--db", db, "--rates", bad},
		{"run", "--sandbox", "--out", filepath.Join(dir, "out"), "--rates", bad},
		{"check", "--from", "2026-11-01", "--to", "2026-11-02", "--db", db, "--rates", filepath.Join(dir, "missing.yaml")},
	} {
		_, _, err := runCmd(t, args...)
		var errOut bytes.Buffer
		code := cli.Exit(err, &errOut)
		want := bad + ":4: LIT: both charge and percent"
		if strings.Contains(args[len(args)-1], "missing") {
			want = "missing.yaml"
		}
		if code != cli.ExitUsage || !strings.Contains(errOut.String(), want) {
			t.Errorf("%v: exit %d, %q; want %d naming %q", args[:1], code, errOut.String(), cli.ExitUsage, want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("check created the database")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("run created its reports directory")
	}
}
