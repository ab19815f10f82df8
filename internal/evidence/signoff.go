package evidence

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Sign-off roles.
const (
	RolePreparer = "preparer"
	RoleApprover = "approver"
)

// SignOff is a sign-off asked for: run RunID, as Role, by By.
type SignOff struct {
	RunID int64
	Role  string
	By    string
	Note  string
	At    time.Time
}

// SignOffState is a sign-off as recorded, and whether it still holds: it
// is stale when the inputs of its run's period changed since (a re-sync
// that altered a day, a call log imported later), or the run's manifest is
// no longer the one signed; it is superseded when a newer check of the
// same period replaced its run.
type SignOffState struct {
	Seq      int64
	RunID    int64
	From, To string
	Role     string
	By       string
	At       time.Time
	Note     string
	Digest   string   // the manifest digest signed
	Stale    []string // what changed since; none while it holds
	// SupersededBy is the latest run of the same period that replaced the
	// run signed (0: none); Stale then says so first.
	SupersededBy int64
}

// State is "valid", "superseded by run N" (and "; stale: " and what else
// changed), or "stale: " and what changed.
func (s *SignOffState) State() string {
	if s.SupersededBy != 0 {
		out := fmt.Sprintf("superseded by run %d", s.SupersededBy)
		if len(s.Stale) > 1 {
			out += "; stale: " + joinShort(s.Stale[1:], 3)
		}
		return out
	}
	if len(s.Stale) == 0 {
		return "valid"
	}
	return "stale: " + joinShort(s.Stale, 3)
}

