package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
)

// Result files that would overwrite the input or each other, or that
// cannot be written, are refused before anything is sent: one line, exit
// 2, no request, no journal row, nothing created.
func TestOutputsCheckedBeforeTheFirstCall(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	in := writeInput(t, dir, 3)
	dbPath := filepath.Join(dir, "bulk.db")
	link := filepath.Join(dir, "link.csv")
	if err := os.Link(in, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "plain")
	os.WriteFile(file, nil, 0o600)
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o500)
	unwritable := filepath.Join(locked, "r.csv")
	if os.Geteuid() == 0 { // root writes anywhere it has a disk: use a file system nobody writes
		unwritable = "/proc/bulkrun-test/r.csv"
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"out is the input", []string{"--out", in}, "would overwrite the input"},
		{"out is the input by another path", []string{"--out", filepath.Join(dir, ".", "sub", "..", "pans.csv")}, "would overwrite the input"},
		{"out is a hard link to the input", []string{"--out", link}, "would overwrite the input"},
		{"csv and workbook on one path", []string{"--out", filepath.Join(dir, "r.xlsx"), "--xlsx"}, "would both be written to"},
		{"out is a directory", []string{"--out", dir}, "is a directory"},
		{"directory under a file", []string{"--out", filepath.Join(file, "r.csv")}, "is not a directory"},
		{"directory not writable", []string{"--out", unwritable}, "not writable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath,
				"--set", "longitude=1", "--set", "consent=Y"}, tt.args...)
			code, stdout, stderr := runCLI(t, srv, args...)
			if code != cli.ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, want %d and one line saying %q:\n%s%s", code, cli.ExitUsage, tt.want, stdout, stderr)
			}
		})
	}
	if srv.Requests() != 0 {
		t.Errorf("%d requests sent, want none", srv.Requests())
	}
	if _, err := os.Stat(dbPath); err == nil {
		t.Errorf("the database was created by refused runs")
	}
	// A directory to be created is fine, and is created by the results
	// writer, not by the check.
	nested := filepath.Join(dir, "new", "deeper", "r.csv")
	code, stdout, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath,
		"--set", "longitude=1", "--set", "consent=Y", "--out", nested, "--log-level", "error")
	if code != 0 || len(results(t, nested)) != 3 {
		t.Errorf("--out in a new directory: exit %d\n%s%s", code, stdout, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".bulkrun-probe-*")); len(left) > 0 {
		t.Errorf("probe files left: %v", left)
	}
}

