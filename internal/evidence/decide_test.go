package evidence_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// reviewed writes a reviewed workbook of run: its Summary naming the run
// (a row above it, as the export writes others), and an Exceptions sheet
// whose columns a spreadsheet program reordered, with rows id → decision,
// assignee, note.
func reviewed(t *testing.T, run int64, rows [][4]string) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	f.SetSheetName("Sheet1", evidence.SheetSummary)
	f.SetSheetRow(evidence.SheetSummary, "A1", &[]any{"Reconciled"})
	f.SetSheetRow(evidence.SheetSummary, "A3", &[]any{evidence.LabelRunID, run})
	f.NewSheet(evidence.SheetExceptions)
	f.SetSheetRow(evidence.SheetExceptions, "A1", &[]any{"Note", "Kind", "Decision", "ID", "Assignee"})
	for i, r := range rows {
		f.SetSheetRow(evidence.SheetExceptions, "A"+strconv.Itoa(i+2), &[]any{r[3], "x", r[1], r[0], r[2]})
	}
	p := filepath.Join(t.TempDir(), "reviewed.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDecisionsByCommandAndWorkbook decides one exception at the command
// line and two in a reviewed workbook: all are in the history, by their
// people; importing the workbook again adds nothing; a row whose
// exception changed since the workbook's run is refused, naming its row.
func TestDecisionsByCommandAndWorkbook(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		run, _ := f.run("2026-11-01", "2026-11-01",
			finding{recon.CallOnly, "RC1", "", "2026-11-01 10:00:00"},
			finding{recon.StatementOnly, "", "SO2", "2026-11-01 11:00:00"},
			finding{recon.AmountMismatch, "RC3", "SO3", "2026-11-01 12:00:00"})
		a, b, c := f.exception(recon.CallOnly, "RC1"), f.exception(recon.StatementOnly, "SO2"), f.exception(recon.AmountMismatch, "SO3")
		if _, err := evidence.Decide(f.ctx, f.db, evidence.Decision{ID: a.ID, Status: evidence.StatusExplained,
			Note: "test call, no debit", By: "ravi", At: f.now}); err != nil {
			t.Fatal(err)
		}
		book := reviewed(t, run, [][4]string{
			{b.ID, "written-off", "", "below the threshold"},
			{c.ID, "", "meera", ""},
			{a.ID, "written-off", "", "changed my mind"}, // decided by ravi since the run
		})
		rep, err := evidence.ImportWorkbook(f.ctx, f.db, book, "asha", f.now)
		if err != nil {
			t.Fatal(err)
		}
		if rep.RunID != run || len(rep.Lines) != 3 || rep.Lines[2].Refused == "" || rep.Lines[2].Row != 4 ||
			!strings.Contains(rep.Lines[2].Refused, "changed since run") {
			t.Fatalf("import = %+v, want rows 2 and 3 applied and row 4 refused (changed since the run)", rep)
		}
		if got := f.actions(a.ID); !slices.Equal(got, []string{"svcrecon:seen", "ravi:explained"}) {
			t.Errorf("%s events %v", a.ID, got)
		}
		if got := f.actions(b.ID); !slices.Equal(got, []string{"svcrecon:seen", "asha:written-off"}) {
			t.Errorf("%s events %v", b.ID, got)
		}
		if got := f.exception(recon.AmountMismatch, "SO3"); got.Assignee != "meera" || got.Status != evidence.StatusOpen {
			t.Errorf("%s = %+v, want open, assigned to meera", c.ID, got)
		}
		again, err := evidence.ImportWorkbook(f.ctx, f.db, book, "asha", f.now)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range again.Lines {
			if len(l.Applied) > 0 {
				t.Errorf("the same workbook again applied row %d: %+v", l.Row, l.Applied)
			}
		}
		if again.Unchanged != 2 {
			t.Errorf("again: %d rows unchanged, want 2", again.Unchanged)
		}
	})
}

// TestImportRefusesAnUnknownRun checks that a workbook of a run this
// database does not know is refused as a whole.
func TestImportRefusesAnUnknownRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		_, err := evidence.ImportWorkbook(f.ctx, f.db, reviewed(t, 99, nil), "asha", f.now)
		var r *evidence.RefusedError
		if !errors.As(err, &r) || !strings.Contains(err.Error(), "run 99") {
			t.Errorf("import of run 99's workbook: %v, want refused", err)
		}
	})
}

