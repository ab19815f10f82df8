package main

import (
	"bufio"
	"errors"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

// decodeChild is bulkrun callback decode running in a child process, its
// standard output read line by line.
type decodeChild struct {
	cmd    *exec.Cmd
	lines  chan string // its standard output
	stderr strings.Builder
	done   chan struct{}
}

func startDecode(t *testing.T, stdin io.Reader, args ...string) *decodeChild {
	t.Helper()
	c := &decodeChild{cmd: exec.Command(binary, append([]string{"callback", "decode"}, args...)...),
		lines: make(chan string, 16), done: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), keyEnv+"="+string(cbKey))
	c.cmd.Stdin, c.cmd.Stderr = stdin, &c.stderr
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

// firstValue waits for the child's first decoded value: it is then past
// its start (its signal handler set) and reading.
func (c *decodeChild) firstValue(t *testing.T) {
	t.Helper()
	select {
	case l := <-c.lines:
		if !strings.HasPrefix(l, `{"line":1,`) {
			t.Fatalf("first output %q", l)
		}
	case <-c.done:
		t.Fatalf("exited before decoding a value: %s", c.stderr.String())
	case <-time.After(time.Minute):
		t.Fatal("no value decoded in a minute")
	}
}

// terminate sends SIGTERM and waits for the child to exit, failing after
// 30 s (five seconds is the promise; the margin keeps the test steady under
// load); it returns the exit status.
func (c *decodeChild) terminate(t *testing.T) int {
	t.Helper()
	start := time.Now()
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30 s after SIGTERM")
	}
	t.Logf("exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	return c.cmd.ProcessState.ExitCode()
}

// TestSIGTERMEndsCallbackDecode: callback decode waiting for the next value
// on standard input, or from a FIFO whose writer went quiet, ends at
// SIGTERM, exit 1.
func TestSIGTERMEndsCallbackDecode(t *testing.T) {
	value := url.QueryEscape(encryptCB(t, []byte(cbPayload), cbKey, cbIV)) + "\n"

	t.Run("stdin", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		c := startDecode(t, pr, "-")
		pr.Close()
		io.WriteString(pw, value)
		c.firstValue(t)
		if code := c.terminate(t); code != cli.ExitFailure || !strings.Contains(c.stderr.String(), "context canceled") {
			t.Errorf("after SIGTERM: exit %d, stderr %q", code, c.stderr.String())
		}
	})

	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "values.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		c := startDecode(t, nil, fifo)
		var w *os.File
		for deadline := time.Now().Add(time.Minute); w == nil; time.Sleep(10 * time.Millisecond) {
			f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0) // ENXIO until the child opened it
			switch {
			case err == nil:
				w = f
			case !errors.Is(err, syscall.ENXIO):
				t.Fatal(err)
			case time.Now().After(deadline):
				t.Fatalf("the FIFO was not opened in a minute: %s", c.stderr.String())
			}
		}
		defer w.Close()
		io.WriteString(w, value)
		c.firstValue(t)
		if code := c.terminate(t); code != cli.ExitFailure {
			t.Errorf("after SIGTERM: exit %d, stderr %q", code, c.stderr.String())
		}
	})
}
