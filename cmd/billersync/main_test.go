package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/sandbox"
)

// TestEveryExampleRuns runs every example of billersync -h, each in a
// fresh directory, against the sandbox (answering to the outlet id the
// examples give, OUT123): exit 0, and the line of the sync on stdout.
func TestEveryExampleRuns(t *testing.T) {
	creds := sandbox.DefaultCredentials
	creds.OutletID = "OUT123"
	srv, err := sandbox.Start(sandbox.Options{Days: 2, NoDefects: true, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	clitest.Setenv(t, clitest.SandboxEnv(srv))
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("billersync -h = %v", err)
	}
	examples := clitest.HelpExamples(stdout.String())
	if len(examples) < 4 {
		t.Fatalf("billersync -h shows %d examples: %q", len(examples), examples)
	}
	for _, ex := range examples {
		t.Run(ex, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			c, err := clitest.Parse(ex, os.Getenv)
			if err != nil || c.Prog != "billersync" {
				t.Fatalf("%q: %v; fix the example", ex, err)
			}
			c.Rebase(dir)
			clitest.Setenv(t, c.Env)
			for i, a := range c.Args {
				if a == "--db" && i+1 < len(c.Args) {
					// The database's directory exists where it is deployed.
					if err := os.MkdirAll(filepath.Dir(c.Args[i+1]), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			var stdout, stderr bytes.Buffer
			err = run(context.Background(), c.Args, &stdout, &stderr)
			if code := cli.Exit(err, &stderr); code != 0 || !strings.Contains(stdout.String(), "billers") {
				t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", ex, code, stdout.String(), stderr.String())
			}
		})
	}
}

// TestVersion: billersync --version prints the version line and exits 0.
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"--version"}, &stdout, &stderr)
	if code := cli.Exit(err, &stderr); code != 0 || !strings.HasPrefix(stdout.String()+stderr.String(), "svcrecon ") {
		t.Errorf("billersync --version: exit %d, output %q%q", code, stdout.String(), stderr.String())
	}
}
