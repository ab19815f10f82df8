package export

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/evidence"
)

// TestExceptionsSheet checks the round trip's parts of the workbook: the
// Summary names the run beside its label and shows the digest; the
// Exceptions sheet lists every exception with ID, Decision (a drop-down of
// explained and written-off), Assignee and Note.
func TestExceptionsSheet(t *testing.T) {
	files, _ := exportFixture(t, Options{Format: FormatXLSX})
	f := openBook(t, files.Workbook)
	labels := map[string]string{}
	for _, r := range rows(t, f, "Summary") {
		if len(r) >= 2 {
			labels[r[0]] = r[1]
		}
	}
	if labels[evidence.LabelRunID] != "2" || len(labels[evidence.LabelDigest]) != 64 {
		t.Errorf("Summary: %s %q, %s %q; want run 2 and a SHA-256", evidence.LabelRunID, labels[evidence.LabelRunID],
			evidence.LabelDigest, labels[evidence.LabelDigest])
	}
	ex := rows(t, f, evidence.SheetExceptions)
	for _, c := range []string{evidence.ColID, evidence.ColDecision, evidence.ColAssignee, evidence.ColNote} {
		colOf(t, ex[0], c)
	}
	if len(ex) != 12 || !strings.HasPrefix(ex[1][0], "EX-") {
		t.Errorf("Exceptions has %d rows (first %q), want the header and 11 exceptions", len(ex), ex[1])
	}
	dvs, err := f.GetDataValidations(evidence.SheetExceptions)
	if err != nil || len(dvs) != 1 || !strings.HasPrefix(dvs[0].Sqref, "L2:L") ||
		!strings.Contains(dvs[0].Formula1, "explained,written-off") {
		t.Errorf("Exceptions data validations = %+v (%v), want Decision (L) as a drop-down of explained, written-off", dvs, err)
	}
}

// TestWorkbookRoundTrip exports the workbook, fills in a decision and an
// assignee as an analyst would, lets LibreOffice re-save it when it is
// installed, and imports it: the decision and the assignment are events by
// the analyst, and the workbook still names its run.
func TestWorkbookRoundTrip(t *testing.T) {
	db := fixtureDB(t)
	withEvidence(t, db)
	dir := t.TempDir()
	files, err := Reconciliation(context.Background(), db, Options{From: fixFrom, To: fixTo, Dir: dir, Format: FormatXLSX,
		Evidence: func(ctx context.Context, id int64) (*evidence.View, error) { return evidence.Workbook(ctx, db, id) }})
	if err != nil {
		t.Fatal(err)
	}
	f := openBook(t, files.Workbook)
	ex := rows(t, f, evidence.SheetExceptions)
	id := ex[1][0]
	f.SetCellValue(evidence.SheetExceptions, "L2", "written-off")
	f.SetCellValue(evidence.SheetExceptions, "M2", "a rounding of the service's")
	f.SetCellValue(evidence.SheetExceptions, "K3", "meera")
	book := filepath.Join(dir, "reviewed.xlsx")
	if err := f.SaveAs(book); err != nil {
		t.Fatal(err)
	}
	book = resaved(t, book)
	rep, err := evidence.ImportWorkbook(context.Background(), db, book, "asha", fixNow)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range rep.Lines {
		for _, e := range l.Applied {
			got = append(got, e.ExceptionID+" "+e.By+" "+e.Action+" "+e.Note+e.Data)
		}
	}
	want := []string{id + " asha written-off a rounding of the service's", ex[2][0] + " asha assigned meera"}
	if rep.RunID != 2 || !slices.Equal(got, want) {
		t.Errorf("import: run %d, events %q; want run 2, %q", rep.RunID, got, want)
	}
}

// resaved returns book as LibreOffice saves it again (another program's
// file), or book itself without LibreOffice.
func resaved(t *testing.T, book string) string {
	t.Helper()
	soffice, err := exec.LookPath("soffice")
	if err != nil || os.Getenv("SVCRECON_NO_LIBREOFFICE") != "" {
		t.Log("LibreOffice not installed: the workbook is imported as excelize saved it")
		return book
	}
	out := filepath.Join(t.TempDir(), "lo")
	cmd := exec.Command(soffice, "--headless", "-env:UserInstallation=file://"+filepath.Join(t.TempDir(), "profile"),
		"--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", out, book)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("LibreOffice: %v\n%s", err, b)
	}
	return filepath.Join(out, filepath.Base(book))
}
