package evidence_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// feeRun stores a run of from..to with fee findings (kind, svcOrderId or
// product, field) as the check would, checked with a rate card or not,
// and records its evidence a night later.
func (f *fixture) feeRun(from, to string, priced bool, fees ...[3]string) *evidence.Result {
	f.t.Helper()
	return f.feeRunWith(from, to, priced, evidence.Settings{PairWindow: "10m0s"}, fees...)
}

// feeRunWith is feeRun with the run's settings.
func (f *fixture) feeRunWith(from, to string, priced bool, set evidence.Settings, fees ...[3]string) *evidence.Result {
	f.t.Helper()
	var id int64
	if err := f.db.QueryRowContext(f.ctx, `INSERT INTO recon_runs (period_from, period_to, as_of, started_at, finished_at,
		state) VALUES (?, ?, ?, 'x', 'x', 'ok') RETURNING id`, from, to, to).Scan(&id); err != nil {
		f.t.Fatal(err)
	}
	for _, x := range fees {
		svc, product := x[1], "IDV/MOBPAN"
		if x[0] == recon.Unpriced {
			svc, product = "", x[1]
		}
		f.exec(`INSERT INTO recon_fees (run_id, kind, svc_order_id, txn_date_time, product_code, sub_product_code, field,
			expected, charged, difference, rule, debits, reversed) VALUES (?, ?, ?, ?, ?, '', ?, '3.54', '4.54', '1.00', 'r', 1, 0)`,
			id, x[0], svc, from+" 10:00:00", product, x[2])
	}
	var s recon.Summary
	if priced {
		s.Fees = &recon.FeeSummary{RateCard: "rates.yaml"}
	}
	f.now = f.now.AddDate(0, 0, 1)
	res, err := evidence.Record(f.ctx, f.db, evidence.Check{RunID: id, Summary: s, Findings: "Not reconciled: fees",
		Settings: set, Now: func() time.Time { return f.now }, Version: "svcrecon test"})
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// TestFeeExceptions: fee findings are exceptions with a life (an
// overcharged debit by svcOrderId, another field of it apart, an unpriced
// product by product); a night checked without a rate card resolves none
// of them (it could not see them); a night with a card that no longer
// finds one resolves it.
func TestFeeExceptions(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		over := [3]string{recon.Overcharged, "SO1", "txnChargedValue"}
		cash := [3]string{recon.Overcharged, "SO1", "txnCashback"}
		unpriced := [3]string{recon.Unpriced, "KYB", ""}
		if res := f.feeRun("2026-11-01", "2026-11-01", true, over, cash, unpriced); res.Counts.New != 3 {
			t.Fatalf("first night: %+v, want 3 new", res.Counts)
		}
		f.exception(recon.Overcharged, "SO1")
		f.exception(recon.Overcharged, "SO1/txnCashback")
		f.exception(recon.Unpriced, "KYB")
		if res := f.feeRun("2026-11-01", "2026-11-01", false); res.Counts.Resolved != 0 {
			t.Errorf("a night without a rate card resolved %d fee exceptions", res.Counts.Resolved)
		}
		res := f.feeRun("2026-11-01", "2026-11-01", true, over)
		if res.Counts.Resolved != 2 || res.Counts.Carried != 1 {
			t.Errorf("a night with the card finding one of three: %+v, want 1 carried over, 2 resolved", res.Counts)
		}
		if got := f.exception(recon.Unpriced, "KYB").Status; got != evidence.StatusResolved {
			t.Errorf("the unpriced product is %s, want resolved", got)
		}
		if !evidence.IsKind(recon.Undercharged) {
			t.Error("undercharged is no kind of exception")
		}
	})
}

// TestRateCardInManifest: the rate card's path and SHA-256 are among the
// manifest's settings (another card, another settings hash; none, none
// shown), and verify finds the card edited since.
func TestRateCardInManifest(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		dir := t.TempDir()
		card := filepath.Join(dir, "rates.yaml")
		if err := os.WriteFile(card, []byte("products:\n  IDV: {charge: \"3.54\"}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		set := evidence.Settings{PairWindow: "10m0s", RateCard: &evidence.RateCard{Path: card, SHA256: sha256sum(t, card)}}
		without := f.feeRun("2026-11-01", "2026-11-01", false).Manifest
		with := f.feeRunWith("2026-11-01", "2026-11-01", true, set).Manifest
		if with.SettingsHash == without.SettingsHash || with.Settings.RateCard == nil || without.Settings.RateCard != nil {
			t.Fatalf("settings with a card %+v (%s), without %+v (%s)", with.Settings, with.SettingsHash, without.Settings, without.SettingsHash)
		}
		js, err := with.File()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), `"rateCard": {`) {
			t.Errorf("manifest.json has no rateCard:\n%s", js)
		}
		manifest := filepath.Join(dir, evidence.ManifestFile)
		os.WriteFile(manifest, js, 0o600)
		verify := func() []string {
			var v evidence.Verification
			if err := evidence.VerifyManifest(f.ctx, f.db, manifest, &v); err != nil {
				t.Fatal(err)
			}
			return differences(&v)
		}
		for _, d := range verify() {
			if strings.HasPrefix(d, "rate card") {
				t.Errorf("verify of an unchanged card: %s", d)
			}
		}
		os.WriteFile(card, []byte("products:\n  IDV: {charge: \"2.54\"}\n"), 0o600)
		if d := strings.Join(verify(), "\n"); !strings.Contains(d, "rate card "+card+": now has sha256") {
			t.Errorf("verify after the card was edited: %s", d)
		}
	})
}
