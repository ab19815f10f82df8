package evidence

import (
	"context"
	"fmt"
	"strings"
)

// A timing exception (a call at the period's end whose record the next
// day's statement should bring, or a record at its start whose call the
// day before's log should) is resolved when its other side arrives: a run
// whose period holds its day or a day next to it (the next night's) asks
// the store whether the record (the call) is stored now. A run that holds
// its day resolves it as any other exception, when it no longer finds it
// (the call matched across midnight; or, its other side never come, found
// as callOnly or statementOnly instead).

// The prefixes of a timing exception's key: the side that is there.
const (
	timingCall   = "call "
	timingRecord = "record "
)

// arrived resolves the open timing exceptions the run did not find whose
// other side is stored now, for a run next to their day.
func (t *tracker) arrived(ctx context.Context, db Store) error {
	for _, k := range t.keys() {
		e := t.all[k]
		if e.Kind != KindTiming || e.Status != StatusOpen || t.found[k] != nil || covers(t.run, e) ||
			daysBetween(e.Day, t.run.From) > 1 || daysBetween(t.run.To, e.Day) > 1 {
			continue
		}
		side, what, ok := otherSide(ctx, db, e.Key)
		if !ok {
			continue
		}
		there, err := side()
		if err != nil {
			return fmt.Errorf("timing exception %s: %w", e.ID, err)
		}
		if !there {
			continue
		}
		e.Status = StatusResolved
		t.c.Update = append(t.c.Update, *e)
		t.c.Events = append(t.c.Events, t.event(e.ID, ActionResolved, what+" arrived, seen by run "+fmt.Sprint(t.run.ID)))
		t.n.Resolved++
	}
	return nil
}

// otherSide is the question that tells whether the other side of a timing
// exception with key is stored, and what that side is; ok false for a key
// that names no side to look for (a call that lost both its keys).
func otherSide(ctx context.Context, db Store, key string) (ask func() (bool, error), what string, ok bool) {
	if call, isCall := strings.CutPrefix(key, timingCall); isCall {
		if order, byOrder := strings.CutPrefix(call, "orderid "); byOrder {
			return func() (bool, error) { return db.EvidenceRecordArrived(ctx, order, "") }, "its record", true
		}
		if strings.Contains(call, " ") {
			return nil, "", false
		}
		return func() (bool, error) { return db.EvidenceRecordArrived(ctx, "", call) }, "its record", true
	}
	if svc, isRec := strings.CutPrefix(key, timingRecord); isRec && svc != "" {
		return func() (bool, error) { return db.EvidenceCallArrived(ctx, svc) }, "its call", true
	}
	return nil, "", false
}
