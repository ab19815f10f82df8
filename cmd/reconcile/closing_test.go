package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// closingSection is the README section TestClosingAMonth runs (and
// TestEveryExampleRuns leaves to it).
const closingSection = "Closing a month"

// closingWorld is the world of "Closing a month": svcsandbox --days 35
// --end 2026-12-05 --drift, as its first line says.
var closingWorld = sandbox.Options{Days: 35, End: time.Date(2026, 12, 5, 0, 0, 0, 0, recon.IST),
	Faults: sandbox.Faults{PageDrift: true}, Now: func() time.Time { return time.Date(2026, 12, 6, 0, 0, 0, 0, recon.IST) }}

// closingExit is the exit status a line of the section documents when it
// is not 0.
var closingExit = map[string]int{
	"reconcile signoff 9 --as approver --by ravi": cli.ExitUsage, // ravi prepared run 9
}

// closingSession is the section's session as it ran: each line's output.
type closingSession struct {
	t      *testing.T
	dir    string
	now    time.Time
	night  time.Time         // of the last run
	out    map[string]string // by line (without its comment): stdout and stderr
	pgURL  string            // "" on SQLite
	review func(t *testing.T, book, out string)
}

// TestClosingAMonth runs the README's "Closing a month" in one directory,
// line after line, against its sandbox (with late postings), each night
// at 02:30 IST of the day after its period; on SQLite and PostgreSQL. It
// checks what the section says: the second night marks what the first
// found again with its age and the first night's late posting as
// resolved; a decision made with the command and one made in the workbook
// both are in the history; the preparer cannot approve; the manifest's
// call log is the file's SHA-256; verify finds everything the same, and a
// row of the events table edited by hand; a call log imported later makes
// the sign-offs stale.
func TestClosingAMonth(t *testing.T) {
	needSandbox(t)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			s := &closingSession{t: t, out: map[string]string{}, review: fillReview}
			if backend == "postgres" {
				s.pgURL = pgtest.NewDatabase(t)
			}
			s.run(closingLines(t))
			s.checkNights()
			s.checkDecisions()
			s.checkClose()
		})
	}
}

// closingLines are the command lines of the section's shell sessions.
func closingLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, bl := range clitest.Blocks(string(b)) {
		if bl.Section == closingSection && bl.Lang == "sh" {
			out = append(out, bl.Commands()...)
		}
	}
	if len(out) < 20 {
		t.Fatalf("README's %q has %d command lines", closingSection, len(out))
	}
	for line, reason := range notRunExamples { // the help examples left to this test are its lines
		if strings.HasPrefix(reason, closingRuns) && !slices.ContainsFunc(out, func(l string) bool { return clitest.WithoutComment(l) == line }) {
			t.Errorf("notRunExamples says %q runs here: it is no line of %q", line, closingSection)
		}
	}
	return out
}

// run runs the lines: svcsandbox is the test's sandbox, the shell glue
// around it is left out, export sets the environment.
func (s *closingSession) run(lines []string) {
	t := s.t
	srv, err := sandbox.Start(closingWorld)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	clitest.Setenv(t, clitest.SandboxEnv(srv))
	s.dir = t.TempDir()
	t.Chdir(s.dir)
	s.now = time.Date(2026, 11, 23, 9, 0, 0, 0, recon.IST)
	old := clock
	clock = func() time.Time { return s.now }
	t.Cleanup(func() { clock = old })
	for _, line := range lines {
		c, err := clitest.Parse(line, os.Getenv)
		switch {
		case err != nil && strings.HasPrefix(line, "while "), strings.HasPrefix(line, "kill "):
			continue // the shell's waiting for svcsandbox and stopping it
		case err != nil:
			t.Fatalf("README: %q: %v", line, err)
		case c.Prog == "svcsandbox":
			var b bytes.Buffer
			if err := srv.WriteCallLog(&b); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(s.dir, "calls.jsonl"), b.Bytes(), 0o600)
		case c.Prog == "export":
			s.setenv(c.Args)
		case c.Prog == "reconcile":
			s.runLine(c)
		default:
			t.Fatalf("README: %q: the test runs reconcile, svcsandbox and export lines only", line)
		}
	}
}

