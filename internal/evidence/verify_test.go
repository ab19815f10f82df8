package evidence_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// differences lists what a verification found different.
func differences(v *evidence.Verification) []string {
	var out []string
	for _, l := range v.Lines {
		if !l.OK && !l.Skipped {
			out = append(out, l.What+": "+l.Note)
		}
	}
	return out
}

// TestVerifyFindsAnEditedEvent edits, deletes and rewrites rows of the
// events table by hand, as someone with the database file could: verify
// reports each.
func TestVerifyFindsAnEditedEvent(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		f.run("2026-11-01", "2026-11-01", finding{recon.CallOnly, "RC1", "", "2026-11-01 10:00:00"},
			finding{recon.StatementOnly, "", "SO2", "2026-11-01 11:00:00"}, finding{recon.StatementOnly, "", "SO3", "2026-11-01 12:00:00"})
		var v evidence.Verification
		if err := evidence.VerifyChain(f.ctx, f.db, &v); err != nil || len(differences(&v)) > 0 {
			t.Fatalf("untouched history: %v %v", differences(&v), err)
		}
		f.exec(`UPDATE evidence_events SET note = 'nothing to see' WHERE seq = 2`)
		v = evidence.Verification{}
		if err := evidence.VerifyChain(f.ctx, f.db, &v); err != nil || len(differences(&v)) == 0 ||
			!strings.Contains(strings.Join(differences(&v), "\n"), "event 2: its hash does not match its content") {
			t.Errorf("an edited note: %v %v", differences(&v), err)
		}
		f.exec(`DELETE FROM evidence_events WHERE seq = 2`)
		v = evidence.Verification{}
		if err := evidence.VerifyChain(f.ctx, f.db, &v); err != nil || !strings.Contains(strings.Join(differences(&v), "\n"), "event 3: follows event 1") {
			t.Errorf("a deleted event: %v %v", differences(&v), err)
		}
	})
}

// TestVerifyFindsAnEditedException edits an exception's status by hand,
// then deletes its row: its events say otherwise.
func TestVerifyFindsAnEditedException(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		f.run("2026-11-01", "2026-11-01", finding{recon.CallOnly, "RC1", "", "2026-11-01 10:00:00"})
		f.exec(`UPDATE exceptions SET status = 'written-off'`)
		var v evidence.Verification
		if err := evidence.VerifyChain(f.ctx, f.db, &v); err != nil || !strings.Contains(strings.Join(differences(&v), "\n"), "says written-off") {
			t.Errorf("verify after editing a status: %v %v", differences(&v), err)
		}
		f.exec(`DELETE FROM exceptions`)
		v = evidence.Verification{}
		if err := evidence.VerifyChain(f.ctx, f.db, &v); err != nil || !strings.Contains(strings.Join(differences(&v), "\n"), "the database has no row of it") {
			t.Errorf("verify after deleting an exception: %v %v", differences(&v), err)
		}
	})
}

// TestManifestHashesAreTheFiles imports a call-log file, records a run and
// writes its manifest.json: the file's input carries what sha256sum
// prints for it, verify finds everything the same, then finds the file
// appended to, a day's record changed and an exported file edited, then
// the manifest's export section cut and a key added to it.
func TestManifestHashesAreTheFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		dir := t.TempDir()
		log := filepath.Join(dir, "calls.jsonl")
		line := `{"at":"2026-11-01T10:00:00.000+05:30","operation":"panDin","externalRef":"RCX","response":{"statuscode":"ERR","status":"failed","timestamp":"2026-11-01 10:00:00"}}` + "\n"
		if err := os.WriteFile(log, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := calllog.ImportFiles(f.ctx, f.db, []string{log}, calllog.Options{}); err != nil {
			t.Fatal(err)
		}
		run, res := f.run("2026-11-01", "2026-11-01")
		want := sha256sum(t, log)
		var got evidence.Input
		for _, in := range res.Manifest.Inputs {
			if in.Kind == evidence.InputCallLog && in.Name == log {
				got = in
			}
		}
		if got.SHA256 != want || got.Lines != 1 {
			t.Fatalf("the call log's input %+v, want sha256 %s (sha256sum), 1 line; inputs %+v", got, want, res.Manifest.Inputs)
		}
		csv := filepath.Join(dir, "breaks.csv")
		os.WriteFile(csv, []byte("kind\n"), 0o600)
		js, _, err := evidence.ExportManifest(f.ctx, f.db, run, []evidence.Exported{{Path: csv, Rows: 0}}, f.now)
		if err != nil {
			t.Fatal(err)
		}
		manifest := filepath.Join(dir, evidence.ManifestFile)
		os.WriteFile(manifest, js, 0o600)
		verify := func() []string {
			var v evidence.Verification
			if err := evidence.VerifyManifest(f.ctx, f.db, manifest, &v); err != nil {
				t.Fatal(err)
			}
			return differences(&v)
		}
		if d := verify(); len(d) > 0 {
			t.Fatalf("verify of the manifest as written: %v", d)
		}
		os.WriteFile(log, []byte(line+line), 0o600)
		f.exec(`UPDATE records SET txn_charged_value = '9.99'`)
		os.WriteFile(csv, []byte("kind\ngap\n"), 0o600)
		d := strings.Join(verify(), "\n")
		for _, w := range []string{"callLog " + log, "statementDay 2026-11-01", "exported breaks.csv"} {
			if !strings.Contains(d, w) {
				t.Errorf("verify does not report %s:\n%s", w, d)
			}
		}
		// The export section cut (so that the edited file is not
		// looked at), or a key added: verify says so.
		m, err := evidence.ParseManifest(js)
		if err != nil {
			t.Fatal(err)
		}
		m.Export = nil
		cut, _ := m.File()
		os.WriteFile(manifest, cut, 0o600)
		if d := strings.Join(verify(), "\n"); !strings.Contains(d, "export section: manifest.json has none") {
			t.Errorf("verify of a manifest whose export section was cut:\n%s", d)
		}
		os.WriteFile(manifest, append([]byte(`{"approvedBy":"CFO",`), js[1:]...), 0o600)
		if d := strings.Join(verify(), "\n"); !strings.Contains(d, "manifest.json as written: it is not as svcrecon wrote it") {
			t.Errorf("verify of a manifest with a key added:\n%s", d)
		}
	})
}

// sha256sum is the SHA-256 of a file as sha256sum prints it (computed
// here when the tool is missing).
func sha256sum(t *testing.T, path string) string {
	t.Helper()
	if out, err := exec.Command("sha256sum", path).Output(); err == nil {
		return strings.Fields(string(out))[0]
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
