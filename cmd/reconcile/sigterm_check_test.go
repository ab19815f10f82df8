package main

import (
	"bufio"
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
)

// checkPauseEnv, set in a child's environment (TestHelperReconcileMain),
// makes its check stop at that call of its stream until its context is
// done (SIGTERM), then go on reading: pausingStore.
const checkPauseEnv = "RECONCILE_CHECK_PAUSE"

func init() {
	n, err := strconv.Atoi(os.Getenv(checkPauseEnv))
	if err != nil || n <= 0 {
		return
	}
	checkStore = func(db *store.DB, _ *evidence.CallTally) ledger.CheckStore { return &pausingStore{DB: db, at: n} }
}

// pausingStore is the store with its stream of calls held at the at-th
// call until the check's context is done, so that the signal comes in the
// middle of the check, whatever the machine's speed. After that the
// stream goes on regardless of the context (as a stream that keeps
// reading would): the check itself must stop. It says on stderr where it
// paused and, at its end, how many calls it gave after the signal.
type pausingStore struct {
	*store.DB
	at int
}

func (s *pausingStore) CheckCalls(ctx context.Context, w ledger.Window) iter.Seq2[recon.Call, error] {
	return func(yield func(recon.Call, error) bool) {
		i, after := 0, 0
		defer func() { fmt.Fprintf(os.Stderr, "calls after the signal: %d\n", after) }()
		for c, err := range s.DB.CheckCalls(context.WithoutCancel(ctx), w) {
			if i++; i == s.at {
				fmt.Fprintf(os.Stderr, "paused at call %d\n", i)
				<-ctx.Done()
			} else if i > s.at {
				after++
			}
			if !yield(c, err) {
				return
			}
		}
	}
}

// waitForOutput waits until the child's output holds s, failing when the
// child exits first or after a minute.
func (h *helper) waitForOutput(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(h.output(), s); time.Sleep(20 * time.Millisecond) {
		select {
		case <-h.done:
			t.Fatalf("the child exited before saying %q:\n%s", s, h.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %q; child output:\n%s", s, h.output())
		}
	}
}

// checkResults lists the check's tables' rows per run: table, run and count.
func checkResults(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"recon_matched", "recon_matches", "recon_breaks", "recon_reversals", "recon_unsettled"} {
		out = append(out, queryStrings(t, path, `SELECT '`+table+` run ' || run_id || ': ' || count(*) FROM `+table+` GROUP BY run_id`)...)
	}
	return out
}

// TestSIGTERMEndsCheck: SIGTERM in the middle of a check of a month (the
// check held at a call until the signal comes, its stream of calls going on
// after it) ends the check promptly, exit 1, having read few calls more;
// the attempt is in the history as an interrupted run, none of its rows is
// stored, the previous run's results are whole, and the next check ends
// as the first did.
func TestSIGTERMEndsCheck(t *testing.T) {
	const pauseAt, maxAfter = 2_000, 1_000
	srv, err := sandbox.Start(sandbox.Options{Seed: 9, Days: 2, TotalRecords: 16_000, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	clitest.Setenv(t, clitest.SandboxEnv(srv))
	dir := t.TempDir()
	db, log := filepath.Join(dir, "month.db"), filepath.Join(dir, "calls.jsonl")
	writeCallLog(t, srv, log)
	f, to := srv.Period()
	period := []string{"--from", f.Format(time.DateOnly), "--to", to.Format(time.DateOnly)}
	for _, args := range [][]string{
		append([]string{"sync", "--what", "statement"}, period...),
		{"import-calls", log},
		append([]string{"check"}, period...),
	} {
		if _, stderr, err := runCmd(t, append(append(args[:1:1], "--db", db, "--log-level", "warn"), args[1:]...)...); err != nil {
			t.Fatalf("%s: %v\n%s", args[0], err, stderr)
		}
	}
	if calls := srv.Counts().Calls; calls < pauseAt+10*maxAfter {
		t.Fatalf("the month has %d calls, want at least %d", calls, pauseAt+10*maxAfter)
	}
	before := checkResults(t, db)

	t.Setenv(checkPauseEnv, strconv.Itoa(pauseAt))
	h := startMain(t, nil, append([]string{"check", "--db", db, "--log-level", "warn"}, period...)...)
	h.waitForOutput(t, fmt.Sprintf("paused at call %d\n", pauseAt))
	if _, code := h.terminate(t); code != cli.ExitFailure || !strings.Contains(h.output(), "context canceled") {
		t.Errorf("after SIGTERM: exit %d, want %d; output:\n%s", code, cli.ExitFailure, h.output())
	}
	m := regexp.MustCompile(`calls after the signal: (\d+)`).FindStringSubmatch(h.output())
	if m == nil {
		t.Fatalf("the child did not say how many calls it read after the signal:\n%s", h.output())
	}
	t.Logf("read %s calls after the signal", m[1])
	if after, _ := strconv.Atoi(m[1]); after > maxAfter {
		t.Errorf("the check read %d calls after SIGTERM, want at most %d", after, maxAfter)
	}

	if got := queryStrings(t, db, `SELECT state FROM recon_runs ORDER BY id`); !slices.Equal(got, []string{"ok", ledger.RunInterrupted}) {
		t.Errorf("runs = %q, want the first check's and an interrupted one", got)
	}
	if got := checkResults(t, db); !slices.Equal(got, before) {
		t.Errorf("after the interrupted check the results are %q, want the first run's %q", got, before)
	}
	if got := queryStrings(t, db, `PRAGMA integrity_check`); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check = %q", got)
	}
	if _, stderr, err := runCmd(t, append([]string{"check", "--db", db, "--log-level", "warn"}, period...)...); err != nil {
		t.Fatalf("check again: %v\n%s", err, stderr)
	}
	// The third run's rows, counted as the first run's were.
	want := strings.NewReplacer(" run 1: ", " run 3: ").Replace(strings.Join(before, "\n"))
	if got := strings.Join(checkResults(t, db), "\n"); got != want {
		t.Errorf("checked again: results\n%s\nwant\n%s", got, want)
	}
}

// writeCallLog writes the sandbox's call log to path.
func writeCallLog(t *testing.T, srv *sandbox.Server, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := srv.WriteCallLog(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