// setenv sets an export line's variables (SVC_DB: the test's PostgreSQL
// database on that backend).
func (s *closingSession) setenv(args []string) {
	for _, kv := range args {
		k, v, _ := strings.Cut(kv, "=")
		if k == "SVC_DB" && s.pgURL != "" {
			v = s.pgURL
		}
		s.t.Setenv(k, v)
	}
}

var closingTo = regexp.MustCompile(`--to (\S+)`)

// runLine runs a reconcile line: a run at 02:30 IST the day after its
// period (or the night after the last run, for a period run again),
// anything else a minute after the line before; before an import
// of reviewed.xlsx, the analyst's review of the last night's workbook.
func (s *closingSession) runLine(c *clitest.Command) {
	t := s.t
	line := clitest.WithoutComment(c.Line)
	if m := closingTo.FindStringSubmatch(line); m != nil && c.Args[0] == "run" {
		d, err := time.ParseInLocation(time.DateOnly, m[1], recon.IST)
		if err != nil {
			t.Fatal(err)
		}
		next := d.AddDate(0, 0, 1).Add(150 * time.Minute) // 02:30 the night after the period
		for !next.After(s.night) {
			next = next.AddDate(0, 0, 1) // the same period again: another night
		}
		s.now, s.night = next, next
	} else {
		s.now = s.now.Add(time.Minute)
	}
	if len(c.Args) >= 3 && c.Args[0] == "exceptions" && c.Args[1] == "import" {
		if _, err := os.Stat(c.Args[2]); err != nil {
			s.review(t, s.lastWorkbook(), c.Args[2])
		}
	}
	var o, e bytes.Buffer
	err := run(context.Background(), append(c.Args, "--log-level", "warn"), &o, &e)
	code := cli.Exit(err, &e)
	s.out[line] = o.String() + e.String()
	t.Logf("$ %s   [%s]\n%s", line, s.now.Format("2006-01-02 15:04"), s.out[line])
	if code != closingExit[line] {
		t.Fatalf("%s: exit %d, want %d\n%s", line, code, closingExit[line], s.out[line])
	}
}

// lastWorkbook is the workbook of the last night run (the latest period).
func (s *closingSession) lastWorkbook() string {
	books, _ := filepath.Glob(filepath.Join(s.dir, "nights", "*", "reconciliation-*.xlsx"))
	if len(books) == 0 {
		s.t.Fatal("no workbook of a night to review")
	}
	slices.SortFunc(books, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	return books[len(books)-1]
}

// fillReview is what the section's analyst does in the workbook: on the
// Exceptions sheet, explained for the duplicate debit with a note; saved
// as out.
func fillReview(t *testing.T, book, out string) {
	t.Helper()
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(evidence.SheetExceptions)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if len(r) > 1 && r[1] == recon.DuplicateDebit {
			f.SetCellValue(evidence.SheetExceptions, "L"+strconv.Itoa(i+1), evidence.StatusExplained)
			f.SetCellValue(evidence.SheetExceptions, "M"+strconv.Itoa(i+1), "the service refunded the second debit on 2026-11-12")
		}
	}
	if err := f.SaveAs(out); err != nil {
		t.Fatal(err)
	}
}

// output is the output of the section's line that begins with prefix.
func (s *closingSession) output(prefix string) string {
	for l, o := range s.out {
		if strings.HasPrefix(l, prefix) {
			return o
		}
	}
	s.t.Fatalf("no line %q ran", prefix)
	return ""
}

