package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/bulk/bulktest"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// worker is a bulkrun process started on the test's PostgreSQL database.
type worker struct {
	cmd    *exec.Cmd
	joined chan string // its first line on stdout: "run ID: N rows … worker W"
	out    bytes.Buffer
	mu     sync.Mutex
	done   chan struct{}
	err    error
}

// startWorker starts bulkrun with args and the fake's environment.
func startWorker(tb testing.TB, srv *bulktest.Server, args ...string) *worker {
	tb.Helper()
	w := &worker{cmd: exec.Command(binary, args...), joined: make(chan string, 1), done: make(chan struct{})}
	w.cmd.Env = append(os.Environ(), srv.Environ()...)
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	w.cmd.Stderr = &lockedBuffer{w: &w.out, mu: &w.mu}
	if err := w.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first {
				w.joined <- sc.Text()
				first = false
			}
			w.mu.Lock()
			fmt.Fprintln(&w.out, sc.Text())
			w.mu.Unlock()
		}
		io.Copy(io.Discard, stdout)
		w.err = w.cmd.Wait()
		close(w.done)
	}()
	tb.Cleanup(func() {
		w.cmd.Process.Kill()
		<-w.done
	})
	return w
}

// waitJoined waits for the worker's first line, failing if it ends first.
func (w *worker) waitJoined(tb testing.TB) string {
	tb.Helper()
	select {
	case l := <-w.joined:
		return l
	case <-w.done:
		tb.Fatalf("worker ended before it joined: %v\n%s", w.err, w.output())
	case <-time.After(60 * time.Second):
		tb.Fatalf("worker did not join in 60 s\n%s", w.output())
	}
	return ""
}

// wait waits for the worker to end and returns its exit code.
func (w *worker) wait(tb testing.TB) int {
	tb.Helper()
	select {
	case <-w.done:
	case <-time.After(120 * time.Second):
		tb.Fatalf("worker still running after 120 s\n%s", w.output())
	}
	return exitCode(w.err)
}

// kill kills the worker (SIGKILL) and reaps it: its pid is gone.
func (w *worker) kill(tb testing.TB) {
	tb.Helper()
	w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.done
}

func (w *worker) output() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

