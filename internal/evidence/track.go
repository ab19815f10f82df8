package evidence

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Counts are what a run did to the exceptions.
type Counts struct {
	New      int `json:"new"`      // found for the first time
	Carried  int `json:"carried"`  // found again (open, explained, written off)
	Reopened int `json:"reopened"` // found again after they were resolved (counted in Carried too)
	Resolved int `json:"resolved"` // open ones of its period it no longer found
}

// tracker works out what a run changes of the exceptions.
type tracker struct {
	run    RunInfo
	priced bool // the run checked the fees (a rate card): it may resolve fee findings
	at     time.Time
	all    map[string]*Exception // by kind|key
	ids    map[string]string     // id -> kind|key
	found  map[string]*Finding   // this run's, by kind|key
	last   map[string]string     // the day of each identity's last row found
	c      Changes
	n      Counts
}

// track reads the run's findings and the exceptions, and returns the
// changes: a finding never seen is a new exception (event seen); one seen
// before moves its last sighting (a resolved one is reopened, event
// reopened; explained and written-off ones stay so); an open exception
// the run covers (see covers) and did not find is resolved (event
// resolved). Every exception the run found gets a sighting. priced says
// the run checked the fees against a rate card: one that did not never
// resolves a fee finding (it could not have found it).
func track(ctx context.Context, db Store, run RunInfo, at time.Time, priced bool) (*tracker, error) {
	t := &tracker{run: run, priced: priced, at: at, all: map[string]*Exception{}, ids: map[string]string{}, found: map[string]*Finding{}, last: map[string]string{},
		c: Changes{Read: map[string]LastSighting{}}}
	for f, err := range db.EvidenceFindings(ctx, run.ID) {
		if err != nil {
			return nil, fmt.Errorf("findings of run %d: %w", run.ID, err)
		}
		k := f.Kind + "|" + f.Key()
		if t.found[k] == nil {
			f := f
			t.found[k] = &f
		}
		t.last[k] = max(t.last[k], f.Day())
	}
	for e, err := range db.Exceptions(ctx) {
		if err != nil {
			return nil, fmt.Errorf("exceptions: %w", err)
		}
		e := e
		t.all[e.Kind+"|"+e.Key] = &e
		t.ids[e.ID] = e.Kind + "|" + e.Key
		t.c.Read[e.ID] = lastSighting(&e)
	}
	keys := make([]string, 0, len(t.found))
	for k := range t.found {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.sighted(k, t.found[k])
	}
	t.resolve()
	if err := t.arrived(ctx, db); err != nil {
		return nil, err
	}
	return t, nil
}

// sighted records that the run found f (identity k).
func (t *tracker) sighted(k string, f *Finding) {
	e := t.all[k]
	if e == nil {
		e = &Exception{ID: t.newID(f.Kind, f.Key(), k), Kind: f.Kind, Key: f.Key(), Day: f.Day(), Status: StatusOpen,
			FirstSeen: t.at, FirstRun: t.run.ID, FirstTo: t.run.To}
		t.seen(e, f, t.last[k])
		t.c.New = append(t.c.New, *e)
		t.c.Events = append(t.c.Events, t.event(e.ID, ActionSeen, e.Detail))
		t.n.New++
	} else {
		t.seen(e, f, t.last[k])
		if e.Status == StatusResolved {
			e.Status = StatusOpen
			t.c.Events = append(t.c.Events, t.event(e.ID, ActionReopened, e.Detail))
			t.n.Reopened++
		}
		t.c.Update = append(t.c.Update, *e)
		t.n.Carried++
	}
	t.c.Sightings = append(t.c.Sightings, Sighting{RunID: t.run.ID, ExceptionID: e.ID})
}

// seen moves e's last sighting to this run, with f's amount and text and
// the day of its last row, lastDay.
func (t *tracker) seen(e *Exception, f *Finding, lastDay string) {
	e.LastSeen, e.LastRun, e.LastFrom, e.LastTo, e.LastDay = t.at, t.run.ID, t.run.From, t.run.To, lastDay
	e.Amount = recon.Money(f.Amount)
	e.Detail = detailOf(f)
}

// newID is the id of a new exception: IDOf with 10 hex digits, more when
// another identity has those.
func (t *tracker) newID(kind, key, k string) string {
	for n := idLen; ; n += 2 {
		id := IDOf(kind, key, n)
		if other, ok := t.ids[id]; !ok || other == k || n >= 64 {
			t.ids[id] = k
			return id
		}
	}
}

// keys are the identities of every exception, sorted.
func (t *tracker) keys() []string {
	keys := make([]string, 0, len(t.all))
	for k := range t.all {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// resolve resolves the open exceptions the run covers and did not find.
func (t *tracker) resolve() {
	for _, k := range t.keys() {
		e := t.all[k]
		if e.Status != StatusOpen || t.found[k] != nil || !covers(t.run, e) || isFee(e.Kind) && !t.priced {
			continue
		}
		e.Status = StatusResolved
		t.c.Update = append(t.c.Update, *e)
		t.c.Events = append(t.c.Events, t.event(e.ID, ActionResolved, "not found by run "+fmt.Sprint(t.run.ID)))
		t.n.Resolved++
	}
}

// covers reports whether run would have found e if it were still there:
// the run's period holds e's rows, from its day to the day of its last
// row (an unsettled order: any day up to its end, as the check ages them
// all), and starts no later than the period of the last run that found
// it, so that a narrower period (one day of a month, which cannot see a
// debit twice across days or a gap at its start) never resolves what a
// wider one found.
func covers(run RunInfo, e *Exception) bool {
	if max(e.Day, e.LastDay) > run.To || run.From > e.LastFrom {
		return false
	}
	return e.Kind == KindUnsettled || e.Day >= run.From
}

// event is an event of svcrecon's own, of this run.
func (t *tracker) event(id, action, note string) Event {
	return Event{ExceptionID: id, RunID: t.run.ID, At: t.at, By: Actor, Action: action, Note: note}
}

// detailOf says what a finding is in a line: its operation or record, its
// time and its note.
func detailOf(f *Finding) string {
	var parts []string
	if f.Operation != "" {
		parts = append(parts, f.Operation)
	}
	if f.SvcOrderID != "" && f.SvcOrderID != f.Key() && f.Kind != KindCallOnly && f.Kind != KindPending {
		parts = append(parts, f.SvcOrderID)
	}
	switch {
	case f.TS != "" && len(parts) > 0:
		parts = append(parts, "at "+f.TS)
	case f.TS != "":
		parts = append(parts, f.TS)
	}
	s := strings.Join(parts, " ")
	if f.Text != "" {
		if s != "" {
			s += ": "
		}
		s += f.Text
	}
	return s
}
