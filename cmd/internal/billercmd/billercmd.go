// Package billercmd is the billersync command: it syncs the service's
// biller list into the database (incrementally, or in full with removals)
// and optionally exports it.
package billercmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// errNoOutlet refuses a biller sync without the outlet id it needs.
var errNoOutlet = &svcapi.ConfigError{Setting: "SVC_OUTLET_ID", Reason: "not set (the biller list needs the outlet id; or --outlet-id)"}

// Run runs billersync with args (without the program name).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := Job(ctx, args, stdout, stderr)
	return err
}

// Job is Run that also returns what the sync did (the lines it prints: the
// biller counts and the files written), for the scheduler's job history.
func Job(ctx context.Context, args []string, stdout, stderr io.Writer) (summary string, err error) {
	fs := cli.NewFlagSet("billersync", "billersync [--category KEY] [--full] [--out DIR [--csv-raw]] [flags]\n\n"+
		"Syncs the utility biller list into the database. By default only billers updated on or after\n"+
		"the newest update date of the last successful sync are asked for; --full walks the whole list\n"+
		"and marks billers it no longer lists as removed (they are never deleted). Every biller added,\n"+
		"changed (with the fields that changed) or removed is recorded with the sync. With --sandbox\n"+
		"and no --db the database is sandbox.db, so that sandbox billers never mix with real ones.\n"+
		"CSV text cells that begin with =, +, -, @, TAB or CR get a leading ' (--csv-raw: as they are).",
		`  billersync --sandbox
  billersync --full --out reports
  billersync --full --out reports --csv-raw   # CSV for a program
  billersync --category electricity --full
  SVC_OUTLET_ID=OUT123 billersync --db /var/lib/svcrecon/svcrecon.db`, stderr)
	var c cli.Common
	c.BindExcept(fs, "account") // the biller list is no account's
	category := fs.String("category", "", "only billers of this categoryKey")
	full := fs.Bool("full", false, "walk the whole list and mark billers no longer listed as removed")
	out := fs.String("out", "", "also export billers.xlsx and billers.csv into this directory")
	raw := fs.Bool("csv-raw", false, "with --out: write CSV text cells as they are (no leading ' before =, +, -, @, TAB or CR)")
	pageSize := fs.Int("page-size", 500, "billers per page requested")
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	c.MarkExplicit(fs)
	if fs.NArg() > 0 {
		return "", cli.Usagef("billersync: unexpected argument %q (see billersync -h)", fs.Arg(0))
	}
	if *raw && *out == "" {
		return "", cli.Usagef("billersync: --csv-raw needs --out DIR")
	}
	if *pageSize < 1 {
		return "", cli.Usagef("billersync: --page-size %d: want 1 or more", *pageSize)
	}
	log, err := c.Logger(ctx, stderr)
	if err != nil {
		return "", err
	}
	if !c.Sandbox && c.OutletID == "" {
		// The biller list is an H5 operation: say so before the database is created.
		return "", errNoOutlet
	}
	calls := &statement.CallCounter{}
	env, err := c.Open(ctx, log, cli.Options{NeedClient: true, Recorders: []svcapi.Recorder{calls},
		DefaultSandboxDB: "sandbox.db"})
	if err != nil {
		return "", err
	}
	defer env.Close()
	if env.Config.OutletID == "" {
		return "", errNoOutlet
	}
	sum, err := statement.SyncBillers(ctx, statement.BillerOptions{DB: env.DB, Client: env.Client,
		Category: *category, Full: *full, PageSize: *pageSize, Calls: calls, Log: log, Progress: stderr})
	lines := []string{sum.Line()}
	fmt.Fprintln(stdout, sum.Line())
	if err != nil {
		return sum.Line(), err
	}
	if *out != "" {
		files, err := export.Billers(ctx, env.DB, *out, export.Options{Format: export.FormatBoth, CSVRaw: *raw, Log: log})
		if err != nil {
			return sum.Line(), fmt.Errorf("export billers to %s: %w", *out, err)
		}
		for _, p := range files.Paths() {
			lines = append(lines, "wrote "+p)
			fmt.Fprintln(stdout, "wrote", p)
		}
	}
	return strings.Join(lines, "\n"), nil
}
