package evidence

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// What can be missing of a day.
const (
	MissingWalk    = "statement walk"     // the day's statement was not walked to the end
	MissingOrders  = "collect-order walk" // the period's collect orders are synced, but not the day's to the end
	MissingCallLog = "call log"           // no call log reaches past the day's end
)

// Completeness says whether every day of the period was complete before
// the check: a day is complete when its statement walk finished (every
// window of the day done), its collect-order walk too when the period's
// collect orders are synced at all (a window of any of its days: the
// unsettled orders are read from them; a database never given collect
// orders has none to lack), and the call logs cover it. The call logs cover
// a day when a call logged after the day's end (IST midnight) was
// imported from a client's log (or is a pool call of svcrecon's own, as
// bulkrun makes), or when an import declared them complete through that
// day (import-calls --complete-through).
type Completeness struct {
	Complete bool      `json:"complete"`
	Missing  []Missing `json:"missing"`
	// CallLogsThrough is the last day the call logs cover ("" none).
	CallLogsThrough string `json:"callLogsThrough"`
}

// Missing is what one day lacks.
type Missing struct {
	Day  string `json:"day"`
	What string `json:"what"` // MissingWalk, MissingOrders or MissingCallLog
}

// completeness judges the days from..to.
func completeness(ctx context.Context, db Store, from, to string) (Completeness, error) {
	c := Completeness{Missing: []Missing{}}
	days, err := periodDays(from, to)
	if err != nil {
		return c, err
	}
	for _, k := range []recon.Kind{recon.Statement, recon.Orders} {
		walks, err := db.EvidenceDayWalks(ctx, k, from, to)
		if err != nil {
			return c, fmt.Errorf("%s walks: %w", k, err)
		}
		what := MissingWalk
		if k == recon.Orders {
			if len(walks) == 0 {
				continue // collect orders never synced for the period
			}
			what = MissingOrders
		}
		done := map[string]bool{}
		for _, w := range walks {
			done[w.Day] = w.Windows > 0 && w.Done == w.Windows
		}
		for _, d := range days {
			if !done[d] {
				c.Missing = append(c.Missing, Missing{d, what})
			}
		}
	}
	if c.CallLogsThrough, err = coveredThrough(ctx, db); err != nil {
		return c, err
	}
	for _, d := range days {
		if c.CallLogsThrough == "" || d > c.CallLogsThrough {
			c.Missing = append(c.Missing, Missing{d, MissingCallLog})
		}
	}
	c.Complete = len(c.Missing) == 0
	return c, nil
}

// coveredThrough is the last day the call logs cover: the day before the
// latest call logged, or the latest day declared, whichever is later.
func coveredThrough(ctx context.Context, db Store) (string, error) {
	last, err := db.EvidenceLastCall(ctx)
	if err != nil {
		return "", fmt.Errorf("latest call: %w", err)
	}
	through := ""
	if len(last) >= len(recon.DateLayout) {
		if d, err := time.Parse(recon.DateLayout, last[:len(recon.DateLayout)]); err == nil {
			through = d.AddDate(0, 0, -1).Format(recon.DateLayout)
		}
	}
	declared, err := db.EvidenceCoverage(ctx)
	if err != nil {
		return "", fmt.Errorf("declared coverage: %w", err)
	}
	return max(through, declared), nil
}

// Describe says what is missing in a few words, consecutive days of one
// kind as a range: "2026-11-29..2026-11-30 call log, 2026-11-28 statement
// walk". "" when the period is complete.
func (c *Completeness) Describe() string {
	var parts []string
	for _, what := range []string{MissingWalk, MissingOrders, MissingCallLog} {
		var first, last string
		flush := func() {
			switch {
			case first == "":
			case first == last:
				parts = append(parts, first+" "+what)
			default:
				parts = append(parts, first+".."+last+" "+what)
			}
		}
		for _, m := range c.Missing {
			if m.What != what {
				continue
			}
			if first != "" && daysBetween(last, m.Day) == 1 {
				last = m.Day
				continue
			}
			flush()
			first, last = m.Day, m.Day
		}
		flush()
	}
	return strings.Join(parts, ", ")
}

// Verdict is the verdict of a run whose findings the Summary words as
// findings ("Reconciled", "Not reconciled: …", "Nothing to reconcile: …"):
// the same when the period is complete; else "Incomplete: " and what is
// missing, then what was found: "Incomplete: 2026-11-30 call log; 35.50
// unexplained in 2 breaks".
func Verdict(c *Completeness, findings string) string {
	if c == nil || c.Complete {
		return findings
	}
	rest := strings.TrimPrefix(findings, "Not reconciled: ")
	if r, ok := strings.CutPrefix(findings, "Reconciled"); ok {
		rest = "nothing else to review" + r
	}
	return "Incomplete: " + c.Describe() + "; " + rest
}