// A missing input file, an unknown operation and a cell that is not UTF-8
// or too long are one line each, exit 2, nothing sent; operation names
// match in any case and the run stores the registry's spelling.
func TestInputMistakesAndOperationNames(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "bulk.db")
	code, _, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", filepath.Join(dir, "missing.csv"), "--db", dbPath)
	if code != cli.ExitUsage || !strings.Contains(stderr, "missing.csv") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("missing input: exit %d, want %d with one line naming the file:\n%s", code, cli.ExitUsage, stderr)
	}
	code, _, stderr = runCLI(t, srv, "run", "--op", "verifyPanPlus", "--in", "x.csv", "--db", dbPath)
	if code != cli.ExitUsage || !strings.Contains(stderr, "did you mean verifyPanPlusV2?") {
		t.Errorf("misspelt op: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, srv, "ops", "litigaton")
	if code != cli.ExitUsage || !strings.Contains(stderr, "did you mean litigation?") {
		t.Errorf("ops misspelt: exit %d\n%s", code, stderr)
	}
	code, stdout, _ := runCLI(t, srv, "ops", "VERIFYPANPLUSV2")
	if code != 0 || !strings.HasPrefix(stdout, "verifyPanPlusV2 — ") {
		t.Errorf("ops in capitals: exit %d\n%s", code, stdout)
	}

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("pan,latitude,longitude,consent\nABCDE\xff1234F,1,2,Y\n"+strings.Repeat("P", 5000)+",1,2,Y\n"), 0o600)
	code, _, stderr = runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", bad, "--db", dbPath)
	for _, want := range []string{bad + ":2: pan: not valid UTF-8\n", bad + ":3: pan: 5000 bytes long, longer than the 1024 this field takes\n"} {
		if code != cli.ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("bad cells: exit %d, stderr lacks %q:\n%.500s", code, want, stderr)
		}
	}
	if strings.Contains(stderr, "PPPPPPPPPP") {
		t.Error("the long value is quoted back")
	}

	in := writeInput(t, dir, 4)
	code, stdout, stderr = runCLI(t, srv, "run", "--op", "verifypanplusv2", "--in", in, "--db", dbPath,
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error")
	if code != 0 || !strings.Contains(stdout, "rows of verifyPanPlusV2") {
		t.Fatalf("run --op verifypanplusv2: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, list, _ := runCLI(t, srv, "status", "--db", dbPath); !strings.Contains(list, " verifyPanPlusV2 ") {
		t.Errorf("status lists the run under another spelling:\n%s", list)
	}
	if srv.Requests() != 4 {
		t.Errorf("%d requests, want the 4 of the valid file only", srv.Requests())
	}
}

// Columns that are not fields of the operation are listed once as a
// notice, never sent, and carried through to the results (as input.NAME
// when the results have a column of that name).
func TestExtraColumnsAreCarriedThrough(t *testing.T) {
	var mu bytes.Buffer // bodies the fake received, as text
	srv := bulktest.Start(bulktest.Options{Before: func(_ string, body map[string]any) {
		for k := range body {
			mu.WriteString(k + " ")
		}
	}})
	defer srv.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "refs.csv")
	os.WriteFile(in, []byte("myRef,pan,latitude,longitude,consent,panx,status\nA-001,ABCDE0001F,1,2,Y,n1,open\nA-002,ABCDE0002F,1,2,Y,n2,closed\n"), 0o600)
	code, stdout, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", filepath.Join(dir, "b.db"),
		"--concurrency", "1", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if n := strings.Count(stderr, "notice:"); n != 1 || !strings.Contains(stderr, "myRef, panx (did you mean pan?), status") {
		t.Errorf("want one notice naming myRef and panx (did you mean pan?):\n%s", stderr)
	}
	if strings.Contains(mu.String(), "myRef") || strings.Contains(mu.String(), "panx") {
		t.Errorf("carried columns were sent: keys %s", mu.String())
	}
	rows := results(t, in+".results.csv")
	if len(rows) != 2 || rows[0]["myRef"] != "A-001" || rows[1]["panx"] != "n2" || rows[1]["outcome"] != "success" {
		t.Errorf("results = %v", rows)
	}
	// A carried column named like a column of the results keeps its
	// values under input.NAME; the header stays unique.
	if rows[1]["input.status"] != "closed" || rows[1]["status"] != "Transaction Successful" {
		t.Errorf("input.status = %q, status = %q; want closed, and the service's status", rows[1]["input.status"], rows[1]["status"])
	}
}

// A misspelt column is answered with the nearest field even when the file
// has other problems (the missing mandatory column it was meant to be, a
// bad row): the notice comes first, then the problems, exit 2, nothing
// sent.
func TestMisspeltColumnSuggestedWithOtherProblems(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	for _, tc := range []struct{ csv, suggestion, problem string }{
		{"pann,latitude,longitude,consent\nABCDE0001F,1,2,Y\n", "pann (did you mean pan?)", "pan: mandatory column missing"},
		{"pan,latitude,longitude,consnt\nABCDE0001F,1,2,Y\n\xff,1,2,Y\n", "consnt (did you mean consent?)", ":3: pan: not valid UTF-8"},
	} {
		in := filepath.Join(dir, "pans.csv")
		os.WriteFile(in, []byte(tc.csv), 0o600)
		code, stdout, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", filepath.Join(dir, "b.db"), "--set", "consent=Y")
		notice, problem := strings.Index(stderr, tc.suggestion), strings.Index(stderr, tc.problem)
		if code != cli.ExitUsage || notice < 0 || problem < notice {
			t.Errorf("exit %d; want 2, %q, then %q\n%s%s", code, tc.suggestion, tc.problem, stdout, stderr)
		}
	}
	if n := srv.Requests(); n > 0 {
		t.Errorf("%d calls were sent", n)
	}
}

