//go:build unix

package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExportCSVFormulaSafe(t *testing.T) {
	for _, tc := range []struct {
		kind     CellKind
		in, want string
	}{
		{Text, `=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{Text, "+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{Text, "-cmd", "'-cmd"},
		{Text, "@SUM(1+1)", "'@SUM(1+1)"},
		{Text, "\tTAB", "'\tTAB"},
		{Text, "\rCR", "'\rCR"},
		{Text, "-", "'-"},
		{Text, "-1e5", "'-1e5"},
		{Text, "+91 98200 00000", "'+91 98200 00000"},
		{Text, "-2.50", "-2.50"}, // numbers stay numbers, in any column
		{Text, "-0.01", "-0.01"},
		{Text, "+5", "+5"},
		{Amount, "-2.50", "-2.50"},
		{Delta, "-0.01", "-0.01"},
		{Int, "-3", "-3"},
		{Amount, "=1+1", "'=1+1"}, // not a number: text, so safe
		{Text, "a=b", "a=b"},
		{Text, "", ""},
		{Bool, "1", "true"},
		{Date, "2026-11-01", "2026-11-01"},
	} {
		if got := csvText(tc.kind, tc.in, false); got != tc.want {
			t.Errorf("csvText(%v, %q) = %q, want %q", tc.kind, tc.in, got, tc.want)
		}
		if tc.kind != Bool {
			if got := csvText(tc.kind, tc.in, true); got != tc.in {
				t.Errorf("csvText(%v, %q, raw) = %q, want it unchanged", tc.kind, tc.in, got)
			}
		}
	}
}

// writeTable writes one table through the writer (both formats) into dir.
func writeTable(tb testing.TB, o Options, dir, book string, t Table, rows [][]string) Files {
	tb.Helper()
	o.Dir = dir
	w, err := NewWriter(o, book)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Abort()
	err = w.Write(context.Background(), t, func(yield func(Row, error) bool) {
		for _, r := range rows {
			if !yield(Row{Cells: r}, nil) {
				return
			}
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	files, err := w.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func TestExportCSVRaw(t *testing.T) {
	table := Table{Sheet: "Results", File: "results.csv", Columns: []Column{{"=name", Text, false}, {"poolAmount", Amount, false}}}
	cells := [][]string{{"@SUM(A1)", "-2.50"}, {"-x", "-0.01"}}
	for _, tc := range []struct {
		raw  bool
		want [][]string
	}{
		{false, [][]string{{"'=name", "poolAmount"}, {"'@SUM(A1)", "-2.50"}, {"'-x", "-0.01"}}},
		{true, [][]string{{"=name", "poolAmount"}, {"@SUM(A1)", "-2.50"}, {"-x", "-0.01"}}},
	} {
		// As bulk results are written: LF line ends.
		files := writeTable(t, Options{Format: FormatBoth, CSVRaw: tc.raw, LF: true}, t.TempDir(), "results.xlsx", table, cells)
		if got := readCSV(t, files.CSV[0]); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CSVRaw %v: results.csv = %q, want %q", tc.raw, got, tc.want)
		}
		// The workbook holds the text itself (a string cell is never a formula).
		f := openBook(t, files.Workbook)
		if v, _ := f.GetCellValue("Results", "A2"); v != "@SUM(A1)" {
			t.Errorf("workbook A2 = %q", v)
		}
		if formula, _ := f.GetCellFormula("Results", "A2"); formula != "" {
			t.Errorf("workbook A2 is a formula %q", formula)
		}
		if got := number(t, f, "Results", "B2"); got != -2.5 {
			t.Errorf("workbook B2 = %v, want -2.5", got)
		}
	}
	// The reconciliation's own CSV files, raw or not.
	_, dir := exportFixture(t, Options{Format: FormatCSV, CSVRaw: true})
	b, _ := os.ReadFile(filepath.Join(dir, "matching.csv"))
	if !strings.Contains(string(b), `,"=HYPERLINK(""http://evil.example""`) || !strings.Contains(string(b), ",@SUM(1+1),") {
		t.Errorf("--csv-raw matching.csv = %s, want the cells as they are", b)
	}
}

// withUmask runs fn under umask mask.
func withUmask(t *testing.T, mask int, fn func()) {
	t.Helper()
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

func modeOf(tb testing.TB, p string) fs.FileMode {
	tb.Helper()
	info, err := os.Stat(p)
	if err != nil {
		tb.Fatal(err)
	}
	return info.Mode().Perm()
}

func TestExportFileModes(t *testing.T) {
	for _, mask := range []int{0o022, 0o077} {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			var files Files
			var dir string
			withUmask(t, mask, func() { files, dir = exportFixture(t, Options{}) })
			if got, want := modeOf(t, dir), fs.FileMode(0o777&^mask); got != want {
				t.Errorf("directory mode %v, want %v", got, want)
			}
			for _, p := range files.Paths() {
				if got, want := modeOf(t, p), fs.FileMode(0o666&^mask); got != want {
					t.Errorf("%s mode %v, want %v", filepath.Base(p), got, want)
				}
			}
		})
	}
	t.Run("a rewrite never widens a mode", func(t *testing.T) {
		db := fixtureDB(t)
		dir := t.TempDir()
		o := Options{From: fixFrom, To: fixTo, Dir: dir}
		withUmask(t, 0o022, func() {
			files, err := Reconciliation(context.Background(), db, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(files.Workbook, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(files.CSV[0], 0o640); err != nil {
				t.Fatal(err)
			}
			if files, err = Reconciliation(context.Background(), db, o); err != nil {
				t.Fatal(err)
			}
			if got := modeOf(t, files.Workbook); got != 0o600 {
				t.Errorf("rewritten workbook mode %v, want 0600 kept", got)
			}
			if got := modeOf(t, files.CSV[0]); got != 0o640 {
				t.Errorf("rewritten %s mode %v, want 0640 kept", filepath.Base(files.CSV[0]), got)
			}
			if got := modeOf(t, files.CSV[1]); got != 0o644 {
				t.Errorf("rewritten %s mode %v, want 0644", filepath.Base(files.CSV[1]), got)
			}
		})
	})
}

// listDir lists the names in dir, sorted.
func listDir(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func TestExportRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	old := processStart.Add(-time.Hour)
	touch := func(name string, at time.Time, isDir bool) {
		p := filepath.Join(dir, name)
		var err error
		if isDir {
			err = os.Mkdir(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte("half a file"), 0o644)
		}
		if err == nil {
			err = os.Chtimes(p, at, at)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	touch(".results.csv.123.partial", old, false)                       // a killed write: removed
	touch(".results.xlsx.4567.partial", old, false)                     // a killed write of the workbook: removed
	touch(".results.csv.999.partial", time.Now().Add(time.Hour), false) // newer than this process: kept
	touch(".results.csv.abc.partial", old, false)                       // not the pattern: kept
	touch(".results.csv.12.partial.bak", old, false)                    // not the pattern: kept
	touch("results.csv.12.partial", old, false)                         // not hidden: kept
	touch(".other.csv.12.partial", old, false)                          // another file's: kept
	touch(".results.csv.77.partial", old, true)                         // a directory: kept
	table := Table{Sheet: "Results", File: "results.csv", Columns: []Column{{"a", Text, false}}}
	writeTable(t, Options{}, dir, "results.xlsx", table, [][]string{{"x"}})
	want := []string{".other.csv.12.partial", ".results.csv.12.partial.bak", ".results.csv.77.partial",
		".results.csv.999.partial", ".results.csv.abc.partial", "results.csv", "results.csv.12.partial", "results.xlsx"}
	if got := listDir(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("directory after the write = %q\nwant %q", got, want)
	}
}

// The child process of TestExportKilledWrite.
const (
	killEnvMode = "SVCRECON_EXPORT_KILL_MODE" // good, rows (block while streaming rows), commit (block before the renames)
	killEnvDir  = "SVCRECON_EXPORT_KILL_DIR"
	killEnvMark = "SVCRECON_EXPORT_KILL_MARK"
	killRows    = 5000
)

// killChild writes results.xlsx and results.csv of killRows rows marked
// mark; in mode rows it says "ready" and blocks after half the rows, in
// mode commit once every file is written under its temporary name.
func killChild(mode, dir, mark string) {
	block := func() {
		fmt.Println("ready")
		select {} // until killed
	}
	if mode == "commit" {
		testHookBeforeCommit = block
	}
	w, err := NewWriter(Options{Dir: dir}, "results.xlsx")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	table := Table{Sheet: "Results", File: "results.csv", Columns: []Column{{"mark", Text, false}, {"n", Int, false}}}
	err = w.Write(context.Background(), table, func(yield func(Row, error) bool) {
		for i := range killRows {
			if mode == "rows" && i == killRows/2 {
				block()
			}
			if !yield(Row{Cells: []string{mark, strconv.Itoa(i)}}, nil) {
				return
			}
		}
	})
	if err == nil {
		_, err = w.Finish()
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runChild runs this test binary as a writer child; kill kills it -9 once
// it is ready.
func runChild(t *testing.T, mode, dir, mark string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // generous: a loaded 2-core machine
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestExportKilledWrite$", "-test.count=1")
	cmd.Env = append(os.Environ(), killEnvMode+"="+mode, killEnvDir+"="+dir, killEnvMark+"="+mark)
	if mode == "good" {
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("writer child: %v: %s", err, out)
		}
		return
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("writer child said %q, %v; want ready", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("writer child ended with %v, want killed", err)
	}
}

// checkResults checks that dir holds complete results of mark.
func checkResults(t *testing.T, dir, mark string) {
	t.Helper()
	recs := readCSV(t, filepath.Join(dir, "results.csv"))
	if len(recs) != killRows+1 || recs[killRows][0] != mark || recs[killRows][1] != strconv.Itoa(killRows-1) {
		t.Errorf("results.csv has %d rows ending %q, want %d of %s", len(recs), recs[len(recs)-1], killRows+1, mark)
	}
	f := openBook(t, filepath.Join(dir, "results.xlsx"))
	r := rows(t, f, "Results")
	if len(r) != killRows+1 || r[killRows][0] != mark {
		t.Errorf("results.xlsx has %d rows ending %q, want %d of %s", len(r), r[len(r)-1], killRows+1, mark)
	}
}

// TestExportKilledWrite kills writer processes (kill -9) while they stream
// rows and just before they rename their files: the previous good files
// stay whole, and the next write leaves a good file and no leftovers.
func TestExportKilledWrite(t *testing.T) {
	if mode := os.Getenv(killEnvMode); mode != "" {
		killChild(mode, os.Getenv(killEnvDir), os.Getenv(killEnvMark))
		return
	}
	if testing.Short() {
		t.Skip("runs child processes: -short")
	}
	dir := t.TempDir()
	runChild(t, "good", dir, "v1")
	checkResults(t, dir, "v1")

	runChild(t, "rows", dir, "v2")
	checkResults(t, dir, "v1")
	partial := func() []string {
		var out []string
		for _, n := range listDir(t, dir) {
			if strings.HasSuffix(n, ".partial") {
				out = append(out, n)
			}
		}
		return out
	}
	// The CSV file's, and the workbook's rows (deflated beside it).
	if p := partial(); len(p) != 2 || !leftoverName("results.csv").MatchString(p[0]) || !leftoverName("results.xlsx").MatchString(p[1]) {
		t.Fatalf("after a kill while streaming rows: leftovers %q, want the CSV file's and the workbook's rows", p)
	}

	runChild(t, "commit", dir, "v3")
	checkResults(t, dir, "v1")
	// The third writer removed the second one's leftover when it started.
	if p := partial(); len(p) != 2 || !leftoverName("results.csv").MatchString(p[0]) || !leftoverName("results.xlsx").MatchString(p[1]) {
		t.Fatalf("after a kill before the renames: leftovers %q, want the workbook's and the CSV file's", p)
	}

	runChild(t, "good", dir, "v4")
	checkResults(t, dir, "v4")
	if got, want := listDir(t, dir), []string{"results.csv", "results.xlsx"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the next write: %q, want %q (no leftovers)", got, want)
	}
}