// TestSignOff checks the rules: an approver needs a preparer and must be
// someone else; each role signs once; a sign-off goes stale when a day of
// its period changes afterwards, and a stale run cannot be signed.
func TestSignOff(t *testing.T) {
	eachBackend(t, func(t *testing.T, f *fixture) {
		f.day("2026-11-01")
		run, _ := f.run("2026-11-01", "2026-11-01")
		sign := func(role, by string) error {
			_, err := evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run, Role: role, By: by, At: f.now})
			return err
		}
		var r *evidence.RefusedError
		if err := sign(evidence.RoleApprover, "meera"); !errors.As(err, &r) {
			t.Errorf("approve before prepare: %v, want refused", err)
		}
		if err := sign(evidence.RolePreparer, "ravi"); err != nil {
			t.Fatal(err)
		}
		if err := sign(evidence.RoleApprover, "ravi"); !errors.As(err, &r) || !strings.Contains(err.Error(), "cannot approve") {
			t.Errorf("ravi approving what he prepared: %v, want refused", err)
		}
		if err := sign(evidence.RoleApprover, "meera"); err != nil {
			t.Fatal(err)
		}
		if err := sign(evidence.RoleApprover, "asha"); !errors.As(err, &r) {
			t.Errorf("a second approver: %v, want refused", err)
		}
		states, err := evidence.SignOffs(f.ctx, f.db, func(evidence.StoredManifest) bool { return true })
		if err != nil || len(states) != 2 || states[0].State() != "valid" || states[1].Digest == "" {
			t.Fatalf("sign-offs %+v (%v), want two valid", states, err)
		}
		f.record(recon.Statement, "SO2026-11-01", "2026-11-01 10:00:00", "DR", "1.60") // a re-sync altered the day
		states, err = evidence.SignOffs(f.ctx, f.db, func(evidence.StoredManifest) bool { return true })
		if err != nil || len(states) != 2 || states[1].State() != "stale: statementDay 2026-11-01 changed" {
			t.Fatalf("after the day changed: %+v (%v), want both stale", states, err)
		}
		run2, _ := f.run("2026-11-01", "2026-11-01")
		f.exec(`INSERT INTO call_coverage (through, declared_at) VALUES ('2026-11-01', 'x')`)
		f.record(recon.Statement, "SOLATE", "2026-11-01 23:00:00", "DR", "5.00")
		if _, err := evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run2, Role: evidence.RolePreparer, By: "ravi", At: f.now}); !errors.As(err, &r) || !strings.Contains(err.Error(), "stale") {
			t.Errorf("preparing a run whose day changed since: %v, want refused as stale", err)
		}
	})
}

// TestSignOffSameNameSpelledOtherwise checks that the preparer cannot
// approve under another spelling of their name (case, white space,
// full-width letters), while someone else can; and that the name is kept
// trimmed.
func TestSignOffSameNameSpelledOtherwise(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "e.db"))
	f.day("2026-11-01")
	run, _ := f.run("2026-11-01", "2026-11-01")
	sign := func(role, by string) (evidence.Event, error) {
		return evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run, Role: role, By: by, At: f.now})
	}
	if _, err := sign(evidence.RolePreparer, " ravi\t"); err != nil {
		t.Fatal(err)
	}
	var r *evidence.RefusedError
	for _, by := range []string{"ravi", "Ravi", "ravi ", "RAVI", "\u3000ＲＡＶＩ"} {
		if _, err := sign(evidence.RoleApprover, by); !errors.As(err, &r) || !strings.Contains(err.Error(), "cannot approve") {
			t.Errorf("approver %q after preparer ravi: %v, want refused", by, err)
		}
	}
	ev, err := sign(evidence.RoleApprover, "  Ravi Kumar ")
	if err != nil {
		t.Fatalf("approver Ravi Kumar: %v", err)
	}
	states, err := evidence.SignOffs(f.ctx, f.db, func(evidence.StoredManifest) bool { return true })
	if err != nil || len(states) != 2 || states[0].By != "ravi" || states[1].By != "Ravi Kumar" || ev.By != "Ravi Kumar" {
		t.Errorf("sign-offs %+v (%v), want ravi then Ravi Kumar, trimmed", states, err)
	}
}

