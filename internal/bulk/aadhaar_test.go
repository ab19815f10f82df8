package bulk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestResultsMaskAadhaarInCarriedColumns: the columns an input carries
// through to the results (never sent: notes, the client's own ids) are
// free text: an Aadhaar number in one is masked to its last four digits in
// the results CSV and workbook, while a field's value is left as sent.
func TestResultsMaskAadhaarInCarriedColumns(t *testing.T) {
	const aadhaar, aadhaarID = "739146280552", "582061493773" // Verhoeff-valid
	db := openDB(t)
	ctx := context.Background()
	op := mustOp(t, svcapi.OpVerifyPanPlusV2)
	table, err := ParseTable("pans.csv", []byte("pan,latitude,longitude,consent,note,customerId\n"+
		"ABCDE1234F,12.97,77.59,Y,kyc aadhaar "+aadhaar+" seen,"+aadhaarID+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{ID: "AADH1", Op: op.Name, InputPath: "pans.csv", InputSHA256: "x", TotalRows: 1}
	if err := CreateRun(ctx, db, run); err != nil {
		t.Fatal(err)
	}
	rs := &Results{DB: db, Run: run, Table: table, Op: op}
	dir := t.TempDir()
	csvPath, xlsxPath := filepath.Join(dir, "res.csv"), filepath.Join(dir, "res.xlsx")
	if err := rs.WriteCSV(ctx, csvPath); err != nil {
		t.Fatal(err)
	}
	if err := rs.WriteXLSX(ctx, xlsxPath); err != nil {
		t.Fatal(err)
	}
	got := bulktest.ReadCSV(t, csvPath)[1]
	if got[0] != "ABCDE1234F" || got[4] != "kyc aadhaar XXXXXXXX0552 seen" || got[5] != "XXXXXXXX3773" {
		t.Errorf("results row = %q; want the carried columns' Aadhaar numbers masked", got)
	}
	for name, b := range map[string][]byte{"results.csv": []byte(strings.Join(got, ",")), "results.xlsx": bulktest.Unzip(t, xlsxPath)} {
		bulktest.NoSecrets(t, name, b, []string{aadhaar, aadhaarID})
	}
}

// TestProblemsMaskAadhaar: a problem of the input that quotes a cell (a
// value not one of a field's choices) says it as free text: an Aadhaar
// number in it is masked.
func TestProblemsMaskAadhaar(t *testing.T) {
	table, err := ParseTable("pans.csv", []byte("pan,latitude,longitude,consent\nABCDE1234F,12.97,77.59,739146280552\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(mustOp(t, svcapi.OpVerifyPanPlusV2), table, nil, "R1")
	var ie *InvalidError
	if !errors.As(err, &ie) || len(ie.Lines()) != 1 || ie.Lines()[0] != `pans.csv:2: consent: "XXXXXXXX0552" is not one of Y` {
		t.Errorf("Build = %v (%v), want the consent quoted masked", err, ie)
	}
}

// TestJournalMasksAadhaarInAnswers: an answer whose status and data quote
// an Aadhaar number (a careless service) is journaled with the number
// masked to its last four digits, in the row's status and its stored
// answer, and never reaches the database file; the row's ids stay.
func TestJournalMasksAadhaarInAnswers(t *testing.T) {
	const aadhaar = "739146280552" // Verhoeff-valid
	fx := newFixture(t, 2, bulktest.Options{Tamper: func(_ string, env map[string]any) {
		env["status"] = "seeded with aadhaar " + aadhaar
		env["data"].(map[string]any)["remark"] = "linked aadhaar " + aadhaar
	}})
	if _, err := fx.runner(1).Execute(context.Background(), fx.run, fx.rows); err != nil {
		t.Fatal(err)
	}
	for line, e := range fx.entries(t) {
		if e.State != StateSuccess || e.OrderID == "" || !strings.Contains(e.Status, "XXXXXXXX0552") ||
			!strings.Contains(string(e.Response), "linked aadhaar XXXXXXXX0552") || !strings.Contains(string(e.Response), e.OrderID) {
			t.Errorf("line %d: journaled %s, orderid %q, status %q, answer %s; want success, the number masked, the orderid kept",
				line, e.State, e.OrderID, e.Status, e.Response)
		}
	}
	if _, err := fx.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fx.db.Path)
	if err != nil {
		t.Fatal(err)
	}
	bulktest.NoSecrets(t, "the database", b, []string{aadhaar})
}
