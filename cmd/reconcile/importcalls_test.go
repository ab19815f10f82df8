package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/store"
)

const (
	okEnvelope = `{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 10:00:00","orderid":"O1",` +
		`"data":{"externalRef":"R1","pool":{"openingBal":"100","amount":"10","closingBal":"90"}}}`
	brokenEnvelope = `{"statuscode":"TXN","status":"ok","timestamp":"2026-11-21 10:00:05","orderid":"O2",` +
		`"data":{"externalRef":"R2","pool":{"openingBal":"90","amount":"abc","closingBal":"80"}}}`
)

func TestImportCallsAndCheckCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	log := filepath.Join(dir, "calls.jsonl")
	os.WriteFile(log, []byte(okEnvelope+"\nnot json\n"+brokenEnvelope+"\n"), 0o600)

	var out, errOut bytes.Buffer
	_, err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", filepath.Join(dir, "calls.*")}, strings.NewReader(""), &out, &errOut)
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != cli.ExitFailure {
		t.Fatalf("import-calls with bad lines = %v, want exit 1", err)
	}
	for _, want := range []string{log + ":2: not JSON", log + `:3: pool.amount "abc" is not an amount`} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if !strings.Contains(out.String(), "1 imported") {
		t.Errorf("stdout = %q, want the summary line", out.String())
	}

	// Standard input; the same line again adds nothing and is no error.
	out.Reset()
	errOut.Reset()
	if _, err := importCalls(ctx, []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(okEnvelope+"\n"), &out, &errOut); err != nil {
		t.Fatalf("import-calls - = %v (%s)", err, errOut.String())
	}
	if !strings.Contains(out.String(), "0 imported, 1 already imported") {
		t.Errorf("stdout = %q", out.String())
	}

	out.Reset()
	if err := run(ctx, []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"}, &out, &errOut); err != nil {
		t.Fatalf("check = %v", err)
	}
	for _, want := range []string{"callOnly", "total debited", "10.00", "unsettled"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, out.String())
		}
	}
	err = run(ctx, []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21", "--fail-on-breaks"}, &out, &errOut)
	if !errors.As(err, &ee) || ee.Code != cli.ExitFindings {
		t.Errorf("check --fail-on-breaks with a call-only debit = %v, want exit 3", err)
	}
}

func TestImportCallsAndCheckUsage(t *testing.T) {
	ctx := context.Background()
	var out, errOut bytes.Buffer
	for _, args := range [][]string{
		{"import-calls"},
		{"import-calls", "-", "-"},
		{"import-calls", "a.jsonl", "--log-level", "warn"},
		{"check", "--from", "2026-11-21"},
		{"check", "--from", "2026-11-21", "--to", "2026-11-20"},
		{"check", "--from", "2026-11-21", "--to", "2026-11-21", "--as-of", "2026-11-01"},
		{"check", "--from", "21/11/2026", "--to", "2026-11-21"},
	} {
		var ue *cli.UsageError
		if err := run(ctx, args, &out, &errOut); !errors.As(err, &ue) {
			t.Errorf("%v = %v, want a usage error", args, err)
		}
	}
	for _, cmd := range []string{"import-calls", "check"} {
		out.Reset()
		if err := run(ctx, []string{cmd, "-h"}, &out, &errOut); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s -h = %v", cmd, err)
		}
		if !strings.Contains(out.String(), "Examples:\n  reconcile "+cmd) {
			t.Errorf("%s -h shows no examples:\n%s", cmd, out.String())
		}
	}
}

// TestHelperReconcile is not a test: run as a child process by the kill
// tests (RECONCILE_HELPER_ARGS set), it is the reconcile command with those
// arguments (separated by newlines), so that it can be killed with SIGKILL.
func TestHelperReconcile(t *testing.T) {
	args := os.Getenv("RECONCILE_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process for the kill tests")
	}
	os.Exit(cli.Exit(run(context.Background(), strings.Split(args, "\n"), os.Stdout, os.Stderr), os.Stderr))
}

// helper is a reconcile child process.
type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   string        // file holding its output
	done  chan struct{} // closed when it exited
}

// startHelper starts reconcile with args in a child process, with env
// added to the environment.
func startHelper(t *testing.T, env []string, args ...string) *helper {
	t.Helper()
	h := &helper{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperReconcile$"),
		out: filepath.Join(t.TempDir(), "child.out"), done: make(chan struct{})}
	h.cmd.Env = append(append(os.Environ(), env...), "RECONCILE_HELPER_ARGS="+strings.Join(args, "\n"))
	out, err := os.Create(h.out)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	h.cmd.Stdout, h.cmd.Stderr = out, out
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { h.cmd.Wait(); close(h.done) }()
	t.Cleanup(func() { h.kill() })
	return h
}

// output returns what the child wrote so far.
func (h *helper) output() string {
	b, _ := os.ReadFile(h.out)
	return string(b)
}

// kill sends SIGKILL and waits for the child to be gone.
func (h *helper) kill() {
	h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.done
}

