package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
)

// gate holds the fake's billable requests: arrived is closed when the
// want-th one comes (a row is journaled 'sending', committed, before its
// request leaves), and every request waits until open is called.
type gate struct {
	want     int
	arrived  chan struct{}
	release  chan struct{}
	mu       sync.Mutex
	n        int
	released sync.Once
}

func newGate(want int) *gate {
	return &gate{want: want, arrived: make(chan struct{}), release: make(chan struct{})}
}

func (g *gate) before(string, map[string]any) {
	g.mu.Lock()
	g.n++
	if g.n == g.want {
		close(g.arrived)
	}
	g.mu.Unlock()
	<-g.release
}

func (g *gate) open() { g.released.Do(func() { close(g.release) }) }

// wait waits for the want-th request, failing if done reports first.
func (g *gate) wait(tb testing.TB, done <-chan result) {
	tb.Helper()
	select {
	case <-g.arrived:
	case r := <-done:
		tb.Fatalf("the first process ended before its first request: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	case <-time.After(60 * time.Second):
		tb.Fatal("no request reached the fake in 60 s")
	}
}

// startHeld starts bulkrun run of in on dbPath in a process of its own
// (the binary built for these tests), at concurrency 4 against srv, and
// waits until the gate g holds its requests; the process is killed and
// the test fails when none comes within a minute.
func startHeld(t *testing.T, g *gate, srv *bulktest.Server, in, dbPath string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "4",
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error")
	cmd.Env = append(os.Environ(), srv.Environ()...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.arrived:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("no request reached the fake in 60 s")
	}
	return cmd
}

type result struct {
	code           int
	stdout, stderr string
}

// runAsync runs bulkrun in-process in a goroutine (the environment set by
// the caller) and sends its result.
func runAsync(ctx context.Context, args ...string) <-chan result {
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		code := cli.Exit(run(ctx, args, &out, &errOut), &errOut)
		done <- result{code, out.String(), errOut.String()}
	}()
	return done
}

func setEnv(tb testing.TB, environ []string) {
	tb.Helper()
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		tb.Setenv(k, v)
	}
}

// snapshot is what a refused process must not change: the run's row in
// bulk_runs and its journal.
func snapshot(tb testing.TB, dbPath, id string) string {
	tb.Helper()
	db := openDB(tb, dbPath)
	r, err := db.BulkRun(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	es, err := journalRows(db, id)
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s\n", r.State, r.Settings, r.UpdatedAt)
	for _, e := range es {
		fmt.Fprintf(&b, "%d %s %d %s\n", e.Line, e.State, e.Attempts, e.SentAt)
	}
	return b.String()
}

// While one process works on a run, a second process on the same run —
// the same command on the same file, resume, recheck or settle — says who
// holds it (host, pid, since) in one line and exits 2 without touching a
// row; the first then finishes every row.
func TestSecondProcessOnARunIsRefusedWhileTheFirstFinishes(t *testing.T) {
	// The four rows in flight at concurrency 4, and four claimed ahead:
	// once all four calls have arrived and the next four rows are claimed,
	// the first process can change nothing until the gate opens.
	g := newGate(4)
	srv := bulktest.Start(bulktest.Options{Before: g.before})
	defer srv.Close()
	defer g.open()
	setEnv(t, srv.Environ())
	dir := t.TempDir()
	in := writeInput(t, dir, 30)
	dbPath := filepath.Join(dir, "bulk.db")
	watchJournal(t, dbPath)
	args := []string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", dbPath, "--concurrency", "4",
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"}
	first := runAsync(context.Background(), args...)
	g.wait(t, first) // the first process holds the run, with its rows in flight

	id := runID(t, dbPath)
	settledSending(t, dbPath, id, 8)
	before := snapshot(t, dbPath, id)
	host, _ := os.Hostname()
	holder := fmt.Sprintf("is held by another process: host %s, pid %d, since ", host, os.Getpid())
	for _, second := range [][]string{
		args,
		{"resume", id, "--db", dbPath},
		{"recheck", id, "--db", dbPath, "--min-wait", "0"},
		{"settle", id, "--db", dbPath},
	} {
		cmd := exec.Command(binary, second...) // a real second process
		cmd.Env = append(os.Environ(), srv.Environ()...)
		out, err := cmd.CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if code := exitCode(err); code != cli.ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], holder) {
			t.Errorf("bulkrun %s while held: exit %d, want %d and one line saying %q:\n%s", second[0], code, cli.ExitUsage, holder, out)
		}
		if after := snapshot(t, dbPath, id); after != before {
			t.Errorf("bulkrun %s while held changed the run:\nbefore %s\nafter  %s", second[0], before, after)
		}
	}
	// status, another process too, shows the held run running, and by whom.
	cmd := exec.Command(binary, "status", id, "--db", dbPath)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.HasSuffix(strings.Split(string(out), "\n")[0], ", running") ||
		!strings.Contains(string(out), fmt.Sprintf("held by host %s, pid %d", host, os.Getpid())) {
		t.Errorf("status of the held run: %v\n%s", err, out)
	}
	g.open()
	r := <-first
	if r.code != 0 {
		t.Fatalf("first process: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if c := counts(t, dbPath, id); c.Success != 30 || srv.Requests() != 30 {
		t.Errorf("first process finished with %+v, %d requests; want all 30 rows success, each sent once", c, srv.Requests())
	}
	if l, err := openDB(t, dbPath).BulkRunLease(context.Background(), id); l != nil || err != nil {
		t.Errorf("lease after the run = %+v, %v; want released", l, err)
	}
}

