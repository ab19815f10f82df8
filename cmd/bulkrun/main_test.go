package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store"
)

// binary is the bulkrun command built once for this test binary.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bulkrun-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "bulkrun")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build bulkrun: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// writeInput writes a verifyPanPlusV2 input of n rows and returns its path.
func writeInput(tb testing.TB, dir string, n int) string {
	tb.Helper()
	return writeCSV(tb, filepath.Join(dir, "pans.csv"), "pan,latitude\r\n", n, func(i int) string {
		return fmt.Sprintf("ABCDE%04dF,012.%d\r\n", i, i)
	})
}

// writeCSV writes header and n lines made by line to path and returns it.
func writeCSV(tb testing.TB, path, header string, n int, line func(i int) string) string {
	tb.Helper()
	var sb strings.Builder
	sb.WriteString(header)
	for i := range n {
		sb.WriteString(line(i))
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// runCLI runs bulkrun in-process with the fake's environment and returns
// its exit code, stdout and stderr.
func runCLI(tb testing.TB, srv *bulktest.Server, args ...string) (int, string, string) {
	tb.Helper()
	return runCLIEnv(tb, srv.Environ(), args...)
}

// runCLIEnv runs bulkrun in-process with this SVC_* environment.
func runCLIEnv(tb testing.TB, environ []string, args ...string) (int, string, string) {
	tb.Helper()
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		tb.Setenv(k, v)
	}
	var out, errOut bytes.Buffer
	code := cli.Exit(run(context.Background(), args, &out, &errOut), &errOut, args...)
	return code, out.String(), errOut.String()
}

// results reads a results CSV into maps keyed by column.
func results(tb testing.TB, path string) []map[string]string {
	tb.Helper()
	recs := bulktest.ReadCSV(tb, path)
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// journal counts the journal rows of a database another process writes.
type journal struct{ db *store.DB }

// watchJournal creates (and migrates) the database at path, before any
// bulkrun process starts: two processes creating one database at once may
// meet SQLITE_BUSY while switching it to WAL.
func watchJournal(tb testing.TB, path string) *journal {
	tb.Helper()
	return &journal{db: openDB(tb, path)}
}

func (j *journal) count() int {
	var n int
	j.db.QueryRow(`SELECT count(*) FROM bulk_rows`).Scan(&n)
	return n
}

func runID(tb testing.TB, dbPath string) string {
	tb.Helper()
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	runs, err := bulk.Runs(context.Background(), db, 10)
	if err != nil || len(runs) != 1 {
		tb.Fatalf("runs = %v, %v; want exactly one", runs, err)
	}
	return runs[0].ID
}

// service is the fake service or the sandbox, as the kill test sees it.
type service interface {
	CallCount(ref string) int
	Environ() []string
}

// killAndResume runs bulkrun on an input of n rows against svc, kills the
// process (SIGKILL) at random points, resumes it several times (by running
// the same command again and by bulkrun resume), finishes the run, and
// settles it: recheck --min-wait 0 and resume until no row is pending or
// unsent. extra are more flags for the run command.
//
// It returns the results CSV's rows and the journal by externalRef, and
// checks what holds whatever the service: every row ended success or
// failed, every row reached the service at least once, and more than once
// only when recheck proved an earlier request was never executed (at most
// once per attempt: CallCount ≤ attempts, and 1 for a row sent once).
func killAndResume(t *testing.T, svc service, n int, extra ...string) ([]map[string]string, map[string]bulk.Entry) {
	dir := t.TempDir()
	in := writeInput(t, dir, n)
	dbPath := filepath.Join(dir, "bulk.db")
	jl := watchJournal(t, dbPath)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	t.Logf("seed %d", seed)
	runArgs := append([]string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "8",
		"--set", "longitude=77.59", "--set", "consent=Y", "--log-level", "error"}, extra...)
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), svc.Environ()...)
		return cmd
	}
	kills := 0
	for i := range 5 {
		args := runArgs
		if i%2 == 1 {
			args = []string{"resume", runID(t, dbPath), "--db", dbPath, "--log-level", "error"}
		}
		target := jl.count() + 10 + rng.IntN(70)
		cmd := command(args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		deadline := time.After(30 * time.Second)
	wait:
		for {
			select {
			case err := <-exited:
				t.Logf("round %d: exited before the kill: %v %s", i, err, stderr.String())
				break wait
			case <-deadline:
				cmd.Process.Kill()
				t.Fatalf("round %d: journal never reached %d rows", i, target)
			case <-time.After(time.Duration(rng.IntN(3000)) * time.Microsecond):
				if jl.count() >= target {
					cmd.Process.Signal(syscall.SIGKILL)
					<-exited
					kills++
					t.Logf("round %d: killed with %d journal rows", i, jl.count())
					break wait
				}
			}
		}
	}
	if kills < 3 {
		t.Fatalf("only %d kills happened; the test wants several", kills)
	}
	// Finish the run (rounds 0, 2 and 4 continued it with the same run
	// command; resume also copes with a run a round happened to finish).
	id := runID(t, dbPath)
	out, err := command("resume", id, "--db", dbPath, "--log-level", "error").CombinedOutput()
	if code := exitCode(err); code != 0 && code != cli.ExitFindings {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	settle(t, command, dbPath, id)

	rows := results(t, in+".results.csv")
	if len(rows) != n {
		t.Fatalf("%d result rows, want %d", len(rows), n)
	}
	journal := journalByRef(t, dbPath, id)
	resent, extraCalls := 0, 0
	for i, r := range rows {
		ref := r["externalRef"]
		calls, e := svc.CallCount(ref), journal[ref]
		if want := fmt.Sprintf("ABCDE%04dF", i); r["pan"] != want {
			t.Errorf("result row %d: pan %q, want %q (input order)", i, r["pan"], want)
		}
		if r["outcome"] != bulk.StateSuccess && r["outcome"] != bulk.StateFailed {
			t.Errorf("row %d (%s) ended %s after settling", i, ref, r["outcome"])
		}
		if e.Attempts > 1 {
			resent++
		}
		extraCalls += calls - 1
		switch {
		case calls == 0:
			t.Errorf("row %d (%s) never reached the service (outcome %s %s)", i, ref, r["outcome"], r["statuscode"])
		case calls > 1 && e.Attempts == 1:
			t.Errorf("row %d (%s) reached the service %d times, sent once", i, ref, calls)
		case calls > e.Attempts:
			t.Errorf("row %d (%s) reached the service %d times in %d attempts", i, ref, calls, e.Attempts)
		}
	}
	t.Logf("%d kills; %d of %d rows proven never executed by recheck and sent again; %d requests beyond one per row",
		kills, resent, n, extraCalls)
	return rows, journal
}

// exitCode is a finished command's exit status (0 for a nil error, -1 when
// it did not run).
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// settle rechecks (--min-wait 0) and resumes run id until none of its rows
// is pending or unsent, at most 8 times.
func settle(t *testing.T, command func(args ...string) *exec.Cmd, dbPath, id string) {
	t.Helper()
	for round := 1; ; round++ {
		out, err := command("recheck", id, "--min-wait", "0", "--db", dbPath, "--log-level", "error").CombinedOutput()
		if code := exitCode(err); code != 0 && code != cli.ExitFailure && code != cli.ExitFindings {
			t.Fatalf("recheck: %v\n%s", err, out)
		}
		t.Logf("recheck %d: %s", round, bytes.TrimSpace(out))
		c := counts(t, dbPath, id)
		if c.Pending == 0 && c.Sending == 0 && c.Unsent == 0 {
			return
		}
		if round == 8 {
			t.Fatalf("after %d rounds of recheck and resume: %+v", round, c)
		}
		if c.Unsent > 0 {
			out, err = command("resume", id, "--db", dbPath, "--log-level", "error").CombinedOutput()
			if code := exitCode(err); code != 0 && code != cli.ExitFindings {
				t.Fatalf("resume after recheck: %v\n%s", err, out)
			}
		}
	}
}

// openDB opens the database at path for the rest of the test.
func openDB(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// counts are a run's rows per state.
// settledSending waits until n rows of run id are 'sending': at
// concurrency c with every call held, c in flight and c claimed ahead (a
// sender claims its next row while it calls one), after which the process
// journals nothing until a call ends.
func settledSending(tb testing.TB, dbPath, id string, n int) {
	tb.Helper()
	deadline := time.After(60 * time.Second)
	for c := counts(tb, dbPath, id); c.Sending != n; c = counts(tb, dbPath, id) {
		select {
		case <-deadline:
			tb.Fatalf("rows sending never reached %d in 60 s: %+v", n, c)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func counts(tb testing.TB, dbPath, id string) bulk.Counts {
	tb.Helper()
	db := openDB(tb, dbPath)
	run, err := bulk.LoadRun(context.Background(), db, id)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := bulk.CountRows(context.Background(), db, run)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// journalRows returns a run's journal rows in line order.
func journalRows(db *store.DB, id string) ([]bulk.Entry, error) {
	var out []bulk.Entry
	err := db.EachBulkRow(context.Background(), id, func(e bulk.Entry) error { out = append(out, e); return nil })
	return out, err
}

// journalByRef reads a run's journal keyed by externalRef.
func journalByRef(tb testing.TB, dbPath, id string) map[string]bulk.Entry {
	tb.Helper()
	es, err := journalRows(openDB(tb, dbPath), id)
	if err != nil {
		tb.Fatal(err)
	}
	m := map[string]bulk.Entry{}
	for _, e := range es {
		m[e.Ref] = e
	}
	return m
}

// TestKilledRunsCallEveryRowExactlyOnce: with the fake, which executes every
// request it receives (a dropped connection is dropped after executing), a
// row killed before its request left is found not executed by recheck and
// sent by the next resume, so every row reaches the service exactly once.
func TestKilledRunsCallEveryRowExactlyOnce(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{Latency: 10 * time.Millisecond, Drop: 0.03, Pending: 0.03, Fail: 0.03})
	defer srv.Close()
	rows, _ := killAndResume(t, srv, 600)
	for i, r := range rows {
		ref := r["externalRef"]
		if n := srv.CallCount(ref); n != 1 {
			t.Errorf("row %d (%s): CallCount = %d, want 1", i, ref, n)
		}
		switch {
		case srv.Fault(ref) == bulktest.FaultFail:
			if r["outcome"] != bulk.StateFailed || r["statuscode"] != "IAN" {
				t.Errorf("row %d (%s) answered IAN but ended %s %s", i, ref, r["outcome"], r["statuscode"])
			}
		default: // answered, dropped after executing, or TUP: success once rechecked
			if r["outcome"] != bulk.StateSuccess || r["poolAmount"] != bulktest.Amount(ref).StringFixed(2) {
				t.Errorf("row %d (%s, fault %q): outcome %s pool %q, want success %s", i, ref, srv.Fault(ref),
					r["outcome"], r["poolAmount"], bulktest.Amount(ref).StringFixed(2))
			}
		}
	}
	if srv.Requests() != len(rows) {
		t.Errorf("service saw %d requests, want %d", srv.Requests(), len(rows))
	}
}

// TestInterruptFinishesInFlightCalls sends SIGINT (Ctrl-C) to a running
// bulkrun: it exits 1, every call it started is journaled with its outcome
// (none left sending), nothing new started, and the run is stopped.
func TestInterruptFinishesInFlightCalls(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{Latency: 30 * time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	in := writeInput(t, dir, 300)
	dbPath := filepath.Join(dir, "bulk.db")
	cmd := exec.Command(binary, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "8",
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error")
	cmd.Env = append(os.Environ(), srv.Environ()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	jl := watchJournal(t, dbPath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for jl.count() < 20 {
		select {
		case err := <-exited:
			t.Fatalf("bulkrun exited before 20 rows were journaled: %v\n%s%s", err, stdout.String(), stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			<-exited // the output is complete once Wait returned
			t.Fatalf("journal never reached 20 rows in 60 s\n%s", stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	cmd.Process.Signal(os.Interrupt)
	err := <-exited
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitFailure || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("interrupted run: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run, err := bulk.LoadRun(context.Background(), db, runID(t, dbPath))
	if err != nil {
		t.Fatal(err)
	}
	c, err := bulk.CountRows(context.Background(), db, run)
	if err != nil {
		t.Fatal(err)
	}
	if run.State != bulk.RunStopped || c.Sending != 0 || c.Pending != 0 || c.Unsent == 0 || c.Success != c.Journaled() {
		t.Errorf("after Ctrl-C: state %s, counts %+v; want stopped, every started call journaled success, rows unsent", run.State, c)
	}
	if srv.Requests() != c.Journaled() {
		t.Errorf("service saw %d requests, journal has %d rows", srv.Requests(), c.Journaled())
	}
}

func TestValidationSendsNothing(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.csv")
	os.WriteFile(in, []byte("\uFEFFpan,latitude,longitude,consent,externalRef\n"+
		"ABCDE0001F,1,2,Y,R1\n"+
		"ABCDE0002F,1,2,N,R2\n"+
		",1,2,Y,R3\n"+
		"ABCDE0004F,1,2,Y,R1\n"+
		"ABCDE0005F,1,2,Y,R 5\n"+
		"ABCDE0006F,1,2\n"+
		"ABCDE0007F,1,2,Y,R7\n"), 0o600)
	dbPath := filepath.Join(dir, "bulk.db")
	code, _, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath)
	if code != cli.ExitUsage {
		t.Errorf("exit %d, want %d", code, cli.ExitUsage)
	}
	for _, want := range []string{
		in + `:3: consent: "N" is not one of Y`,
		in + ":4: pan: missing mandatory field",
		in + `:5: externalRef: "R1" already used on line 2`,
		in + `:6: externalRef: "R 5" is not alphanumeric`,
		in + ":7: has 3 columns, the header has 5",
	} {
		if !strings.Contains(stderr, want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, ":2:") || strings.Contains(stderr, ":8:") {
		t.Errorf("valid lines reported:\n%s", stderr)
	}
	if srv.Requests() != 0 {
		t.Errorf("service saw %d requests, want none", srv.Requests())
	}
	if _, err := os.Stat(dbPath); err == nil && watchJournal(t, dbPath).count() != 0 {
		t.Error("journal rows written for an invalid file")
	}
}

func TestMaxDebitStopsAndResumeContinues(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{Latency: time.Millisecond, Price: decimal.RequireFromString("2.50"), DropEvery: 3})
	defer srv.Close()
	dir := t.TempDir()
	in := writeInput(t, dir, 60)
	dbPath := filepath.Join(dir, "bulk.db")
	code, stdout, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "4",
		"--set", "longitude=1", "--set", "consent=Y", "--max-debit", "15", "--log-level", "error")
	if code != cli.ExitFailure || !strings.Contains(stderr, "pool debits 10.00 confirmed + 5.00 pending (2 rows at 2.50) reach --max-debit 15") {
		t.Fatalf("exit %d, want %d with a max-debit message:\n%s%s", code, cli.ExitFailure, stdout, stderr)
	}
	if d := srv.Debited(); !d.Equal(decimal.New(15, 0)) {
		t.Errorf("debited %s, want 15 (six calls of 2.50, two answers lost)", d)
	}
	code, stdout, _ = runCLI(t, srv, "status", runID(t, dbPath), "--db", dbPath)
	if code != 0 || !regexpLine(stdout, ` *pool debits +10\.00 +confirmed`) || !regexpLine(stdout, ` +5\.00 +pending \(2 rows at the expected 2\.50.*`) {
		t.Errorf("status: exit %d; want the confirmed and the pending debits\n%s", code, stdout)
	}
	first := srv.Requests()
	id := runID(t, dbPath)
	code, stdout, stderr = runCLI(t, srv, "resume", id, "--db", dbPath, "--max-debit", "", "--xlsx", "--log-level", "error")
	if code != cli.ExitFindings || !strings.Contains(stdout, "pool debits 100.00 confirmed + 50.00 pending (20 rows at 2.50)") {
		t.Fatalf("resume: exit %d, want %d (every third answer lost: pending)\n%s%s", code, cli.ExitFindings, stdout, stderr)
	}
	if srv.Requests() != 60 {
		t.Errorf("service saw %d requests (%d before resume), want 60", srv.Requests(), first)
	}
	rows := results(t, in+".results.csv")
	if len(rows) != 60 || rows[5]["latitude"] != "012.5" || rows[5]["outcome"] != "success" && rows[5]["outcome"] != "pending" {
		t.Errorf("results: %d rows, row 5 = %v", len(rows), rows[5])
	}
	if _, err := os.Stat(strings.TrimSuffix(in+".results.csv", ".csv") + ".xlsx"); err != nil {
		t.Errorf("no xlsx: %v", err)
	}
	// A completed file is not run again without --again.
	code, _, stderr = runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath,
		"--set", "longitude=1", "--set", "consent=Y")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--again") || srv.Requests() != 60 {
		t.Errorf("re-run of a done file: exit %d, %d requests:\n%s", code, srv.Requests(), stderr)
	}
	code, stdout, _ = runCLI(t, srv, "status", id, "--db", dbPath)
	if code != 0 || !strings.Contains(stdout, "success") || !strings.Contains(stdout, "60") {
		t.Errorf("status: exit %d\n%s", code, stdout)
	}
}

func TestResultsKeepIDsAndLeadingZeros(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "ids.csv")
	os.WriteFile(in, []byte("externalRef,pan,latitude,longitude,consent\n"+
		"00000000000000000001,0ABCD1234F,\"012,97\",077.5,Y\n"+
		"12345678901234567890,ABCDE1234F,1,2,Y\n"), 0o600)
	out := filepath.Join(dir, "out.csv")
	code, stdout, stderr := runCLI(t, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", filepath.Join(dir, "b.db"), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	rows := results(t, out)
	if len(rows) != 2 || rows[0]["externalRef"] != "00000000000000000001" || rows[0]["latitude"] != "012,97" ||
		rows[0]["pan"] != "0ABCD1234F" || rows[1]["externalRef"] != "12345678901234567890" {
		t.Errorf("results = %v", rows)
	}
	if srv.CallCount("00000000000000000001") != 1 || srv.CallCount("12345678901234567890") != 1 {
		t.Error("the file's externalRefs were not sent as given")
	}
	if rows[0]["data.panPlusDataV2.panNumber"] != "0ABCD1234F" {
		t.Errorf("data.panPlusDataV2.panNumber = %q", rows[0]["data.panPlusDataV2.panNumber"])
	}
}

func TestHelpAndUsage(t *testing.T) {
	for _, args := range [][]string{{"run", "-h"}, {"resume", "-h"}, {"recheck", "-h"}, {"status", "-h"}, {"ops", "-h"}, {"-h"}} {
		var out, errOut bytes.Buffer
		if code := cli.Exit(run(context.Background(), args, &out, &errOut), &errOut); code != 0 || !strings.Contains(out.String(), "bulkrun") || errOut.Len() > 0 {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out.String(), errOut.String())
		}
	}
	// status reads the database only: no service or sandbox flag, and
	// --sandbox is a mistake, not a sandbox started.
	var help bytes.Buffer
	cli.Exit(run(context.Background(), []string{"status", "-h"}, &help, io.Discard), io.Discard)
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(help.String(), -1) {
		flags = append(flags, m[1])
	}
	if want := []string{"db", "db-pool", "log-format", "log-level", "version"}; !slices.Equal(flags, want) {
		t.Errorf("status -h lists %v, want %v", flags, want)
	}
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := cli.Exit(run(context.Background(), []string{"status", "--sandbox", "--db", filepath.Join(dir, "x.db")}, &out, &errOut), &errOut); code != cli.ExitUsage ||
		!strings.Contains(errOut.String(), "-sandbox") {
		t.Errorf("status --sandbox: exit %d, %q; want 2 naming the flag", code, errOut.String())
	}
	if code := cli.Exit(run(context.Background(), []string{"run", "--op", "nosuch", "--in", "x.csv"}, &out, &errOut), &errOut); code != cli.ExitUsage {
		t.Errorf("unknown op: exit %d", code)
	}
	if code := cli.Exit(run(context.Background(), []string{"ops", "litigation"}, &out, &errOut), &errOut); code != 0 ||
		!strings.Contains(out.String(), "fatherName") || !strings.Contains(out.String(), "when searchType is Individual") {
		t.Errorf("ops litigation: exit %d\n%s", code, out.String())
	}
}

// An input file edited after a partial run is not silently run again as a
// new run (its rows would be called and billed a second time under new
// derived externalRefs): bulkrun refuses, names the old run, sends nothing;
// --again starts the new run on purpose.
func TestEditedFileIsNotRunAgainSilently(t *testing.T) {
	srv := bulktest.Start(bulktest.Options{Latency: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	in := writeInput(t, dir, 40)
	dbPath := filepath.Join(dir, "bulk.db")
	args := []string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "2",
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"}
	if code, stdout, stderr := runCLI(t, srv, append(args, "--max-debit", "10")...); code != cli.ExitFailure {
		t.Fatalf("first run: exit %d, want %d (stopped by --max-debit)\n%s%s", code, cli.ExitFailure, stdout, stderr)
	}
	sent := srv.Requests()
	id := runID(t, dbPath)
	b, _ := os.ReadFile(in)
	if err := os.WriteFile(in, []byte(strings.Replace(string(b), "ABCDE0039F", "ABCDE9999F", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, srv, args...)
	if code != cli.ExitUsage || !strings.Contains(stderr, "changed since run "+id) || !strings.Contains(stderr, "--again") {
		t.Fatalf("edited file: exit %d, want %d naming run %s and --again\n%s%s", code, cli.ExitUsage, id, stdout, stderr)
	}
	if srv.Requests() != sent {
		t.Fatalf("edited file: service saw %d more requests, want none", srv.Requests()-sent)
	}
	if code, stdout, stderr := runCLI(t, srv, append(args, "--again")...); code != cli.ExitOK {
		t.Fatalf("--again: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := srv.Requests() - sent; got != 40 {
		t.Errorf("--again sent %d requests, want all 40 rows", got)
	}
}