type lockedBuffer struct {
	w  io.Writer
	mu *sync.Mutex
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

// turnstile holds the fake's billable requests in phases: a phase holds
// the requests that arrive until want of them are held together, then
// waits for open (the test's signal, or at once when auto).
type turnstile struct {
	mu    sync.Mutex
	phase *phase
	lost  map[string]bool // refs whose held request is lost on its way
	ended chan string     // every billable request's end (bulktest After)
}

type phase struct {
	want int
	held []string
	full chan struct{}
	open chan struct{}
}

func newPhase(want int, auto bool) *phase {
	p := &phase{want: want, full: make(chan struct{}), open: make(chan struct{})}
	if auto {
		p.open = p.full
	}
	return p
}

func (ts *turnstile) before(ref string, _ map[string]any) {
	ts.mu.Lock()
	p := ts.phase
	if p == nil || len(p.held) == p.want {
		ts.mu.Unlock()
		return
	}
	p.held = append(p.held, ref)
	if len(p.held) == p.want {
		close(p.full)
	}
	ts.mu.Unlock()
	<-p.open
}

// isLost loses the request of each ref in lost once.
func (ts *turnstile) isLost(ref string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	lost := ts.lost[ref]
	delete(ts.lost, ref)
	return lost
}

func (ts *turnstile) after(ref string) { ts.ended <- ref }

// Bulk workers on several processes share one run on PostgreSQL, some
// killed -9 with calls in flight: two workers start the file and are
// killed while the service holds their eight calls (four of which are
// lost on the way and never executed); three more run the same command,
// join the run, turn the dead workers' rows pending and send the rest,
// each with its calls in flight at once; settle resolves the pending
// rows: executed → success, lost → sent again. Every externalRef is
// called exactly once by the service, and status and the results show
// every worker's rows.
func TestWorkersOnSeveralProcessesKilledMidRun(t *testing.T) {
	pg := pgtest.NewDatabase(t)
	ts := &turnstile{lost: map[string]bool{}, ended: make(chan string, 1000)}
	srv := bulktest.Start(bulktest.Options{Before: ts.before, Lost: ts.isLost, After: ts.after})
	defer srv.Close()
	setEnv(t, srv.Environ())
	openDB(t, pg) // migrated before the workers start
	dir := t.TempDir()
	in := writeInput(t, dir, 300)
	args := []string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", pg, "--concurrency", "4",
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"}

	first := newPhase(8, false) // both victims' four calls
	ts.mu.Lock()
	ts.phase = first
	ts.mu.Unlock()
	victims := []*worker{startWorker(t, srv, args...), startWorker(t, srv, args...)}
	select {
	case <-first.full:
	case <-time.After(60 * time.Second):
		t.Fatalf("the victims' calls did not all arrive in 60 s:\n%s\n%s", victims[0].output(), victims[1].output())
	}
	var victimIDs []string
	for _, v := range victims {
		line := v.waitJoined(t)
		victimIDs = append(victimIDs, line[strings.LastIndex(line, " ")+1:])
		v.kill(t)
	}
	ts.mu.Lock()
	for i, ref := range first.held {
		ts.lost[ref] = i%2 == 0
	}
	ts.phase = newPhase(12, true) // the three survivors' four calls each
	ts.mu.Unlock()
	close(first.open)
	for range first.held {
		<-ts.ended // executed (or lost) before anyone looks them up
	}

	var survivors []*worker
	for range 3 {
		survivors = append(survivors, startWorker(t, srv, args...))
	}
	for i, s := range survivors {
		if code := s.wait(t); code != 0 && code != cli.ExitFindings {
			t.Errorf("survivor %d: exit %d\n%s", i, code, s.output())
		}
	}
	id := runID(t, pg)
	// The victims' rows in flight, and those they had claimed to send
	// next, are pending: never sent by the survivors.
	if c := counts(t, pg, id); c.Pending < 8 || c.Success != 300-c.Pending || c.Unsent != 0 {
		t.Fatalf("after the survivors: %s; want the victims' rows (8 in flight at least) pending, the rest success", c)
	}
	code, stdout, stderr := runCLIEnv(t, srv.Environ(), "settle", id, "--db", pg, "--min-wait", "0", "--wait", "1ms", "--log-level", "error")
	if code != 0 {
		t.Fatalf("settle: exit %d\n%s%s", code, stdout, stderr)
	}
	if c := counts(t, pg, id); c.Success != 300 {
		t.Errorf("after settle: %s; want every row success", c)
	}
	calls := 0
	for _, r := range results(t, in+".results.csv") {
		if n := srv.CallCount(r["externalRef"]); n != 1 {
			t.Errorf("%s called %d times by the service, want once", r["externalRef"], n)
		}
		calls++
	}
	if calls != 300 || srv.Requests() != 300 {
		t.Errorf("%d result rows, %d requests executed; want 300 each", calls, srv.Requests())
	}

	// Every worker's rows, in status and in the results.
	per := map[string]int{}
	for _, r := range results(t, in+".results.csv") {
		per[r[bulk.ColumnWorker]]++
	}
	if n := per[victimIDs[0]] + per[victimIDs[1]]; n != 4 {
		t.Errorf("results show %d rows of the killed workers, want the 4 the service executed: %v", n, per)
	}
	if len(per) < 5 {
		t.Errorf("results show the rows of %d workers, want a killed one, the 3 survivors and settle: %v", len(per), per)
	}
	_, status, _ := runCLIEnv(t, nil, "status", id, "--db", pg)
	for w, n := range per {
		if !regexpLine(status, regexpQuote(w)+`\s+`+strconv.Itoa(n)+`\s+.*`) {
			t.Errorf("status does not show worker %s with %d rows:\n%s", w, n, status)
		}
	}
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// refsInput writes a verifyPanPlusV2 input of n rows with their own
// externalRefs (the fake's debits are then known) and returns its path.
func refsInput(tb testing.TB, dir string, n int) string {
	tb.Helper()
	return writeCSV(tb, filepath.Join(dir, "refs.csv"), "externalRef,pan,latitude\n", n, func(i int) string {
		return fmt.Sprintf("WREF%05d,ABCDE%04dF,012.97\n", i, i)
	})
}

// --max-debit holds across worker processes: three bulkrun processes
// started on one file with --max-debit 40 all join before the first call
// is answered, and together, with every third answer lost, stop within
// 40.00 — each on its own would have spent 40.00.
func TestWorkersShareMaxDebit(t *testing.T) {
	pg := pgtest.NewDatabase(t)
	first := newPhase(1, false)
	ts := &turnstile{phase: first, ended: make(chan string, 1000)}
	srv := bulktest.Start(bulktest.Options{Before: ts.before, After: ts.after, Latency: time.Millisecond,
		Price: decimal.RequireFromString("2.50"), DropEvery: 3})
	defer srv.Close()
	setEnv(t, srv.Environ())
	openDB(t, pg)
	in := refsInput(t, t.TempDir(), 150)
	args := []string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", pg, "--concurrency", "4", "--max-debit", "40",
		"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"}
	var ws []*worker
	for range 3 {
		ws = append(ws, startWorker(t, srv, args...))
	}
	for _, w := range ws {
		w.waitJoined(t)
	}
	<-first.full
	close(first.open) // every worker is in before the first debit is known
	for i, w := range ws {
		if code := w.wait(t); code != 1 || !strings.Contains(w.output(), "reach --max-debit 40") {
			t.Errorf("worker %d: exit %d, want 1 (stopped by --max-debit)\n%s", i, code, w.output())
		}
	}
	got, max := srv.Debited(), decimal.RequireFromString("40")
	if got.GreaterThan(max) || got.LessThan(max.Sub(decimal.RequireFromString("2.50"))) {
		t.Errorf("the service debited %s with --max-debit 40 on three workers, every third answer lost", got)
	}
}

// BenchmarkWorkers50ms runs one file with 1, 2 and 4 bulkrun processes at
// --concurrency 8 each on one PostgreSQL database, against the fake
// answering after 50 ms: the ideal is 160 rows/s per worker. Rows:
// BULK_BENCH_WORKER_ROWS (default 4000). The processes' start is in the
// time. Needs SVCRECON_TEST_POSTGRES (scripts/pg-test.sh):
//
//	scripts/pg-test.sh go test ./cmd/bulkrun/ -run '^$' -bench Workers50ms -benchtime 1x
func BenchmarkWorkers50ms(b *testing.B) {
	rows := benchEnv("BULK_BENCH_WORKER_ROWS", 4000)
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers%d", n), func(b *testing.B) {
			var total time.Duration
			for range b.N {
				b.StopTimer()
				pg := pgtest.NewDatabase(b)
				srv := bulktest.Start(bulktest.Options{Latency: 50 * time.Millisecond})
				openDB(b, pg)
				in := refsInput(b, b.TempDir(), rows)
				b.StartTimer()
				start := time.Now()
				var ws []*worker
				for range n {
					ws = append(ws, startWorker(b, srv, "run", "--op", "verifyPanPlusV2", "--in", in, "--db", pg,
						"--concurrency", "8", "--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"))
				}
				for _, w := range ws {
					if code := w.wait(b); code != 0 {
						b.Fatalf("exit %d\n%s", code, w.output())
					}
				}
				total += time.Since(start)
				srv.Close()
				if srv.Requests() != rows {
					b.Fatalf("%d requests for %d rows", srv.Requests(), rows)
				}
			}
			rate := float64(rows*b.N) / total.Seconds()
			b.ReportMetric(rate, "rows/s")
			b.ReportMetric(100*rate/(float64(8*n)/0.05), "%ideal")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// A worker on another host, whose copy of the file lies at another path,
// joins the run of its content and writes the results beside its own copy.
func TestWorkerJoinsFromAnotherPath(t *testing.T) {
	pg := pgtest.NewDatabase(t)
	srv := bulktest.Start(bulktest.Options{})
	defer srv.Close()
	first := writeInput(t, t.TempDir(), 40)
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(t.TempDir(), "copy.csv")
	if err := os.WriteFile(second, b, 0o600); err != nil {
		t.Fatal(err)
	}
	args := func(in, maxDebit string) []string {
		return []string{"run", "--op", "verifyPanPlusV2", "--in", in, "--db", pg, "--concurrency", "2", "--max-debit", maxDebit,
			"--set", "longitude=1", "--set", "consent=Y", "--log-level", "error"}
	}
	if code, stdout, stderr := runCLI(t, srv, args(first, "10")...); code != 1 {
		t.Fatalf("first worker: exit %d, want 1 (stopped by --max-debit)\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCLI(t, srv, args(second, "1000")...)
	if code != 0 || !strings.Contains(stdout, "continuing") {
		t.Fatalf("second worker: exit %d, want 0, continuing the run\n%s%s", code, stdout, stderr)
	}
	rows := results(t, second+".results.csv")
	workers := map[string]int{}
	for _, r := range rows {
		if r["outcome"] != bulk.StateSuccess {
			t.Errorf("row %s: %s", r["externalRef"], r["outcome"])
		}
		workers[r[bulk.ColumnWorker]]++
	}
	if len(rows) != 40 || len(workers) != 2 || srv.Requests() != 40 {
		t.Errorf("results beside the copy: %d rows by workers %v, %d requests; want 40 rows by two workers, each sent once",
			len(rows), workers, srv.Requests())
	}
}
