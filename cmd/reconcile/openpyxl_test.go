package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// openpyxlCheck is what an analyst's independent reader sees: the sheets,
// the verdict, a bridge that adds up to the checked closing balance, the
// legend, frozen and filtered headers, print titles, exceptions first and
// times that say IST.
const openpyxlCheck = `
import sys, decimal, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
want = ["Summary", "Exceptions", "Legend", "Breaks", "Matching", "Differences", "Duplicates", "Reversals", "Unsettled", "Pending", "Fees", "Statement", "Orders"]
assert wb.sheetnames[:len(want)] == want, wb.sheetnames
s = wb["Summary"]
verdict = s["A1"].value
assert verdict.startswith("Not reconciled: 35.50 unexplained in 2 breaks"), verdict
rows = [[c.value for c in r] for r in s.iter_rows(max_col=3)]
i = next(n for n, r in enumerate(rows) if r[0] and str(r[0]).startswith("Bridge of pool account"))
bridge = rows[i+1:i+8]
assert bridge[0][0].startswith("Opening balance"), bridge
total = sum(decimal.Decimal(str(r[1])) for r in bridge[:5])
closing = decimal.Decimal(str(bridge[5][1]))
assert bridge[5][0].startswith("= Closing balance") and total == closing, (total, closing, bridge)
assert bridge[6][2] == "checked" and decimal.Decimal(str(bridge[6][1])) == closing, bridge[6]
legend = {r[0].value: r[2].value for r in wb["Legend"].iter_rows(min_row=2) if r[0].value}
for term in ["matched", "callOnly", "statementOnly", "explainedGap", ">30"]:
    assert legend.get(term), term
m = wb["Matching"]
filtered = m.auto_filter.ref or any(m.tables.values())
assert m.freeze_panes == "A2" and filtered, (m.freeze_panes, m.auto_filter.ref, m.tables)
assert m.print_title_rows in ("1:1", "$1:$1"), m.print_title_rows
assert m.page_setup.orientation == "landscape"
outcomes = [r[0].value for r in m.iter_rows(min_row=2)]
first = outcomes.index("matched")
assert all(o in ("matched", "reversed") for o in outcomes[first:]), "exceptions are not first"
assert "IST" in (m["B2"].number_format or ""), m["B2"].number_format
print("ok", verdict)
`

// TestWorkbookInOpenpyxl reads the nightly workbook with openpyxl, an
// independent reader (Debian's python3-openpyxl; skipped without it).
func TestWorkbookInOpenpyxl(t *testing.T) {
	needSandbox(t)
	py := ""
	for _, name := range []string{"python3", "/usr/bin/python3"} { // Debian's python3-openpyxl is for /usr/bin/python3
		if p, err := exec.LookPath(name); err == nil && exec.Command(p, "-c", "import openpyxl").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("openpyxl is not installed (apt-get install python3-openpyxl): the independent reader is skipped")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "reports")
	if stdout, stderr, err := runCmd(t, "run", "--sandbox", "--out", out, "--db", filepath.Join(dir, "r.db")); err != nil {
		t.Fatalf("run --sandbox: %v\n%s\n%s", err, stdout, stderr)
	}
	books, _ := filepath.Glob(filepath.Join(out, "reconciliation-*.xlsx"))
	if len(books) != 1 {
		t.Fatalf("workbooks: %v", books)
	}
	got, err := exec.Command(py, "-c", openpyxlCheck, books[0]).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(got), "ok ") {
		t.Fatalf("openpyxl: %v\n%s", err, got)
	}
}
