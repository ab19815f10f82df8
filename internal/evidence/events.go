package evidence

import (
	"fmt"
	"time"
)

// Actions of the events.
const (
	ActionSeen            = "seen"        // a run found a new exception
	ActionResolved        = "resolved"    // a run whose period covers it no longer found it
	ActionReopened        = "reopened"    // a run found a resolved exception again
	ActionExplained       = "explained"   // a decision: explained (note)
	ActionWrittenOff      = "written-off" // a decision: written off (note)
	ActionReopen          = "open"        // a decision taken back: open again (note)
	ActionAssigned        = "assigned"    // data: the assignee ("" unassigns)
	ActionNote            = "note"        // a note alone
	ActionSignoffPreparer = "signoff-preparer"
	ActionSignoffApprover = "signoff-approver"
)

// The statuses of an exception.
const (
	StatusOpen       = "open"
	StatusExplained  = "explained"
	StatusWrittenOff = "written-off"
	StatusResolved   = "resolved"
)

// Statuses lists the statuses, in the order a list shows them.
var Statuses = []string{StatusOpen, StatusExplained, StatusWrittenOff, StatusResolved}

// Actor is who svcrecon's own events are by (a run's seen, resolved,
// reopened).
const Actor = "svcrecon"

// TimeLayout is how evidence times are stored and hashed: RFC 3339 UTC
// with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Event is one row of the append-only history of exceptions and sign-offs.
// Seq, PrevHash and Hash are given when it is appended (Chain).
type Event struct {
	Seq         int64
	ExceptionID string // "" for a sign-off
	RunID       int64  // the run it came from or concerns; 0 for none
	At          time.Time
	By          string
	Action      string
	Note        string
	Data        string // assigned: the assignee; a sign-off: the manifest digest
	PrevHash    string
	Hash        string
}

// canonicalEvent is what an event's hash covers, in this order.
type canonicalEvent struct {
	Seq       int64  `json:"seq"`
	Exception string `json:"exception"`
	Run       int64  `json:"run"`
	At        string `json:"at"`
	By        string `json:"by"`
	Action    string `json:"action"`
	Note      string `json:"note"`
	Data      string `json:"data"`
}

// stamp is a time as events store it.
func stamp(t time.Time) string { return t.UTC().Format(TimeLayout) }

// EventHash is the hash an event must carry: the SHA-256 (hex) of its
// previous hash (hex; "" for the first event) followed by its canonical
// JSON (seq, exception, run, at, by, action, note, data; at as stored).
func EventHash(e *Event) (string, error) {
	b, err := canonical(canonicalEvent{e.Seq, e.ExceptionID, e.RunID, stamp(e.At), e.By, e.Action, e.Note, e.Data})
	if err != nil {
		return "", fmt.Errorf("event %d: %w", e.Seq, err)
	}
	return sha256Hex(e.PrevHash + string(b)), nil
}

// Chain links e after the event seq prev of hash prevHash: the store calls
// it for each event it appends, in its transaction.
func Chain(e *Event, prev int64, prevHash string) error {
	e.Seq, e.PrevHash = prev+1, prevHash
	e.At = e.At.Truncate(time.Millisecond)
	h, err := EventHash(e)
	e.Hash = h
	return err
}

// ChainBreak is the first link of the history that does not hold.
type ChainBreak struct {
	Seq    int64
	Reason string
}

func (b *ChainBreak) Error() string { return fmt.Sprintf("event %d: %s", b.Seq, b.Reason) }

// chainChecker checks the events of the history one after the other.
type chainChecker struct {
	seq  int64
	hash string
	n    int
}

// next checks e, the event after the last one checked; nil when it holds.
func (c *chainChecker) next(e *Event) *ChainBreak {
	switch {
	case e.Seq != c.seq+1:
		return &ChainBreak{e.Seq, fmt.Sprintf("follows event %d: events %d to %d are missing (deleted?)", c.seq, c.seq+1, e.Seq-1)}
	case e.PrevHash != c.hash:
		return &ChainBreak{e.Seq, fmt.Sprintf("its prev_hash is not the hash of event %d (an event before it was edited, deleted or inserted)", c.seq)}
	}
	h, err := EventHash(e)
	if err != nil {
		return &ChainBreak{e.Seq, err.Error()}
	}
	if h != e.Hash {
		return &ChainBreak{e.Seq, "its hash does not match its content (the row was edited)"}
	}
	c.seq, c.hash = e.Seq, e.Hash
	c.n++
	return nil
}
