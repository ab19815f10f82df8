package calllog

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestImportNULIsABadLine: a line whose text a calls row keeps holds a NUL
// (spelt \u0000), which PostgreSQL's text refuses, is a bad line on either
// backend, named by file:line and field, and the file's other lines are
// imported; importing the file again adds nothing.
func TestImportNULIsABadLine(t *testing.T) {
	for _, tt := range []struct{ field, line string }{
		{"externalRef", goodLine("N\x00L", "ON1", ts1)},
		{"orderid", goodLine("N2", "O\x00N2", ts1)},
		{"statuscode", strings.Replace(goodLine("N3", "ON3", ts1), `"statuscode":"TXN"`, `"statuscode":"TX\u0000N"`, 1)},
		{"operation", strings.Replace(goodLine("N4", "ON4", ts1), `"operation":"`+svcapi.OpVerifyPanPlusV2+`"`, `"operation":"x\u0000"`, 1)},
		{"pool.account", line(svcapi.OpVerifyPanPlusV2, "N5", ts1, "ON5", map[string]any{"pool": map[string]any{
			"account": "04\x0009", "openingBal": "100", "mode": "DR", "amount": "10", "closingBal": "90"}})},
	} {
		t.Run(tt.field, func(t *testing.T) {
			if !strings.Contains(tt.line, `\u0000`) {
				t.Fatalf("the line holds no \\u0000: %s", tt.line)
			}
			eachBackend(t, func(t *testing.T, db *store.DB) {
				p := writeFile(t, "calls.jsonl", lines(goodLine("G1", "OG1", ts1), tt.line, goodLine("G2", "OG2", ts1)))
				for range 2 {
					sum, err := ImportFiles(context.Background(), db, []string{p}, Options{})
					if err != nil || sum.Lines != 3 || sum.Imported+sum.Duplicates != 2 || sum.Bad != 1 || len(sum.Errors) != 1 {
						t.Fatalf("ImportFiles = %+v, %v; want 2 lines imported and 1 bad", sum, err)
					}
					if e := sum.Errors[0]; e.Line != 2 || !strings.HasPrefix(e.Error(), p+":2: field "+tt.field+" ") ||
						!strings.Contains(e.Reason, "NUL") {
						t.Errorf("bad line %q, want %s:2: field %s … NUL …", e.Error(), p, tt.field)
					}
				}
				if n := countRows(t, db, `SELECT count(*) FROM calls WHERE external_ref IN ('G1', 'G2')`); n != 2 {
					t.Errorf("calls G1, G2 stored = %d, want 2", n)
				}
				if n := countRows(t, db, `SELECT count(*) FROM import_errors WHERE source = ? AND line = 2 AND reason LIKE ?`,
					p, "field "+tt.field+" %"); n != 1 {
					t.Errorf("import_errors of line 2 naming %s = %d, want 1", tt.field, n)
				}
			})
		})
	}
}

// TestRecorderNULIsABadRecord: a call svcrecon made whose externalRef
// holds a NUL is kept as an import error (its reason escaped), as an
// imported line would be, on either backend, instead of failing the
// transaction that stores it on PostgreSQL.
func TestRecorderNULIsABadRecord(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *store.DB) {
		rec := &svcapi.CallRecord{At: time.Now(), Operation: svcapi.OpLitigation, ExternalRef: "R\x001", Error: "timeout"}
		err := NewRecorder(db, nil).Record(context.Background(), rec)
		if err == nil || !strings.Contains(err.Error(), "field externalRef") {
			t.Errorf("Record = %v, want the NUL in field externalRef", err)
		}
		if n := countRows(t, db, `SELECT count(*) FROM import_errors WHERE source = ? AND reason LIKE ?`,
			SourceSvcrecon, "litigation R%1: field externalRef %"); n != 1 {
			t.Errorf("import_errors naming the record = %d, want 1", n)
		}
		var reason string
		db.QueryRow(`SELECT reason FROM import_errors`).Scan(&reason)
		if !strings.HasPrefix(reason, `litigation R\x001: `) {
			t.Errorf("import_errors.reason = %q, want the externalRef escaped", reason)
		}
		if n := countRows(t, db, `SELECT count(*) FROM calls`); n != 0 {
			t.Errorf("calls = %d, want none", n)
		}
	})
}
