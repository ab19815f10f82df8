package evidence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svcrecon/svcrecon/internal/buildinfo"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// Check is a check that finished, as Record needs it.
type Check struct {
	RunID   int64
	Summary recon.Summary // the check's summary
	// Findings is the verdict of the run's findings in the Summary's
	// words ("Reconciled", "Not reconciled: …"); Record prefixes what is
	// missing when the period was incomplete.
	Findings string
	Settings Settings
	// Fetched is what the run's own sync fetched; nil when it did not sync.
	Fetched []Fetched
	// Now stamps the manifest and the events (default time.Now).
	Now func() time.Time
	// Version is svcrecon's version (default buildinfo.Version).
	Version string
	// Inputs, when set, are the period's inputs read while the check ran
	// (Prefetch): Record uses them, checked against the database as it
	// is then, instead of reading them again, in every attempt. Nil, or of
	// another period: Record reads them.
	Inputs *Prefetched
}

// Result is what Record did.
type Result struct {
	Manifest *Manifest
	Counts   Counts
}

// Record is the evidence step of a check, run after it: it writes the
// run's manifest (inputs by SHA-256, settings by hash, totals at each step,
// completeness, verdict, digest) to the database and tracks the run's
// exceptions (new, carried over, resolved), with their events, in one
// transaction.
func Record(ctx context.Context, db Store, c Check) (*Result, error) {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Version == "" {
		c.Version = buildinfo.Version()
	}
	run, ok, err := db.EvidenceRun(ctx, c.RunID)
	if err != nil {
		return nil, fmt.Errorf("evidence of run %d: %w", c.RunID, err)
	}
	if !ok {
		return nil, fmt.Errorf("evidence of run %d: no such run", c.RunID)
	}
	var res *Result
	if _, err := guarded(ctx, db, func() (c2 Changes, skip bool, err error) {
		res, c2, err = record(ctx, db, run, &c)
		return c2, false, err
	}); err != nil {
		return nil, fmt.Errorf("evidence of run %d: %w", c.RunID, err)
	}
	return res, nil
}

// maxAttempts bounds how often changes are computed again when other
// writers keep changing the exceptions under them.
const maxAttempts = 8

// guarded reads the chain's head, computes changes from the state after
// it and applies them guarded by it; when another writer moved the head
// meanwhile (ErrMoved) it computes them again. skip says there is nothing
// to apply.
func guarded(ctx context.Context, db Store, compute func() (c Changes, skip bool, err error)) (Changes, error) {
	for attempt := 1; ; attempt++ {
		base, err := db.EvidenceHead(ctx)
		if err != nil {
			return Changes{}, err
		}
		c, skip, err := compute()
		if err != nil || skip {
			return c, err
		}
		c.Base, c.Guard = base, true
		err = db.ApplyEvidence(ctx, c)
		if errors.Is(err, ErrMoved) && attempt < maxAttempts {
			continue
		}
		return c, err
	}
}

// record tracks run's exceptions and builds its manifest: the changes to
// apply and what they will have done.
func record(ctx context.Context, db Store, run RunInfo, c *Check) (*Result, Changes, error) {
	at := c.Now().Truncate(time.Millisecond)
	t, err := track(ctx, db, run, at, c.Summary.Fees != nil)
	if err != nil {
		return nil, Changes{}, err
	}
	m, err := buildManifest(ctx, db, run, c, at, t.unsettledDays())
	if err != nil {
		return nil, Changes{}, err
	}
	js, err := m.File()
	if err != nil {
		return nil, Changes{}, err
	}
	t.c.Manifest = &StoredManifest{RunID: run.ID, From: run.From, To: run.To, Digest: m.Digest, Verdict: m.Verdict,
		Created: at, JSON: js}
	return &Result{Manifest: m, Counts: t.n}, t.c, nil
}

// unsettledDays are the days of the run's unsettled orders.
func (t *tracker) unsettledDays() []string {
	var out []string
	for _, f := range t.found {
		if f.Kind == KindUnsettled {
			out = append(out, f.Day())
		}
	}
	return out
}

// buildManifest builds and digests the manifest of run.
func buildManifest(ctx context.Context, db Store, run RunInfo, c *Check, at time.Time, unsettled []string) (*Manifest, error) {
	m := &Manifest{RunID: run.ID, Version: c.Version, Period: Period{From: run.From, To: run.To, AsOf: run.AsOf},
		CreatedAt: at.In(recon.IST).Format(time.RFC3339), Settings: c.Settings}
	m.Settings.Rules = RulesVersion
	var err error
	if m.SettingsHash, err = SettingsDigest(m.Settings); err != nil {
		return nil, err
	}
	period, err := periodDays(run.From, run.To)
	if err != nil {
		return nil, err
	}
	pre := &early{}
	if c.Inputs.of(run.From, run.To) {
		if pre, err = c.Inputs.current(ctx, db); err != nil {
			return nil, err
		}
	}
	in, err := gatherInputs(ctx, db, run.From, run.To, orderDaysOf(period, unsettled), true, pre.statement)
	if err != nil {
		return nil, err
	}
	m.Inputs = in.list
	m.Totals = Totals{Fetched: c.Fetched, Stored: in.stored, Checked: checkedOf(&c.Summary), Imported: pre.imported}
	if m.Totals.Imported == nil {
		if m.Totals.Imported, err = importedTotals(ctx, db, run.From, run.To); err != nil {
			return nil, err
		}
	}
	if m.Completeness, err = completeness(ctx, db, run.From, run.To); err != nil {
		return nil, err
	}
	m.Verdict = Verdict(&m.Completeness, c.Findings)
	if m.Digest, err = m.ComputeDigest(); err != nil {
		return nil, err
	}
	return m, nil
}