// --again starts a new run whose results are named with its id; the
// earlier results stay as they were.
func TestAgainKeepsTheEarlierResults(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	in := writeInput(t, dir, 3)
	dbPath := filepath.Join(dir, "bulk.db")
	args := []string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"}
	if code, stdout, stderr := runCLI(t, srv, args...); code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, stdout, stderr)
	}
	first, _ := os.ReadFile(in + ".results.csv")
	code, stdout, stderr := runCLI(t, srv, append(args, "--again")...)
	if code != 0 {
		t.Fatalf("--again: exit %d\n%s%s", code, stdout, stderr)
	}
	var again string
	for _, l := range strings.Split(stdout, "\n") {
		if p, ok := strings.CutPrefix(l, "results: "); ok {
			again = p
		}
	}
	runs := strings.Fields(strings.Split(strings.TrimSpace(stdout), "\n")[0])
	if want := in + "." + strings.TrimSuffix(runs[1], ":") + ".results.csv"; again != want {
		t.Errorf("--again results = %q, want %q", again, want)
	}
	if now, _ := os.ReadFile(in + ".results.csv"); !bytes.Equal(now, first) {
		t.Error("--again changed the earlier results")
	}
	if rows := results(t, again); len(rows) != 3 || rows[0]["outcome"] != "success" {
		t.Errorf("--again results = %v", rows)
	}
}

// Results that exist and are not the run's own are not written over
// without --force: a run with another database on the same file (the
// README's try-out next to a real run) is refused before anything is sent,
// the earlier results kept; --force writes them. A resume given a new
// --out that names an existing file is refused too; its own results it
// rewrites.
func TestResultsOfAnotherRunAreNotOverwritten(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	in := writeInput(t, dir, 3)
	results := in + ".results.csv"
	args := func(db string, more ...string) []string {
		return append([]string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", filepath.Join(dir, db), "--set", "longitude=1",
			"--set", "consent=Y", "--log-level", "error"}, more...)
	}
	if code, stdout, stderr := runCLI(t, srv, args("real.db")...); code != 0 {
		t.Fatalf("the real run: exit %d\n%s%s", code, stdout, stderr)
	}
	real, _ := os.ReadFile(results)
	sent := srv.Requests()
	code, stdout, stderr := runCLI(t, srv, args("try.db")...)
	if code != cli.ExitUsage || !strings.Contains(stderr, "results "+results+" exist and are not run ") || !strings.Contains(stderr, "--force") {
		t.Errorf("a run of another database over the real results: exit %d, want 2 saying so\n%s%s", code, stdout, stderr)
	}
	if now, _ := os.ReadFile(results); !bytes.Equal(now, real) || srv.Requests() != sent {
		t.Errorf("the refused run changed the results or sent %d calls", srv.Requests()-sent)
	}
	if code, stdout, stderr := runCLI(t, srv, args("try.db", "--force")...); code != 0 {
		t.Errorf("--force: exit %d\n%s%s", code, stdout, stderr)
	}
	if now, _ := os.ReadFile(results); bytes.Equal(now, real) {
		t.Error("--force did not write the results")
	}

	// A stopped run resumed with --out naming someone's file.
	stopped := writeCSV(t, filepath.Join(dir, "more.csv"), "pan,latitude\r\n", 20, func(i int) string { return fmt.Sprintf("ABCDE%04dF,1\r\n", i) })
	db := filepath.Join(dir, "more.db")
	runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", stopped, "--db", db, "--set", "longitude=1", "--set", "consent=Y",
		"--concurrency", "1", "--max-debit", "3", "--log-level", "error")
	id := runID(t, db)
	mine := filepath.Join(dir, "mine.csv")
	os.WriteFile(mine, []byte("my own notes\n"), 0o600)
	code, stdout, stderr = runCLI(t, srv, "resume", id, "--db", db, "--out", mine)
	if code != cli.ExitUsage || !strings.Contains(stderr, "results "+mine+" exist and are not run "+id+"'s") {
		t.Errorf("resume --out over a file of one's own: exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my own notes\n" {
		t.Errorf("the refused resume wrote %s", mine)
	}
	if code, stdout, stderr := runCLI(t, srv, "resume", id, "--db", db, "--max-debit", "", "--log-level", "error"); code != 0 {
		t.Errorf("resume writing its own results: exit %d\n%s%s", code, stdout, stderr)
	}
}
