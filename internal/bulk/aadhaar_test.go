package bulk

import (
	"context"
	"errors"
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
