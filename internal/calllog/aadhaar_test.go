package calllog

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
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

// TestAadhaarMaskedInCallsRow: a transaction-status look-up keeps its
// answer in calls.response, imported from a file or recorded by svcrecon;
// an Aadhaar number in its free text (a remark, the transaction's status
// message) is masked there to its last four, while the orderid and pool
// account the check resolves a pending call to stay as the service sent
// them, 12 digits or not. Another operation's answer (its status message
// holding the number) keeps nothing of it: the number is nowhere in the
// database file.
func TestAadhaarMaskedInCallsRow(t *testing.T) {
	const aadhaar = "362718495025" // Verhoeff-valid
	const orderID = "739146280552" // Verhoeff-valid too: an id, kept
	const account = "582061493773" // idem
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "svcrecon.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"externalRef": "P1", "transactionStatusCode": "TXN", "transactionStatus": "Aadhaar " + aadhaar + " seeded",
		"orderid": orderID, "remark": "Aadhaar " + aadhaar + " seeded", "pool": map[string]any{"account": account,
			"openingBal": "100.00", "mode": "DR", "amount": "10.00", "closingBal": "90.00"}}
	lookup := line(svcapi.OpTxnStatus, "P1", ts1, "", data)
	pan := strings.Replace(goodLine("G1", "OG1", ts1), `"Transaction Successful"`, `"Aadhaar `+aadhaar+` seeded"`, 1)
	p := writeFile(t, "calls.jsonl", lines(lookup, pan))
	if sum, err := ImportFiles(ctx, db, []string{p}, Options{}); err != nil || sum.Imported != 2 {
		t.Fatalf("ImportFiles = %+v, %v", sum, err)
	}
	data["externalRef"] = "P2"
	env, _ := json.Marshal(map[string]any{"statuscode": "TXN", "timestamp": ts1, "data": data})
	rec := &svcapi.CallRecord{At: time.Now(), Operation: svcapi.OpTxnStatus, ExternalRef: "P2", Response: env}
	if err := NewRecorder(db, nil).Record(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"P1", "P2"} {
		var resp string
		if err := db.QueryRow(`SELECT response FROM calls WHERE external_ref = ?`, ref).Scan(&resp); err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if strings.Contains(resp, aadhaar) || strings.Count(resp, "XXXXXXXX5025") != 2 {
			t.Errorf("%s: calls.response = %s; want the Aadhaar number masked", ref, resp)
		}
		var d svcapi.TxnStatusData
		env, err := svcapi.DecodeEnvelope([]byte(resp))
		if err == nil {
			err = env.DecodeData(&d)
		}
		if err != nil || string(d.OrderID) != orderID || d.Pool == nil || d.Pool.Account != account {
			t.Errorf("%s: the check reads %+v, %v; want orderid %s and pool account %s", ref, d, err, orderID, account)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	dbFilesHoldNone(t, path, "the Aadhaar number", aadhaar)
}
