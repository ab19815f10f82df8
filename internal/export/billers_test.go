package export

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/svcrecon/svcrecon/internal/store"
)

func billersDB(tb testing.TB) *store.DB {
	tb.Helper()
	return testDB(tb,
		`INSERT INTO billers (biller_id, biller_name, category_key, type, category_name, coverage_city, coverage_state,
			coverage_pincode, updated_date, biller_status, is_available, removed, removed_at, first_seen_at, last_seen_at) VALUES
			('B1', 'Power Co', 'C01', 'ONUS', 'Electricity', 'Pune', 'MH', '041101', '2026-11-01', 'ACTIVE', 1, 0, NULL, '2026-10-01T00:00:00.000Z', '2026-11-20T00:00:00.000Z'),
			('B2', 'Gas, "Ltd"', 'C02', 'OFFUS', 'Gas', '=HYPERLINK("http://evil.example")', '-', '+91', '2026-09-15', 'ACTIVE', 0, 0, NULL, '2026-10-01T00:00:00.000Z', '2026-11-20T00:00:00.000Z'),
			('B3', 'Gone Water', 'C03', 'ONUS', 'Water', '', '', '', '2026-08-01', 'ACTIVE', 1, 1, '2026-11-20T00:00:00.000Z', '2026-10-01T00:00:00.000Z', '2026-11-19T00:00:00.000Z')`,
		`INSERT INTO biller_syncs (id, mode, started_at, finished_at, state, seen, added, changed, removed) VALUES
			(1, 'full', '2026-11-19T00:00:00.000Z', '2026-11-19T00:01:00.000Z', 'ok', 3, 3, 0, 0),
			(2, 'full', '2026-11-20T00:00:00.000Z', '2026-11-20T00:01:00.000Z', 'ok', 2, 0, 1, 1),
			(3, 'incremental', '2026-11-21T00:00:00.000Z', NULL, 'failed', 0, 0, 0, 0)`,
		`INSERT INTO biller_changes (sync_id, biller_id, change, fields, at) VALUES
			(1, 'B1', 'added', '', '2026-11-19T00:00:10.000Z'),
			(2, 'B1', 'changed', '{"billerName":["Power Corp","Power Co"],"isAvailable":[false,true]}', '2026-11-20T00:00:10.000Z'),
			(2, 'B3', 'removed', '', '2026-11-20T00:00:20.000Z')`,
	)
}

func TestBillers(t *testing.T) {
	db := billersDB(t)
	dir := filepath.Join(t.TempDir(), "out")
	files, err := Billers(context.Background(), db, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if files.Workbook != filepath.Join(dir, "billers.xlsx") || len(files.CSV) != 2 {
		t.Fatalf("files = %+v", files)
	}
	for _, p := range files.CSV {
		golden(t, p, filepath.Join("testdata", "golden", filepath.Base(p)))
	}
	f := openBook(t, files.Workbook)
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{"Billers", "Changes"}) {
		t.Fatalf("sheets = %v", got)
	}
	b := rows(t, f, "Billers")
	if len(b) != 4 || b[3][0] != "B3" {
		t.Fatalf("Billers = %v, want 3 billers, the removed one last", b)
	}
	pin := colOf(t, b[0], "coveragePincode")
	if v, _ := f.GetCellValue("Billers", pin+"2"); v != "041101" {
		t.Errorf("pincode = %q, want the leading zero kept", v)
	}
	ud := colOf(t, b[0], "updatedDate")
	if nf, _ := cellFormat(t, f, "Billers", ud+"2"); nf != fmtDate {
		t.Errorf("updatedDate format = %q", nf)
	}
	number(t, f, "Billers", ud+"2")
	c := rows(t, f, "Changes")
	want := [][]string{
		{"syncId", "at", "change", "billerId", "billerName", "field", "old", "new"},
		{"2", "2026-11-20 05:30:10 IST", "changed", "B1", "Power Co", "billerName", "Power Corp", "Power Co"},
		{"2", "2026-11-20 05:30:10 IST", "changed", "B1", "Power Co", "isAvailable", "false", "true"},
		{"2", "2026-11-20 05:30:20 IST", "removed", "B3", "Gone Water"},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Changes = %q\nwant %q", c, want)
	}
}
