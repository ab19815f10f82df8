package main

import (
	"context"
	"io"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

// importCalls runs reconcile import-calls with args, reading stdin for -.
func importCalls(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (string, error) {
	return runJob(ctx, "import-calls", args, stdin, stdout, stderr)
}

// runJob runs the job of that name (a row of the table marked Job) as the
// scheduler does, and returns its summary.
func runJob(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) (string, error) {
	return jobs()[name].Run(ctx, args, cli.Stdio{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}