// checkNights checks the second night: the first night's late posting
// resolved, what it found again open since its day, with its age.
func (s *closingSession) checkNights() {
	t := s.t
	tue := s.output("reconcile run --from 2026-11-01 --to 2026-11-24")
	if !regexp.MustCompile(`exceptions: \d+ new, \d+ carried over, 1 resolved`).MatchString(tue) {
		t.Errorf("Tuesday's run does not resolve Monday's late posting:\n%s", tue)
	}
	lives := map[string]int{}
	for _, r := range readCSV(t, filepath.Join(s.dir, "nights", "11-24", "exceptions.csv")) {
		lives[r["Life"]]++
	}
	if lives[evidence.LifeResolved] != 1 || lives["open since 2026-11-23 (1 days)"] < 10 || lives[evidence.LifeNew] < 1 {
		t.Errorf("Tuesday's exceptions.csv lives %v: want 1 resolved since last run, open since 2026-11-23 (1 days) and new", lives)
	}
	matching := readCSV(t, filepath.Join(s.dir, "nights", "11-24", "matching.csv"))
	if !hasRow(matching, map[string]string{"outcome": recon.AmountMismatch, "life": "open since 2026-11-23 (1 days)"}) {
		t.Errorf("Tuesday's matching.csv: the amount mismatch is not open since Monday")
	}
}

// history is the events of an exception, "by action".
func (s *closingSession) history(id string) []string {
	var o, e bytes.Buffer
	if err := run(context.Background(), []string{"exceptions", "show", id, "--format", "json"}, &o, &e); err != nil {
		s.t.Fatalf("exceptions show %s: %v %s", id, err, e.String())
	}
	var got []struct {
		Events []struct{ By, Action string } `json:"events"`
	}
	if err := json.Unmarshal(o.Bytes(), &got); err != nil || len(got) != 1 {
		s.t.Fatalf("exceptions show --format json: %v\n%s", err, o.String())
	}
	var out []string
	for _, ev := range got[0].Events {
		out = append(out, ev.By+" "+ev.Action)
	}
	return out
}

var resolveLine = regexp.MustCompile(`^reconcile exceptions resolve (EX-\S+) .*--by (\S+)`)

// checkDecisions checks that the decision made with the command and the
// one made in the workbook are both in the history, by their people, and
// that the workbook imported again adds nothing.
func (s *closingSession) checkDecisions() {
	t := s.t
	var id, by string
	for l := range s.out {
		if m := resolveLine.FindStringSubmatch(l); m != nil {
			id, by = m[1], m[2]
		}
	}
	if id == "" {
		t.Fatal("the section resolves no exception by command")
	}
	if h := s.history(id); !slices.Contains(h, by+" "+evidence.StatusWrittenOff) {
		t.Errorf("%s's history %v: no written-off by %s", id, h, by)
	}
	var o, e bytes.Buffer
	if err := run(context.Background(), []string{"exceptions", "list", "--status", "all", "--kind", recon.DuplicateDebit, "--format", "json"}, &o, &e); err != nil {
		t.Fatal(err, e.String())
	}
	var dups []struct{ ID, Status string }
	if err := json.Unmarshal(o.Bytes(), &dups); err != nil || len(dups) != 1 {
		t.Fatalf("duplicate debits: %v %s", err, o.String())
	}
	if h := s.history(dups[0].ID); !slices.Contains(h, "asha "+evidence.StatusExplained) || dups[0].Status != evidence.StatusExplained {
		t.Errorf("the duplicate debit %s (%s): history %v, want asha's explained from the workbook", dups[0].ID, dups[0].Status, h)
	}
	if again := s.output("reconcile exceptions import reviewed.xlsx"); !strings.Contains(again, "0 rows applied, 0 refused") {
		t.Errorf("the workbook imported twice: the second import says\n%s", again)
	}
}

// checkClose checks the sign-offs, the history, verify, the manifest's
// call log, a call log imported later (stale) and an events row edited by
// hand (verify exit 1).
func (s *closingSession) checkClose() {
	t := s.t
	if o := s.output("reconcile signoff 9 --as approver --by ravi"); !strings.Contains(o, "cannot approve") {
		t.Errorf("ravi approving what he prepared:\n%s", o)
	}
	h := s.output("reconcile history")
	if !regexp.MustCompile(`9 +2026-11-01\.\.2026-11-30 +preparer +ravi .* valid`).MatchString(h) ||
		!regexp.MustCompile(`9 +2026-11-01\.\.2026-11-30 +approver +meera .* valid`).MatchString(h) {
		t.Errorf("history does not show run 9 prepared by ravi and approved by meera:\n%s", h)
	}
	if v := s.output("reconcile verify close/2026-11/manifest.json"); !strings.Contains(v, "everything matches") {
		t.Errorf("verify:\n%s", v)
	}
	m, err := evidence.ParseManifest(mustRead(t, filepath.Join(s.dir, "close", "2026-11", evidence.ManifestFile)))
	if err != nil {
		t.Fatal(err)
	}
	want := sha256sumOf(t, filepath.Join(s.dir, "calls.jsonl"))
	if !slices.ContainsFunc(m.Inputs, func(in evidence.Input) bool { return in.Name == "calls.jsonl" && in.SHA256 == want }) {
		t.Errorf("the manifest's inputs do not name calls.jsonl by its sha256sum %s: %+v", want, m.Inputs[:2])
	}
	s.checkDayDigest(m)
	s.checkStaleAndTamper()
}

