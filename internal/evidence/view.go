package evidence

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Lives of an exception in a run's reports.
const (
	LifeNew      = "new"
	LifeResolved = "resolved since last run"
)

// Row is an exception as a run's reports show it.
type Row struct {
	Exception
	// Life is LifeNew, "open since DATE (N days)" (DATE the last day of
	// the first run that found it, N the days from then to this run's
	// last day) or LifeResolved.
	Life    string
	AgeDays int
}

// Decision is the row's decision: its status when explained or written
// off, else "".
func (r *Row) Decision() string {
	if r.Status == StatusExplained || r.Status == StatusWrittenOff {
		return r.Status
	}
	return ""
}

// View is what a run's workbook shows of its evidence.
type View struct {
	RunID int64
	From  string
	To    string
	// Manifest is the run's manifest; nil for a run checked before
	// manifests were kept.
	Manifest *Manifest
	// Rows are the exceptions the run found (by kind and key), then those
	// it resolved.
	Rows     []Row
	Counts   Counts
	SignOffs []SignOffState // of the runs whose period overlaps this one's
	byKey    map[string]*Row
}

// Digest is the run's manifest digest ("" without a manifest).
func (v *View) Digest() string {
	if v == nil || v.Manifest == nil {
		return ""
	}
	return v.Manifest.Digest
}

// Lookup returns the exception of a finding the run found and its life
// ("", "" for none: a matched row, an explained gap).
func (v *View) Lookup(f *Finding) (id, life string) {
	if v == nil {
		return "", ""
	}
	if r := v.byKey[f.Kind+"|"+f.Key()]; r != nil {
		return r.ID, r.Life
	}
	return "", ""
}

// Workbook reads the evidence of run runID for its workbook: its
// manifest, its exceptions with their lives, what it resolved and the
// sign-offs of the runs of overlapping periods (stale or not).
func Workbook(ctx context.Context, db Store, runID int64) (*View, error) {
	run, ok, err := db.EvidenceRun(ctx, runID)
	if err != nil || !ok {
		return nil, fmt.Errorf("evidence of run %d: %w (found %v)", runID, err, ok)
	}
	v := &View{RunID: runID, From: run.From, To: run.To, byKey: map[string]*Row{}}
	sm, ok, err := db.Manifest(ctx, runID)
	if err != nil {
		return nil, err
	}
	if ok {
		if v.Manifest, err = ParseManifest(sm.JSON); err != nil {
			return nil, fmt.Errorf("manifest of run %d: %w", runID, err)
		}
	}
	if err := v.rows(ctx, db, run); err != nil {
		return nil, err
	}
	if v.SignOffs, err = SignOffs(ctx, db, func(r StoredManifest) bool { return r.From <= run.To && r.To >= run.From }); err != nil {
		return nil, err
	}
	return v, nil
}

// rows reads the run's exceptions and the ones it resolved.
func (v *View) rows(ctx context.Context, db Store, run RunInfo) error {
	seen, err := db.Sightings(ctx, run.ID)
	if err != nil {
		return err
	}
	for _, id := range seen {
		e, ok, err := db.Exception(ctx, id)
		if err != nil || !ok {
			return fmt.Errorf("exception %s of run %d: %w (found %v)", id, run.ID, err, ok)
		}
		r := Row{Exception: e, Life: LifeNew, AgeDays: daysBetween(e.FirstTo, run.To)}
		if e.FirstRun == run.ID {
			v.Counts.New++
		} else {
			r.Life = fmt.Sprintf("open since %s (%d days)", e.FirstTo, r.AgeDays)
			v.Counts.Carried++
		}
		v.Rows = append(v.Rows, r)
	}
	sort.SliceStable(v.Rows, func(i, j int) bool { return rowLess(&v.Rows[i], &v.Rows[j]) })
	for i := range v.Rows {
		v.byKey[v.Rows[i].Kind+"|"+v.Rows[i].Key] = &v.Rows[i]
	}
	var resolved []Row
	for ev, err := range db.Events(ctx, EventFilter{RunID: run.ID}) {
		if err != nil {
			return err
		}
		if ev.Action != ActionResolved || ev.ExceptionID == "" {
			continue
		}
		e, ok, err := db.Exception(ctx, ev.ExceptionID)
		if err != nil || !ok {
			return fmt.Errorf("exception %s: %w (found %v)", ev.ExceptionID, err, ok)
		}
		resolved = append(resolved, Row{Exception: e, Life: LifeResolved, AgeDays: daysBetween(e.FirstTo, e.LastTo)})
	}
	sort.SliceStable(resolved, func(i, j int) bool { return rowLess(&resolved[i], &resolved[j]) })
	v.Counts.Resolved = len(resolved)
	v.Rows = append(v.Rows, resolved...)
	return nil
}

// rowLess orders rows the way finance reads them: by kind, then day, then key.
func rowLess(a, b *Row) bool {
	ka, kb := kindOrder(a.Kind), kindOrder(b.Kind)
	if ka != kb {
		return ka < kb
	}
	if a.Day != b.Day {
		return a.Day < b.Day
	}
	return a.Key < b.Key
}

func kindOrder(k string) int {
	for i, x := range Kinds {
		if x == k {
			return i
		}
	}
	return len(Kinds)
}

// SeenIST is a time of the evidence as the reports show it: RFC 3339 with
// the IST offset ("" for none).
func SeenIST(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(recon.IST).Format(time.RFC3339)
}