func TestSameSigner(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"ravi", "Ravi", true}, {"ravi", "ravi ", true}, {"ravi", "RAVI", true},
		{"Ravi  Kumar", " ravi\tkumar ", true}, {"ravi", "ｒａｖｉ", true},
		{"ravi", "meera", false}, {"ravi", "ravik", false}, {"ravi kumar", "ravikumar", false},
	} {
		if got := evidence.SameSigner(c.a, c.b); got != c.same {
			t.Errorf("SameSigner(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// TestSignOffSuperseded checks that a run a newer check of its period
// superseded cannot be signed, naming the newer run, and that a sign-off
// of it made before is listed superseded, not valid.
func TestSignOffSuperseded(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "e.db"))
	f.day("2026-11-01")
	run1, _ := f.run("2026-11-01", "2026-11-01", finding{recon.CallOnly, "RC1", "", "2026-11-01 10:00:00"})
	if _, err := evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run1, Role: evidence.RolePreparer, By: "ravi", At: f.now}); err != nil {
		t.Fatal(err)
	}
	run2, _ := f.run("2026-11-01", "2026-11-01")
	run3, _ := f.run("2026-11-01", "2026-11-01")
	// as CheckRunWriter.finish leaves them: each run names the one that replaced it
	f.exec(`UPDATE recon_runs SET superseded_by = ? WHERE id = ?`, run2, run1)
	f.exec(`UPDATE recon_runs SET superseded_by = ? WHERE id = ?`, run3, run2)
	f.exec(`DELETE FROM recon_matches WHERE run_id = ?`, run1)
	var r *evidence.RefusedError
	want := fmt.Sprintf("run %d is superseded by run %d", run1, run3)
	_, err := evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run1, Role: evidence.RoleApprover, By: "meera", At: f.now})
	if !errors.As(err, &r) || !strings.Contains(err.Error(), want) {
		t.Errorf("approving superseded run %d: %v, want refused: %s", run1, err, want)
	}
	_, err = evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run2, Role: evidence.RolePreparer, By: "ravi", At: f.now})
	if !errors.As(err, &r) || !strings.Contains(err.Error(), fmt.Sprintf("superseded by run %d", run3)) {
		t.Errorf("preparing superseded run %d: %v, want refused", run2, err)
	}
	states, err := evidence.SignOffs(f.ctx, f.db, func(evidence.StoredManifest) bool { return true })
	if err != nil || len(states) != 1 || states[0].State() != fmt.Sprintf("superseded by run %d", run3) || len(states[0].Stale) == 0 {
		t.Errorf("sign-offs %+v (%v), want run %d's superseded by run %d", states, err, run1, run3)
	}
	if _, err := evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run3, Role: evidence.RolePreparer, By: "ravi", At: f.now}); err != nil {
		t.Errorf("preparing the latest run %d: %v", run3, err)
	}
}

// TestSignOffIncomplete checks that a run of a period that lacks a day's
// walk and call log cannot be prepared, and the refusal says what it lacks.
func TestSignOffIncomplete(t *testing.T) {
	f := newFixture(t, filepath.Join(t.TempDir(), "e.db"))
	f.day("2026-11-01")
	run, res := f.run("2026-11-01", "2026-11-03")
	if !strings.HasPrefix(res.Manifest.Verdict, "Incomplete:") {
		t.Fatalf("verdict %q, want Incomplete", res.Manifest.Verdict)
	}
	_, err := evidence.Sign(f.ctx, f.db, evidence.SignOff{RunID: run, Role: evidence.RolePreparer, By: "ravi", At: f.now})
	var r *evidence.RefusedError
	want := fmt.Sprintf("run %d is incomplete: 2026-11-01..2026-11-03 lacks 2026-11-02..2026-11-03 statement walk", run)
	if !errors.As(err, &r) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "call log") {
		t.Errorf("preparing incomplete run %d: %v, want refused: %s …", run, err, want)
	}
}
