package main

import (
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
)

// TestMaxDebitUnderDroppedAnswers: bulkrun run --max-debit with every
// third answer dropped (the call executed and debited, its answer lost)
// never spends more than the amount: the calls whose debit is unknown
// count at the expected debit. The figures are logged (go test -v): the
// cap, what the service debited, the journal's confirmed debits and its
// pending rows at the expected debit.
func TestMaxDebitUnderDroppedAnswers(t *testing.T) {
	price := decimal.RequireFromString("2.50")
	for _, limit := range []string{"50", "500"} {
		t.Run(limit, func(t *testing.T) {
			srv := bulktest.Start(bulktest.Options{Price: price, DropEvery: 3})
			defer srv.Close()
			dir := t.TempDir()
			in := writeInput(t, dir, 400)
			dbPath := filepath.Join(dir, "bulk.db")
			code, stdout, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "16",
				"--set", "longitude=1", "--set", "consent=Y", "--max-debit", limit, "--log-level", "error")
			c := counts(t, dbPath, runID(t, dbPath))
			pending := price.Mul(decimal.NewFromInt(int64(c.Pending)))
			cap := decimal.RequireFromString(limit)
			spent := srv.Debited()
			t.Logf("--max-debit %s: exit %d; the service debited %s; the journal: %s confirmed + %d rows pending at the expected %s = %s",
				limit, code, spent.StringFixed(2), c.Debit.StringFixed(2), c.Pending, price.StringFixed(2), c.Debit.Add(pending).StringFixed(2))
			if spent.GreaterThan(cap) || spent.LessThanOrEqual(cap.Sub(price)) {
				t.Errorf("the service debited %s with --max-debit %s; want within one call of it, never over\n%s%s", spent, cap, stdout, stderr)
			}
			if !c.Debit.Add(pending).Equal(spent) || code != 1 {
				t.Errorf("exit %d; journal %s + %s pending; service %s", code, c.Debit, pending, spent)
			}
		})
	}
}