// checkDayDigest recomputes a statement day's digest from statement.csv
// exported with --csv-raw, as the README's recipe says, and finds the
// manifest's.
func (s *closingSession) checkDayDigest(m *evidence.Manifest) {
	t := s.t
	var o, e bytes.Buffer
	if err := run(context.Background(), []string{"export", "--from", "2026-11-01", "--to", "2026-11-30", "--out", "raw",
		"--format", "csv", "--csv-raw"}, &o, &e); err != nil {
		t.Fatal(err, e.String())
	}
	recs, err := csv.NewReader(bytes.NewReader(mustRead(t, filepath.Join(s.dir, "raw", "statement.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := slices.Index(recs[0], "firstSyncedAt") // accountNumber … the last API field
	var lines []string
	for _, r := range recs[1:] {
		if r[slices.Index(recs[0], "txnDate")] == "2026-11-15" {
			lines = append(lines, strings.Join(r[:last], "\x1f")+"\n")
		}
	}
	slices.Sort(lines) // LC_ALL=C sort: bytewise
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	if !slices.ContainsFunc(m.Inputs, func(in evidence.Input) bool {
		return in.Kind == evidence.InputStatementDay && in.Name == "2026-11-15" && in.SHA256 == hex.EncodeToString(sum[:])
	}) || len(lines) < 30 {
		t.Errorf("2026-11-15's digest from statement.csv (%d records) is %x: the manifest's is another", len(lines), sum)
	}
}

// checkStaleAndTamper imports a call log of November after the sign-offs
// (history: stale), then edits a row of the events table (verify: exit 1).
func (s *closingSession) checkStaleAndTamper() {
	t := s.t
	late := `{"at":"2026-11-20T10:00:00.000+05:30","operation":"panDin","externalRef":"LATE1","response":{"statuscode":"ERR","status":"failed","timestamp":"2026-11-20 10:00:00"}}` + "\n"
	os.WriteFile(filepath.Join(s.dir, "late.jsonl"), []byte(late), 0o600)
	var o, e bytes.Buffer
	if err := run(context.Background(), []string{"import-calls", "late.jsonl"}, &o, &e); err != nil {
		t.Fatal(err, e.String())
	}
	o.Reset()
	if err := run(context.Background(), []string{"history"}, &o, &e); err != nil || !strings.Contains(o.String(), "stale: callLog late.jsonl") {
		t.Errorf("history after a call log of November was imported (%v):\n%s", err, o.String())
	}
	db := openStore(t, os.Getenv("SVC_DB"))
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), `UPDATE evidence_events SET note = 'fine' WHERE action = 'explained'`); err != nil {
		t.Fatal(err)
	}
	o.Reset()
	err := run(context.Background(), []string{"verify"}, &o, &e)
	if code := cli.Exit(err, &e); code != cli.ExitFailure || !strings.Contains(o.String(), "DIFFERS  event history: event") {
		t.Errorf("verify after an events row was edited: exit %d\n%s", code, o.String())
	}
}

// sha256sumOf is what sha256sum prints for a file (computed here when the
// tool is missing).
func sha256sumOf(t *testing.T, path string) string {
	t.Helper()
	if out, err := exec.Command("sha256sum", path).Output(); err == nil {
		return strings.Fields(string(out))[0]
	}
	sum := sha256.Sum256(mustRead(t, path))
	return hex.EncodeToString(sum[:])
}
