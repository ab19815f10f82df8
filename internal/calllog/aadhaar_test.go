package calllog

import (
	"context"
	"strings"
	"testing"
)

// TestAadhaarKeptMasked: a line read from a stream is kept in the database
// with the Aadhaar numbers of its free text masked (a status message, a
// remark), and the reason of a bad line that quotes one has it masked too,
// in the summary and in import_errors.
func TestAadhaarKeptMasked(t *testing.T) {
	const aadhaar = "362718495025" // Verhoeff-valid
	db := openDB(t)
	good := strings.Replace(goodLine("AK1", "OAK1", ts1), `"Transaction Successful"`, `"Aadhaar `+aadhaar+` seeded"`, 1)
	bad := strings.Replace(goodLine("AK2", "OAK2", ts1), `"`+ts1+`"`, `"`+aadhaar+`"`, 1)
	sum, err := Import(context.Background(), db, "-", strings.NewReader(lines(good, bad)), Options{})
	if err != nil || sum.Imported != 1 || sum.Bad != 1 {
		t.Fatalf("Import = %+v, %v", sum, err)
	}
	if r := sum.Errors[0].Reason; strings.Contains(r, aadhaar) || !strings.Contains(r, "XXXXXXXX5025") {
		t.Errorf("bad line's reason %q: want the number masked", r)
	}
	var reason string
	db.QueryRow(`SELECT reason FROM import_errors`).Scan(&reason)
	if strings.Contains(reason, aadhaar) {
		t.Errorf("import_errors keeps %q", reason)
	}
	calls, err := db.StoredCalls(context.Background(), "AK1")
	if err != nil || len(calls) != 1 || calls[0].Block == nil {
		t.Fatalf("StoredCalls = %+v, %v", calls, err)
	}
	kept, err := blockLine(calls[0].Block, calls[0].Offset, calls[0].Length)
	if err != nil || strings.Contains(string(kept), aadhaar) || !strings.Contains(string(kept), `"Aadhaar XXXXXXXX5025 seeded"`) {
		t.Errorf("the line kept = %s, %v; want its Aadhaar number masked", kept, err)
	}
}
