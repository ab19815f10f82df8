package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
)

// TestMaxDebitWithARateCard: every answer is lost, so no answer tells what
// a call costs: without a rate card the run stops after its first call;
// with one (--rates: verifyPanPlusV2 at 2.00) the spend cap counts each
// call at that price from the first, and spends 8.00 of --max-debit 9.
func TestMaxDebitWithARateCard(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "rates.yaml")
	if err := os.WriteFile(card, []byte("products:\n  IDV/PANPLUSV2: {charge: \"2.00\"}\noperations:\n  verifyPanPlusV2: IDV/PANPLUSV2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, withCard := range []bool{false, true} {
		srv := bulktest.Start(bulktest.Options{Price: decimal.RequireFromString("2.00"), DropEvery: 1})
		defer srv.Close()
		sub := t.TempDir()
		args := []string{"run", "--op", "verifyPanPlusV2", "--in", writeInput(t, sub, 10), "--db", filepath.Join(sub, "bulk.db"),
			"--concurrency", "4", "--set", "longitude=1", "--set", "consent=Y", "--max-debit", "9", "--log-level", "error"}
		if withCard {
			args = append(args, "--rates", card)
		}
		code, stdout, stderr := runCLI(t, srv, args...)
		want := "2.00"
		if withCard {
			want = "8.00"
		}
		if code != cli.ExitFailure || !srv.Debited().Equal(decimal.RequireFromString(want)) {
			t.Errorf("--rates %v: exit %d, the service debited %s; want exit 1 and %s\n%s%s", withCard, code, srv.Debited(), want, stdout, stderr)
		}
	}
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	code, _, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", writeInput(t, dir, 1),
		"--db", filepath.Join(dir, "b.db"), "--rates", filepath.Join(dir, "none.yaml"))
	if code != cli.ExitUsage || !strings.Contains(stderr, "none.yaml") {
		t.Errorf("a missing rate card: exit %d, %q; want %d naming it", code, stderr, cli.ExitUsage)
	}
}
