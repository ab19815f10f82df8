// Command billersync syncs the service's utility biller list into the
// database and records every biller added, changed or removed. See
// billersync -h.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/svcrecon/svcrecon/cmd/internal/billercmd"
	"github.com/svcrecon/svcrecon/cmd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Exit(billercmd.Run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}
