package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// notRunExamples are the example lines of svcsandbox's help texts and of
// the README's sessions that name svcsandbox, which no test runs, with the
// reason. Each must still be an example.
var notRunExamples = map[string]string{
	"while [ ! -s sandbox.env ] && kill -0 $! 2>/dev/null; do sleep 1; done; . ./sandbox.env": "shell glue waiting for the settings; the test checks that the > file holds them once the sandbox serves",
	"kill %1": "shell glue: the test stops each sandbox (SIGTERM) once it serves",
}

// otherCommands are the commands of the README's sessions whose lines
// another package's test runs.
var otherCommands = map[string]string{
	"reconcile":  "cmd/reconcile TestEveryExampleRuns",
	"billersync": "cmd/reconcile TestEveryExampleRuns and cmd/billersync TestEveryExampleRuns",
	"go":         "cmd/reconcile TestEveryExampleRuns (go test, go build: listed there)",
	"export":     "cmd/reconcile TestEveryExampleRuns (listed there)",
}

// session is a list of example lines run in turn in one directory.
type session struct {
	name  string
	lines []string
}

// exampleSessions are the Examples blocks of svcsandbox -h and svcsandbox
// callback -h, and the README's shell sessions (outside the bulkrun
// section) that use svcsandbox or bulkrun.
func exampleSessions(t *testing.T) []session {
	t.Helper()
	var out []session
	for _, args := range [][]string{{"-h"}, {"callback", "-h"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("svcsandbox %q = %v", args, err)
		}
		lines := clitest.HelpExamples(stdout.String())
		if len(lines) < 3 {
			t.Fatalf("svcsandbox %q shows %d examples", args, len(lines))
		}
		out = append(out, session{"svcsandbox " + strings.Join(args, " "), lines})
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, bl := range clitest.Blocks(string(readme)) {
		if bl.Lang != "sh" || strings.HasPrefix(bl.Section, "Bulk verification files") {
			continue
		}
		text := strings.Join(bl.Commands(), "\n")
		if strings.Contains(text, "svcsandbox") || strings.Contains(text, "bulkrun") {
			out = append(out, session{fmt.Sprintf("README.md:%d", bl.Line), bl.Commands()})
			n++
		}
	}
	if n < 2 {
		t.Errorf("only %d README sessions use svcsandbox or bulkrun, want the sandbox's and the QR callback's", n)
	}
	return out
}

// TestEveryExampleRuns runs every example of svcsandbox's help texts and
// the svcsandbox and bulkrun lines of the README's sessions (outside the
// bulkrun section, which cmd/bulkrun runs), each session in turn in one
// fresh directory: a serving sandbox must print its settings (into its >
// file) and stop cleanly, exit 0; eval "$(…)" sets what the command
// prints; bulkrun runs as the built binary, exit 0. Every sandbox listens
// on a free port (:0) instead of the example's, which another process may
// hold.
func TestEveryExampleRuns(t *testing.T) {
	seen := map[string]bool{}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	bulkrun := "" // built on first use
	for _, s := range exampleSessions(t) {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			for _, line := range s.lines {
				key := clitest.WithoutComment(line)
				seen[key] = true
				if reason, ok := notRunExamples[key]; ok {
					t.Logf("not run: %s: %s", line, reason)
					continue
				}
				c, err := clitest.Parse(line, os.Getenv)
				if err != nil {
					t.Errorf("%v; fix the example or list it in notRunExamples with the reason", err)
					continue
				}
				c.Rebase(dir)
				clitest.Setenv(t, c.Env)
				switch c.Prog {
				case "svcsandbox":
					runSandboxExample(t, c)
				case "bulkrun":
					if bulkrun == "" {
						bulkrun = buildBulkrun(t, root, binDir)
					}
					var stdout, stderr bytes.Buffer
					cmd := exec.Command(bulkrun, c.Args...)
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					if err := cmd.Run(); err != nil || !strings.HasPrefix(stdout.String(), `{"line":1,"payload":{`) {
						t.Errorf("%s: %v; stdout:\n%s\nstderr:\n%s", line, err, stdout.String(), stderr.String())
					}
				default:
					if other := otherCommands[c.Prog]; other != "" {
						t.Logf("%s: run by %s", line, other)
						continue
					}
					t.Errorf("%q: no test runs %s; list it in notRunExamples with the reason", line, c.Prog)
				}
			}
		})
	}
	for line := range notRunExamples {
		if !seen[line] {
			t.Errorf("notRunExamples lists %q, no longer an example", line)
		}
	}
}

// runSandboxExample runs one svcsandbox example line: callback writes its
// values and prints the key (eval: set in the environment); the server
// serves until it prints its settings, then is stopped.
func runSandboxExample(t *testing.T, c *clitest.Command) {
	t.Helper()
	var stdout, stderr syncBuffer
	if len(c.Args) > 0 && c.Args[0] == "callback" {
		err := run(context.Background(), c.Args, &stdout, &stderr)
		if code := cli.Exit(err, &stderr); code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.Line, code, stderr.String())
		}
	} else {
		args := freePort(t, c.Args)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		served := make(chan *sandbox.Server, 1)
		ready = func(s *sandbox.Server) { served <- s }
		defer func() { ready = nil }()
		done := make(chan error, 1)
		go func() { done <- run(ctx, args, &stdout, &stderr) }()
		select {
		case srv := <-served:
			if !strings.Contains(stdout.String(), "export SVC_BASE_URL="+srv.URL+" ") {
				t.Errorf("%s: stdout lacks the settings:\n%s", c.Line, stdout.String())
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("%s: stopped with %v", c.Line, err)
			}
		case err := <-done:
			t.Fatalf("%s: exit %d before serving\n%s", c.Line, cli.Exit(err, &stderr), stderr.String())
		}
	}
	if c.Stdout != "" {
		if err := os.WriteFile(c.Stdout, []byte(stdout.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if c.Eval {
		sc := bufio.NewScanner(strings.NewReader(stdout.String()))
		for sc.Scan() {
			if kv, ok := strings.CutPrefix(sc.Text(), "export "); ok {
				clitest.Setenv(t, strings.Fields(kv))
			}
		}
	}
}

// freePort returns args listening on port 0 of the example's host (the
// default's without --addr).
func freePort(t *testing.T, args []string) []string {
	t.Helper()
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "--addr" && i+1 < len(out) {
			host, _, err := net.SplitHostPort(out[i+1])
			if err != nil {
				t.Fatalf("--addr %q: %v", out[i+1], err)
			}
			out[i+1] = net.JoinHostPort(host, "0")
			return out
		}
	}
	return append(out, "--addr", "127.0.0.1:0")
}

// buildBulkrun builds cmd/bulkrun into dir, for the examples that decode
// the sandbox's callback values with it.
func buildBulkrun(t *testing.T, root, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to build cmd/bulkrun with: %v", err)
	}
	bin := filepath.Join(dir, "bulkrun")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/bulkrun")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/bulkrun: %v\n%s", err, out)
	}
	return bin
}

// TestVersion: svcsandbox --version and svcsandbox callback --version print
// the version line, exit 0, and nothing else.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"callback", "--version"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code := cli.Exit(err, &stderr); code != 0 || !strings.HasPrefix(out, "svcrecon ") || strings.Count(out, "\n") != 1 {
			t.Errorf("svcsandbox %q: exit %d, output %q; want one line svcrecon …", args, code, out)
		}
	}
}