// joinShort joins the first n of parts, and says how many more there are.
func joinShort(parts []string, n int) string {
	out := ""
	for i, p := range parts {
		if i == n {
			return out + fmt.Sprintf(" and %d more", len(parts)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

// Sign records a sign-off of a run bound to its manifest's digest. It is
// refused (*RefusedError) for a run without a manifest, for a run a newer
// check of its period superseded, for a run whose period is incomplete,
// when the run's inputs changed since its check (check it again), for a role already
// signed, for an approver before a preparer, and for an approver who
// prepared the run (names compared as SameSigner does). The name is kept
// as given, trimmed of surrounding white space.
func Sign(ctx context.Context, db Store, s SignOff) (Event, error) {
	s.By = strings.TrimSpace(s.By)
	if s.By == "" {
		return Event{}, refused("who signs? (--by)")
	}
	if s.Role != RolePreparer && s.Role != RoleApprover {
		return Event{}, refused("--as %q: want %s or %s", s.Role, RolePreparer, RoleApprover)
	}
	sm, err := signable(ctx, db, s.RunID)
	if err != nil {
		return Event{}, err
	}
	action := ActionSignoffPreparer
	if s.Role == RoleApprover {
		action = ActionSignoffApprover
	}
	c, err := guarded(ctx, db, func() (Changes, bool, error) { // two signing at once: the second sees the first
		states, err := SignOffs(ctx, db, func(m StoredManifest) bool { return m.RunID == s.RunID })
		if err != nil {
			return Changes{}, false, err
		}
		if err := allowed(s, states); err != nil {
			return Changes{}, false, err
		}
		ev := Event{RunID: s.RunID, At: s.At.Truncate(time.Millisecond), By: s.By, Action: action, Note: s.Note, Data: sm.Digest}
		return Changes{Events: []Event{ev}}, false, nil
	})
	if err != nil {
		return Event{}, err
	}
	return c.Events[0], nil
}

// signable returns the manifest of run, or why the run cannot be signed:
// it has no manifest, a newer check of its period superseded it, its
// period is incomplete, or its inputs changed since its check.
func signable(ctx context.Context, db Store, run int64) (StoredManifest, error) {
	sm, ok, err := db.Manifest(ctx, run)
	if err != nil {
		return sm, err
	}
	if !ok {
		return sm, refused("run %d has no manifest (it was not checked by this version, or there is no such run): check its period again", run)
	}
	by, err := supersededBy(ctx, db, run)
	if err != nil {
		return sm, err
	}
	if by != 0 {
		return sm, refused("run %d is superseded by run %d, a newer check of %s..%s: sign run %d", run, by, sm.From, sm.To, by)
	}
	m, err := ParseManifest(sm.JSON)
	if err != nil {
		return sm, fmt.Errorf("manifest of run %d: %w", run, err)
	}
	if !m.Completeness.Complete {
		return sm, refused("run %d is incomplete: %s..%s lacks %s; a period whose figures are incomplete is not signed off: complete it and check it again",
			run, sm.From, sm.To, m.Completeness.Describe())
	}
	stale, err := staleness(ctx, db, &sm, sm.Digest)
	if err != nil {
		return sm, err
	}
	if len(stale) > 0 {
		return sm, refused("run %d is stale: its inputs changed since its check (%s); check %s..%s again and sign the new run",
			run, joinShort(stale, 3), sm.From, sm.To)
	}
	return sm, nil
}

// supersededBy is the latest run of run's period that superseded it (0
// when none did): each run superseded names the one that replaced it.
func supersededBy(ctx context.Context, db Store, run int64) (int64, error) {
	var latest int64
	seen := map[int64]bool{run: true}
	for id := run; ; {
		r, ok, err := db.EvidenceRun(ctx, id)
		if err != nil || !ok || r.SupersededBy == 0 || seen[r.SupersededBy] {
			return latest, err
		}
		latest, id = r.SupersededBy, r.SupersededBy
		seen[id] = true
	}
}

// allowed applies the rules of sign-off to s, given the run's sign-offs.
func allowed(s SignOff, states []SignOffState) error {
	var preparer *SignOffState
	for i := range states {
		st := &states[i]
		if st.Role == s.Role {
			return refused("run %d is %s already by %s (%s)", s.RunID, signedAs(s.Role), st.By, SeenIST(st.At))
		}
		if st.Role == RolePreparer {
			preparer = st
		}
	}
	if s.Role == RoleApprover {
		if preparer == nil {
			return refused("run %d has no preparer yet: it is prepared (--as preparer) before it is approved", s.RunID)
		}
		if SameSigner(preparer.By, s.By) {
			return refused("%s prepared run %d and cannot approve it: the approver must be someone else", preparer.By, s.RunID)
		}
	}
	return nil
}

// SameSigner reports whether two names of signers name one person as far
// as svcrecon can tell: equal once trimmed, runs of white space made one
// space, full-width ASCII forms made ASCII (as NFKC makes them) and case
// folded ("ravi", "Ravi ", "RAVI", "ｒａｖｉ"). Look-alike letters of other
// scripts (a Cyrillic "а") are not folded.
func SameSigner(a, b string) bool {
	return strings.EqualFold(signerKey(a), signerKey(b))
}

// signerKey is name trimmed, its white space collapsed and its full-width
// forms made ASCII.
func signerKey(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= '\uFF01' && r <= '\uFF5E': // full-width ASCII forms
			return r - 0xFEE0
		case unicode.IsSpace(r):
			return ' '
		}
		return r
	}, name)
	return strings.Join(strings.Fields(name), " ")
}

func signedAs(role string) string {
	if role == RoleApprover {
		return "approved"
	}
	return "prepared"
}

// SignOffs lists the sign-offs of the runs whose manifests keep selects,
// in order, each with whether it still holds.
func SignOffs(ctx context.Context, db Store, keep func(StoredManifest) bool) ([]SignOffState, error) {
	var out []SignOffState
	stale, by := map[int64][]string{}, map[int64]int64{}
	for ev, err := range db.Events(ctx, EventFilter{SignOffs: true}) {
		if err != nil {
			return nil, err
		}
		sm, ok, err := db.Manifest(ctx, ev.RunID)
		if err != nil {
			return nil, err
		}
		if !ok || !keep(sm) {
			continue
		}
		st := SignOffState{Seq: ev.Seq, RunID: ev.RunID, From: sm.From, To: sm.To, Role: RolePreparer, By: ev.By,
			At: ev.At, Note: ev.Note, Digest: ev.Data}
		if ev.Action == ActionSignoffApprover {
			st.Role = RoleApprover
		}
		why, ok := stale[ev.RunID]
		if !ok {
			if why, err = staleness(ctx, db, &sm, ev.Data); err != nil {
				return nil, err
			}
			if by[ev.RunID], err = supersededBy(ctx, db, ev.RunID); err != nil {
				return nil, err
			}
			if by[ev.RunID] != 0 {
				why = append([]string{fmt.Sprintf("superseded by run %d", by[ev.RunID])}, why...)
			}
			stale[ev.RunID] = why
		}
		st.Stale, st.SupersededBy = why, by[ev.RunID]
		out = append(out, st)
	}
	return out, nil
}

// staleness says what changed of a run's evidence since digest was
// signed: the manifest kept is another one, or its inputs, recomputed
// now, differ.
func staleness(ctx context.Context, db Store, sm *StoredManifest, digest string) ([]string, error) {
	var why []string
	if sm.Digest != digest {
		why = append(why, "the run's manifest is no longer the one signed")
	}
	m, err := ParseManifest(sm.JSON)
	if err != nil {
		return nil, fmt.Errorf("manifest of run %d: %w", sm.RunID, err)
	}
	var orderDays []string
	for _, in := range m.Inputs {
		if in.Kind == InputOrdersDay {
			orderDays = append(orderDays, in.Name)
		}
	}
	now, err := gatherInputs(ctx, db, m.Period.From, m.Period.To, orderDays, true, nil)
	if err != nil {
		return nil, err
	}
	return append(why, sameInputs(m.Inputs, now.list)...), nil
}