// A process killed (SIGKILL) with rows in flight holds its run no more:
// bulkrun status finds it gone and says so, sweeping the run (interrupted,
// the rows it left pending); every view counts them the same way, and the
// next resume does not send them (too young to look up yet).
func TestKilledHolderIsTakenOverAndEveryViewCountsTheSame(t *testing.T) {
	g := newGate(4) // the four rows in flight at concurrency 4 (and four claimed ahead)
	srv := bulktest.Start(bulktest.Options{Before: g.before})
	defer srv.Close()
	defer g.open()
	setEnv(t, srv.Environ())
	dir := t.TempDir()
	in := writeInput(t, dir, 20)
	dbPath := filepath.Join(dir, "bulk.db")
	watchJournal(t, dbPath)
	cmd := startHeld(t, g, srv, in, dbPath)
	id := runID(t, dbPath)
	settledSending(t, dbPath, id, 8) // four calls held, four rows claimed ahead
	pid := cmd.Process.Pid
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	g.open() // the fake answers; nobody reads the answers

	// status finds the process gone (its pid no longer runs on this
	// host) and sweeps the run: interrupted, its rows in flight pending.
	_, list, _ := runCLIEnv(t, nil, "status", "--db", dbPath)
	_, detail, _ := runCLIEnv(t, nil, "status", id, "--db", dbPath)
	code, recheck, stderr := runCLIEnv(t, nil, "recheck", id, "--db", dbPath)
	if code != cli.ExitFindings {
		t.Errorf("recheck: exit %d, want %d (rows pending)\n%s%s", code, cli.ExitFindings, recheck, stderr)
	}
	if !strings.Contains(list, "run "+id+": the process working on it is gone (host ") || !strings.Contains(list, "pid "+strconv.Itoa(pid)+",") ||
		!strings.Contains(list, "run "+id+": its 8 rows in flight are pending") {
		t.Errorf("status does not say it found pid %d gone and its 8 rows pending:\n%s", pid, list)
	}
	var fields []string
	for i, l := range strings.Split(list, "\n") {
		if strings.HasPrefix(l, "RUN ") {
			fields = strings.Fields(strings.Split(list, "\n")[i+1])
		}
	}
	if len(fields) < 9 || fields[8] != "8" || fields[4] != bulk.RunInterrupted { // the CREATED column is two fields
		t.Errorf("run list STATE, PENDING columns = %q, want interrupted, 8:\n%s", fields, list)
	}
	if !regexpLine(detail, `\s*pending\s+8\s*`) || !strings.Contains(detail, ", interrupted") {
		t.Errorf("status detail does not say interrupted, 8 pending:\n%s", detail)
	}
	if strings.Contains(detail, "held by") {
		t.Errorf("status shows a dead process as the holder:\n%s", detail)
	}
	if !strings.Contains(detail, "bulkrun resume "+id) {
		t.Errorf("status of the killed run does not say how to continue:\n%s", detail)
	}
	if !strings.Contains(recheck, "run "+id+": 8 pending rows;") || !strings.Contains(recheck, "8 sent less than") ||
		!strings.Contains(recheck, "20 rows: 0 success, 0 failed, 8 pending, 12 unsent") {
		t.Errorf("recheck does not count 8 pending as the other views do:\n%s", recheck)
	}
	code, stdout, stderr := runCLIEnv(t, nil, "resume", id, "--db", dbPath, "--log-level", "error")
	if code != cli.ExitFindings {
		t.Errorf("resume after the kill: exit %d, want %d\n%s%s", code, cli.ExitFindings, stdout, stderr)
	}
	if c := counts(t, dbPath, id); c.Success != 12 || c.Pending != 8 || c.Sending != 0 {
		t.Errorf("after resume: %+v; want 12 success, the 8 killed in flight pending (not sent again)", c)
	}
}

// regexpLine reports whether a line of text matches the pattern.
func regexpLine(text, pattern string) bool {
	return regexp.MustCompile(`(?m)^` + pattern + `$`).MatchString(text)
}
