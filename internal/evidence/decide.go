package evidence

import (
	"context"
	"fmt"
	"time"
)

// RefusedError is a decision or a sign-off that the rules refuse: the
// history is left as it was.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

func refused(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// Decision is what a person decides about an exception: a status
// (explained or written-off; "" keeps it), an assignee (nil keeps it, ""
// unassigns) and a note.
type Decision struct {
	ID       string
	Status   string
	Assignee *string
	Note     string
	By       string
	At       time.Time
	RunID    int64 // the run it was decided on (a workbook's); 0 for none
}

// plan applies d to e and returns the events it makes: assigned when the
// assignee changes; explained or written-off when the status or its note
// changes; note when only the note does. None when nothing changes.
func plan(e *Exception, d *Decision) ([]Event, error) {
	ev := func(action, note, data string) Event {
		return Event{ExceptionID: e.ID, RunID: d.RunID, At: d.At, By: d.By, Action: action, Note: note, Data: data}
	}
	var out []Event
	if d.Assignee != nil && *d.Assignee != e.Assignee {
		e.Assignee = *d.Assignee
		out = append(out, ev(ActionAssigned, "", e.Assignee))
	}
	switch d.Status {
	case "":
		if d.Note != "" && d.Note != e.Note {
			e.Note = d.Note
			out = append(out, ev(ActionNote, d.Note, ""))
		}
	case StatusExplained, StatusWrittenOff:
		if e.Status == StatusResolved {
			return nil, refused("%s is resolved: run %d no longer found it; nothing to decide", e.ID, e.LastRun)
		}
		if d.Note == "" {
			return nil, refused("%s: a decision needs a note (--note) saying why", e.ID)
		}
		if e.Status != d.Status || e.Note != d.Note {
			e.Status, e.Note = d.Status, d.Note
			out = append(out, ev(d.Status, d.Note, ""))
		}
	default:
		return nil, refused("%s: decision %q: want %s or %s", e.ID, d.Status, StatusExplained, StatusWrittenOff)
	}
	return out, nil
}

// Decide records d as events by d.By and returns them (none when d
// changes nothing). A decision the rules refuse is a *RefusedError.
func Decide(ctx context.Context, db Store, d Decision) ([]Event, error) {
	if d.By == "" {
		return nil, refused("who decides? (--by)")
	}
	d.At = d.At.Truncate(time.Millisecond)
	c, err := guarded(ctx, db, func() (Changes, bool, error) {
		e, ok, err := db.Exception(ctx, d.ID)
		if err != nil {
			return Changes{}, false, err
		}
		if !ok {
			return Changes{}, false, refused("no exception %s (see reconcile exceptions list --status all)", d.ID)
		}
		read := map[string]LastSighting{e.ID: lastSighting(&e)}
		evs, err := plan(&e, &d)
		if err != nil || len(evs) == 0 {
			return Changes{}, true, err
		}
		return Changes{Update: []Exception{e}, Events: evs, Read: read}, false, nil
	})
	if err != nil {
		return nil, err
	}
	return c.Events, nil
}
