package nightly

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/rates"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// Settings are the settings that shape a check's result, for its
// manifest: the pair window and amount tolerances, the timing window, the
// bound of the unmatched rows held for pairs, and, for a run that synced,
// the orders look-back and the held days walked again.
func Settings(tol ledger.Tolerances, ordersLookback, recheckDays int) evidence.Settings {
	m := tol.Settings()
	return evidence.Settings{PairWindow: m.PairWindow, PairAmount: m.PairAmount, PairPercent: m.PairPercent,
		TimingWindow: m.TimingWindow, MaxOrphans: ledger.MaxOrphans, OrdersLookback: ordersLookback, RecheckDays: recheckDays}
}

// RateCardSetting is the rate card as the manifest's settings name it
// (nil without one).
func RateCardSetting(c *rates.Card) *evidence.RateCard {
	if c == nil {
		return nil
	}
	return &evidence.RateCard{Path: c.Path, SHA256: c.SHA256}
}

// RecordEvidence is the evidence step after a check (check, run): the
// verdict of its findings as the Summary words it, then its manifest and
// its exceptions (evidence.Record). fetched is what the run's sync
// fetched (nil when it did not sync); pre the inputs read beside the check
// (PrefetchEvidence; nil: none).
func RecordEvidence(ctx context.Context, db *store.DB, rep *ledger.Report, s evidence.Settings, fetched []evidence.Fetched,
	now func() time.Time, pre *evidence.Prefetched) (*evidence.Result, error) {
	from, err := time.Parse(time.DateOnly, rep.Summary.From)
	if err != nil {
		return nil, fmt.Errorf("run %d: period %q: %w", rep.RunID, rep.Summary.From, err)
	}
	to, err := time.Parse(time.DateOnly, rep.Summary.To)
	if err != nil {
		return nil, fmt.Errorf("run %d: period %q: %w", rep.RunID, rep.Summary.To, err)
	}
	v, err := export.Verdict(ctx, db, from, to)
	if err != nil {
		return nil, err
	}
	return evidence.Record(ctx, db, evidence.Check{RunID: rep.RunID, Summary: rep.Summary, Findings: v, Settings: s,
		Fetched: fetched, Now: now, Inputs: pre})
}

// PrefetchEvidence starts reading, beside the check of from..to that
// starts, the evidence step's inputs that its findings do not change
// (evidence.Prefetch), for RecordEvidence. The caller stops it
// (Prefetched.Stop) when it is done, whether the check failed or not: a
// check's error is the step's, never the reads'.
func PrefetchEvidence(ctx context.Context, db evidence.Store, from, to time.Time) *evidence.Prefetched {
	day := func(t time.Time) string { return t.In(recon.IST).Format(recon.DateLayout) } // the check's days
	return evidence.Prefetch(ctx, db, day(from), day(to))
}

// EvidenceLine is what the evidence step did, in one line: the verdict,
// the manifest's digest and the exceptions new, carried over and resolved.
func EvidenceLine(r *evidence.Result) string {
	return fmt.Sprintf("%s; manifest sha256 %s; exceptions: %d new, %d carried over, %d resolved",
		r.Manifest.Verdict, r.Manifest.Digest, r.Counts.New, r.Counts.Carried, r.Counts.Resolved)
}

// WorkbookEvidence reads a run's evidence for its workbook.
func WorkbookEvidence(db *store.DB) func(ctx context.Context, runID int64) (*evidence.View, error) {
	return func(ctx context.Context, runID int64) (*evidence.View, error) {
		return evidence.Workbook(ctx, db, runID)
	}
}

// WriteManifest writes the manifest of the run exported, with what the
// export wrote, as manifest.json in dir (whole or not at all), and returns
// its path; "" for a run checked before manifests were kept (logged).
func WriteManifest(ctx context.Context, db *store.DB, files export.Files, dir string, at time.Time, log *slog.Logger) (string, error) {
	js, found, err := evidence.ExportManifest(ctx, db, files.RunID, files.Exported(), at)
	if err != nil {
		return "", err
	}
	if !found {
		log.Warn("the run has no manifest (checked by an earlier version): check the period again to have one", "run", files.RunID)
		return "", nil
	}
	p := filepath.Join(dir, evidence.ManifestFile)
	err = export.WriteFile(p, 0o666, log, func(w io.Writer) error { _, err := w.Write(js); return err })
	return p, err
}
