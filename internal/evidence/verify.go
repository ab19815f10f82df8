package evidence

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/svcrecon/svcrecon/internal/budget"
)

// VerifyLine is one line of a verification: what was checked and, when it
// differs, how.
type VerifyLine struct {
	What string
	OK   bool
	Note string // how it differs; or why it could not be checked (Skipped)
	// Skipped says it could not be checked (a file not found): no
	// difference.
	Skipped bool
}

// Verification is what Verify found, line by line.
type Verification struct{ Lines []VerifyLine }

func (v *Verification) add(what string, ok bool, note string) {
	v.Lines = append(v.Lines, VerifyLine{What: what, OK: ok, Note: note})
}

func (v *Verification) skip(what, why string) {
	v.Lines = append(v.Lines, VerifyLine{What: what, Note: why, Skipped: true})
}

// VerifyChain recomputes the chain of events from the first and reports
// the first link that does not hold; then checks that each manifest's
// head is in the chain, and that each exception's status and assignee are
// what its events say.
func VerifyChain(ctx context.Context, db Store, v *Verification) error {
	c := &chainChecker{}
	heads := map[int64]string{}
	state := map[string]*Exception{}
	for e, err := range db.Events(ctx, EventFilter{}) {
		if err != nil {
			v.add("event history", false, fmt.Sprintf("after event %d: %v", c.seq, err))
			return nil
		}
		if b := c.next(&e); b != nil {
			v.add("event history", false, b.Error())
			return nil
		}
		heads[e.Seq] = e.Hash
		replay(state, &e)
	}
	v.add(fmt.Sprintf("event history: %d events", c.n), true, "")
	ms, err := db.Manifests(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.HeadSeq > 0 && heads[m.HeadSeq] != m.HeadHash {
			v.add(fmt.Sprintf("run %d: events up to %d", m.RunID, m.HeadSeq), false,
				"the history no longer holds the events recorded with the run (rewritten?)")
		}
	}
	return checkStates(ctx, db, state, v)
}

// replay applies an event to the state its exception's events give.
func replay(state map[string]*Exception, e *Event) {
	if e.ExceptionID == "" {
		return
	}
	s := state[e.ExceptionID]
	if s == nil {
		s = &Exception{ID: e.ExceptionID}
		state[e.ExceptionID] = s
	}
	switch e.Action {
	case ActionSeen, ActionReopened:
		s.Status = StatusOpen
	case ActionResolved:
		s.Status = StatusResolved
	case ActionExplained, ActionWrittenOff:
		s.Status = e.Action
	case ActionAssigned:
		s.Assignee = e.Data
	}
}

// checkStates compares each exception with what its events say, and
// finds an exception its events record that has no row (deleted).
func checkStates(ctx context.Context, db Store, state map[string]*Exception, v *Verification) error {
	n := 0
	rows := map[string]bool{}
	for e, err := range db.Exceptions(ctx) {
		if err != nil {
			return err
		}
		rows[e.ID] = true
		s := state[e.ID]
		switch {
		case s == nil:
			v.add("exception "+e.ID, false, "no event records it (inserted by hand?)")
		case s.Status != e.Status || s.Assignee != e.Assignee:
			v.add("exception "+e.ID, false, fmt.Sprintf("says %s/%q, its events say %s/%q (edited by hand?)",
				e.Status, e.Assignee, s.Status, s.Assignee))
		default:
			n++
		}
	}
	for _, id := range slices.Sorted(maps.Keys(state)) {
		if !rows[id] {
			v.add("exception "+id, false, "its events record it, the database has no row of it (deleted by hand?)")
		}
	}
	v.add(fmt.Sprintf("exceptions: %d agree with their events", n), true, "")
	return nil
}

// VerifyManifest checks a manifest.json against itself, the files beside
// it and the database: its digest, its settings hash, the database's copy
// of it, every input it can recompute (call-log files found at their
// name or path, statement and order days from the database) and the
// exported files beside it. A call-log file is looked up at its name (a
// relative one from the working directory), then at its absolute path.
func VerifyManifest(ctx context.Context, db Store, path string, v *Verification) error {
	b, err := budget.ReadFile(path, maxManifest, "a manifest")
	if err != nil {
		return err
	}
	m, err := ParseManifest(b)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if js, err := m.File(); err == nil && !bytes.Equal(js, b) {
		v.add("manifest.json as written", false, "it is not as svcrecon wrote it: keys added, repeated or reordered, or white space changed")
	}
	if err := verifyDigests(ctx, db, m, v); err != nil {
		return err
	}
	if err := verifyInputs(ctx, db, m, v); err != nil {
		return err
	}
	verifyRateCard(m, v)
	verifyExport(m, filepath.Dir(path), v)
	return nil
}

