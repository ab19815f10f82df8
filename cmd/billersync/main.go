// Command billersync syncs the service's utility biller list into the
// database and records every biller added, changed or removed. See
// billersync -h.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/svcrecon/svcrecon/cmd/internal/billercmd"
	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr, os.Args[1:]...)
	stop()
	os.Exit(code)
}

// run is billersync with args (without the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := cli.Command{Name: "billersync", Help: billercmd.Help, New: billercmd.New}
	_, err := cmd.Run(ctx, args, cli.Stdio{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr})
	return err
}