// waitForRows polls query on the database at path until it returns at
// least n, failing when the child exits first or after a minute.
func (h *helper) waitForRows(t *testing.T, path, query string, n int) int {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for deadline := time.Now().Add(time.Minute); ; {
		var got int
		if err := db.QueryRow(query).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return got
		}
		select {
		case <-h.done:
			t.Fatalf("the child exited with %d of %d rows of %q; its output:\n%s", got, n, query, h.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %d rows of %q: %d so far; child output:\n%s", n, query, got, h.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// envelopeLines returns n bare response envelopes, each a debit of one
// chain.
func envelopeLines(n int) []string {
	lines := make([]string, n)
	bal := decimal.NewFromInt(int64(n) * 2)
	for i := range lines {
		ts := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format("2006-01-02 15:04:05")
		next := bal.Sub(decimal.RequireFromString("1.18"))
		lines[i] = fmt.Sprintf(`{"statuscode":"TXN","status":"ok","timestamp":%q,"orderid":"O%d","data":{"externalRef":"R%d","pool":{"openingBal":"%s","amount":"1.18","closingBal":"%s"}}}`,
			ts, i, i, bal.StringFixed(2), next.StringFixed(2))
		bal = next
	}
	return lines
}

// queryStrings returns the single text column of query on the database at
// path, row by row.
func queryStrings(t *testing.T, path, query string) []string {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dumpCalls lists the stored calls (without ids and import times), sorted.
func dumpCalls(t *testing.T, path string) []string {
	t.Helper()
	return queryStrings(t, path, `SELECT lower(hex(line_hash)) || '|' || source || '|' || source_line || '|' || ts || '|' || external_ref || '|' ||
		orderid || '|' || outcome || '|' || pool_opening || '|' || pool_amount || '|' || pool_closing || '|' || coalesce(response, '')
		FROM calls ORDER BY line_hash`)
}

// TestImportCallsKilledAndRunAgain kills an import (SIGKILL) while it reads
// its input, after some batches were committed: the database holds whole
// batches only, and importing the whole input again ends identical to a
// clean import, nothing missing or twice.
func TestImportCallsKilledAndRunAgain(t *testing.T) {
	const n = calllog.BatchLines + 3000
	all := envelopeLines(n)
	input := strings.Join(all, "\n") + "\n"
	dir := t.TempDir()
	ctx := context.Background()

	clean := filepath.Join(dir, "clean.db")
	var out, errOut bytes.Buffer
	if _, err := importCalls(ctx, []string{"--db", clean, "--log-level", "warn", "-"}, strings.NewReader(input), &out, &errOut); err != nil {
		t.Fatalf("clean import: %v\n%s", err, errOut.String())
	}
	want := dumpCalls(t, clean)
	if len(want) != n {
		t.Fatalf("clean import stored %d calls, want %d", len(want), n)
	}

	killed := filepath.Join(dir, "killed.db")
	child := startHelper(t, nil, "import-calls", "--db", killed, "--log-level", "warn", "-")
	// More than one batch, less than two: the child commits one batch and
	// waits, in the middle of the second, for lines that never come.
	if _, err := io.WriteString(child.stdin, strings.Join(all[:calllog.BatchLines+2000], "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	child.waitForRows(t, killed, `SELECT count(*) FROM calls`, calllog.BatchLines)
	child.kill()
	if got := len(dumpCalls(t, killed)); got != calllog.BatchLines {
		t.Fatalf("after SIGKILL %d calls stored, want one whole batch (%d)", got, calllog.BatchLines)
	}

	out.Reset()
	errOut.Reset()
	if _, err := importCalls(ctx, []string{"--db", killed, "--log-level", "warn", "-"}, strings.NewReader(input), &out, &errOut); err != nil {
		t.Fatalf("import again: %v\n%s", err, errOut.String())
	}
	if w := fmt.Sprintf("%d imported, %d already imported, 0 bad", n-calllog.BatchLines, calllog.BatchLines); !strings.Contains(out.String(), w) {
		t.Errorf("import again = %q, want %q", out.String(), w)
	}
	if got := dumpCalls(t, killed); !slices.Equal(got, want) {
		t.Errorf("killed and imported again: %d calls, clean import %d; contents differ", len(got), len(want))
	}
}

// TestCheckEmptyPeriodWarns: a period with nothing imported or synced (a
// forgotten import, the database of another account) says so.
func TestCheckEmptyPeriodWarns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "empty.db")
	openStore(t, db).Close()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "nothing to reconcile in the period") {
		t.Errorf("stderr = %q, want the warning", errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if _, err := importCalls(context.Background(), []string{"--db", db, "--log-level", "warn", "-"}, strings.NewReader(okEnvelope+"\n"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"check", "--db", db, "--log-level", "warn", "--from", "2026-11-21", "--to", "2026-11-21"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errOut.String(), "nothing to reconcile") {
		t.Errorf("warned with a call in the period: %q", errOut.String())
	}
}