// verifyDigests checks the manifest's digest, its settings hash and the
// database's copy.
func verifyDigests(ctx context.Context, db Store, m *Manifest, v *Verification) error {
	d, err := m.ComputeDigest()
	if err != nil {
		return err
	}
	v.add(fmt.Sprintf("run %d: manifest digest %s", m.RunID, short(m.Digest)), d == m.Digest, "recomputed "+d)
	sh, err := SettingsDigest(m.Settings)
	if err != nil {
		return err
	}
	v.add("settings hash", sh == m.SettingsHash, "recomputed "+sh)
	sm, ok, err := db.Manifest(ctx, m.RunID)
	switch {
	case err != nil:
		return err
	case !ok:
		v.add(fmt.Sprintf("run %d in the database", m.RunID), false, "the database holds no manifest of this run (another database?)")
	default:
		v.add(fmt.Sprintf("run %d in the database", m.RunID), sm.Digest == m.Digest, "the database's manifest has digest "+sm.Digest)
		if kept, err := ParseManifest(sm.JSON); err == nil && kept.Export != nil && m.Export == nil {
			v.add("export section", false, "manifest.json has none, the database's copy records the export of "+kept.Export.At+" (cut from the file?)")
		}
	}
	return nil
}

// verifyInputs recomputes the inputs the manifest names.
func verifyInputs(ctx context.Context, db Store, m *Manifest, v *Verification) error {
	var orderDays []string
	for _, in := range m.Inputs {
		if in.Kind == InputOrdersDay {
			orderDays = append(orderDays, in.Name)
		}
	}
	now, err := gatherInputs(ctx, db, m.Period.From, m.Period.To, orderDays, false, nil) // every record, not the kept digests
	if err != nil {
		return err
	}
	// The days, and the calls kept in the database, are recomputed from
	// the database; call-log files from the files.
	fromDB := map[string]Input{}
	for _, in := range now.list {
		if in.Path == "" {
			fromDB[in.Kind+" "+in.Name] = in
		}
	}
	for _, in := range m.Inputs {
		what := in.Kind + " " + in.Name
		if in.Path != "" {
			verifyFile(in, v)
			continue
		}
		got := fromDB[what]
		n, was := got.Records, in.Records
		if in.Kind == InputCallLog {
			n, was = got.Lines, in.Lines
		}
		v.add(what, got.SHA256 == in.SHA256, fmt.Sprintf("the database's rows now digest to %s (%d, was %d)", short(got.SHA256), n, was))
	}
	return nil
}

// verifyFile hashes a call-log file, found at its name or its path.
func verifyFile(in Input, v *Verification) {
	what := in.Kind + " " + in.Name
	for _, p := range []string{in.Name, in.Path} {
		sum, n, err := fileSHA256(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			v.add(what, false, err.Error())
			return
		}
		v.add(what, sum == in.SHA256, fmt.Sprintf("%s now has sha256 %s (%d bytes, was %d): it changed since the import", p, short(sum), n, in.Bytes))
		return
	}
	v.skip(what, "not found at "+in.Name+" or "+in.Path)
}

// verifyExport hashes the exported files found beside the manifest.
func verifyExport(m *Manifest, dir string, v *Verification) {
	if m.Export == nil {
		return
	}
	if d, err := exportDigest(m.Digest, m.Export); err == nil {
		v.add("export digest "+short(m.Export.Digest), d == m.Export.Digest, "recomputed "+d)
	}
	for _, f := range m.Export.Files {
		sum, _, err := fileSHA256(filepath.Join(dir, f.Name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			v.skip("exported "+f.Name, "not beside the manifest")
		case err != nil:
			v.add("exported "+f.Name, false, err.Error())
		default:
			v.add("exported "+f.Name, sum == f.SHA256, "now has sha256 "+sum+" (edited or rewritten since)")
		}
	}
}

// maxManifest is the most a manifest.json may hold (a year of days and a
// file per day take some hundred KiB).
const maxManifest = 16 << 20

// fileSHA256 is the SHA-256 (hex) and size of a file: a regular file (a
// FIFO or a device would never end).
func fileSHA256(path string) (string, int64, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// short is the first 12 hex digits of a digest.
func short(d string) string {
	if len(d) > 12 {
		return d[:12] + "…"
	}
	return d
}
