package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/store"
)

// TestHelperReconcileMain is not a test: run as a child process by the
// SIGTERM tests (RECONCILE_MAIN_ARGS set), it is reconcile's main with
// those arguments (separated by newlines): its signal handling included.
func TestHelperReconcileMain(t *testing.T) {
	args := os.Getenv("RECONCILE_MAIN_ARGS")
	if args == "" {
		t.Skip("helper process for the SIGTERM tests")
	}
	os.Args = append([]string{"reconcile"}, strings.Split(args, "\n")...)
	main()
}

// startMain starts reconcile's main with args in a child process, its
// standard input fed by stdin.
func startMain(t *testing.T, stdin io.Reader, args ...string) *helper {
	t.Helper()
	h := &helper{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperReconcileMain$"),
		out: filepath.Join(t.TempDir(), "child.out"), done: make(chan struct{})}
	h.cmd.Env = append(os.Environ(), "RECONCILE_MAIN_ARGS="+strings.Join(args, "\n"))
	out, err := os.Create(h.out)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	h.cmd.Stdout, h.cmd.Stderr, h.cmd.Stdin = out, out, stdin
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { h.cmd.Wait(); close(h.done) }()
	t.Cleanup(func() { h.kill() })
	return h
}

// terminate sends SIGTERM and returns how long the child took to exit and
// its exit status. It fails when the child is still there after 30 s (five
// seconds is the promise; the margin keeps the test steady under load).
func (h *helper) terminate(t *testing.T) (time.Duration, int) {
	t.Helper()
	start := time.Now()
	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30 s after SIGTERM; output:\n%s", h.output())
	}
	took := time.Since(start)
	t.Logf("exited %v after SIGTERM", took.Round(time.Millisecond))
	return took, h.cmd.ProcessState.ExitCode()
}

// waitForSchema waits until the database at path holds its tables: the
// child is past its start (its signal handler is set) and importing.
func waitForSchema(t *testing.T, h *helper, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			if db, err := store.Open(context.Background(), path); err == nil {
				var n int
				err = db.QueryRow(`SELECT count(*) FROM calls`).Scan(&n)
				db.Close()
				if err == nil {
					return
				}
			}
		}
		select {
		case <-h.done:
			t.Fatalf("the child exited before importing:\n%s", h.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no database after a minute:\n%s", h.output())
		}
	}
}

// openWriter opens a FIFO for writing once its reader has opened it (a
// writer's open fails with ENXIO until then).
func openWriter(t *testing.T, h *helper, fifo string) *os.File {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f
		}
		if !errors.Is(err, syscall.ENXIO) {
			t.Fatal(err)
		}
		select {
		case <-h.done:
			t.Fatalf("the child exited before opening %s:\n%s", fifo, h.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not opened by the child in a minute:\n%s", fifo, h.output())
		}
	}
}

// TestSIGTERMEndsImport: SIGTERM ends import-calls while it waits for
// input that does not come — from standard input, from a FIFO whose writer
// went quiet, at the open of a FIFO no one writes to — promptly, exit 1,
// with whole batches stored; importing the same lines again stores each
// line once.
func TestSIGTERMEndsImport(t *testing.T) {
	const n = calllog.BatchLines + 9000
	all := envelopeLines(n)
	input := strings.Join(all, "\n") + "\n"
	// sent is what the child is given before it waits: past one batch by
	// more than the chunk of lines the import reads at once.
	sent := strings.Join(all[:calllog.BatchLines+7000], "\n") + "\n"
	// again imports the whole input into db and checks every line is
	// stored once.
	again := func(t *testing.T, db string, stored int) {
		t.Helper()
		var out, errOut bytes.Buffer
		if _, err := importCalls(context.Background(), []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(input), &out, &errOut); err != nil {
			t.Fatalf("import again: %v\n%s", err, errOut.String())
		}
		if w := fmt.Sprintf("%d imported, %d already imported, 0 bad", n-stored, stored); !strings.Contains(out.String(), w) {
			t.Errorf("import again = %q, want %q", out.String(), w)
		}
		if got := len(dumpCalls(t, db)); got != n {
			t.Errorf("%d calls after importing again, want %d", got, n)
		}
	}
	check := func(t *testing.T, h *helper, db string) {
		t.Helper()
		_, code := h.terminate(t)
		if code != cli.ExitFailure || !strings.Contains(h.output(), "context canceled") {
			t.Errorf("after SIGTERM: exit %d, output:\n%s", code, h.output())
		}
		stored := len(dumpCalls(t, db))
		if stored != calllog.BatchLines {
			t.Errorf("after SIGTERM %d calls stored, want one whole batch (%d)", stored, calllog.BatchLines)
		}
		again(t, db, stored)
	}

	t.Run("stdin", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "stdin.db")
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		h := startMain(t, pr, "import-calls", "--db", db, "--log-level", "warn", "-")
		pr.Close()
		if _, err := io.WriteString(pw, sent); err != nil {
			t.Fatal(err)
		}
		h.waitForRows(t, db, `SELECT count(*) FROM calls`, calllog.BatchLines)
		check(t, h, db) // standard input stays open, quiet
	})

	t.Run("fifo", func(t *testing.T) {
		dir := t.TempDir()
		db, fifo := filepath.Join(dir, "fifo.db"), filepath.Join(dir, "calls.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		h := startMain(t, nil, "import-calls", "--db", db, "--log-level", "warn", fifo)
		w := openWriter(t, h, fifo)
		defer w.Close()
		if _, err := io.WriteString(w, sent); err != nil {
			t.Fatal(err)
		}
		h.waitForRows(t, db, `SELECT count(*) FROM calls`, calllog.BatchLines)
		check(t, h, db) // the writer stays, quiet
	})

	t.Run("fifo never opened", func(t *testing.T) {
		dir := t.TempDir()
		db, fifo := filepath.Join(dir, "open.db"), filepath.Join(dir, "calls.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		h := startMain(t, nil, "import-calls", "--db", db, "--log-level", "warn", fifo)
		waitForSchema(t, h, db)
		if _, code := h.terminate(t); code != cli.ExitFailure {
			t.Errorf("after SIGTERM: exit %d, output:\n%s", code, h.output())
		}
		again(t, db, 0)
	})
}
