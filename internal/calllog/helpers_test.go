package calllog

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func openDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "calls.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// eachBackend runs fn against a fresh database of each backend: a SQLite
// file in a temporary directory, and PostgreSQL when the tests have one
// (scripts/pg-test.sh; pgtest skips the subtest otherwise).
func eachBackend(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openDB(t)) })
	t.Run("postgres", func(t *testing.T) {
		db, err := store.Open(context.Background(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, db)
	})
}

// line builds a call-log line of op with a success envelope holding data.
func line(op, ref, ts, orderID string, data map[string]any) string {
	o, _ := svcapi.Lookup(op)
	env := map[string]any{"statuscode": "TXN", "actcode": nil, "status": "Transaction Successful",
		"timestamp": ts, "svc_uuid": "uuid-" + ref, "orderid": orderID, "environment": "SANDBOX"}
	if data != nil {
		env["data"] = data
	}
	rec := map[string]any{"at": "2026-11-21T10:15:02.123+05:30", "operation": op, "method": "POST", "path": o.Path,
		"externalRef": ref, "request": map[string]any{"externalRef": ref}, "httpStatus": 200, "latencyMs": 12,
		"response": env, "error": ""}
	b, _ := json.Marshal(rec)
	return string(b)
}

func poolA(opening, amount, closing any) map[string]any {
	return map[string]any{"account": "0409000123456", "openingBal": opening, "mode": "DR", "amount": amount, "closingBal": closing}
}

func poolB(opening, amount, closing any) map[string]any {
	return map[string]any{"referenceId": "R1", "openingBalance": opening, "mode": "DR", "paymentAmount": amount, "closingBalance": closing}
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// dbFilesHoldNone wants the SQLite database at path, and its WAL, not to
// hold text (what names it) anywhere, in any page.
func dbFilesHoldNone(t *testing.T, path, what, text string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(text)) {
			t.Errorf("%s holds %s", filepath.Base(path+suffix), what)
		}
	}
}
