// Package billercmd is the billersync command: it syncs the service's
// biller list into the database (incrementally, or in full with removals)
// and optionally exports it. Help and New make its row in a table of
// subcommands: the billersync program runs it alone, reconcile as one of
// its own (and the scheduler as a job).
package billercmd

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// errNoOutlet refuses a biller sync without the outlet id it needs.
var errNoOutlet = &svcapi.ConfigError{Setting: "SVC_OUTLET_ID", Reason: "not set (the biller list needs the outlet id; or --outlet-id)"}

// Help is billersync's -h.
var Help = cli.Help{
	Synopsis: "billersync [--category KEY] [--full] [--out DIR [--csv-raw]] [flags]",
	Description: "Syncs the utility biller list into the database. By default only billers updated on or after\n" +
		"the newest update date of the last successful sync are asked for; --full walks the whole list\n" +
		"and marks billers it no longer lists as removed (they are never deleted). Every biller added,\n" +
		"changed (with the fields that changed) or removed is recorded with the sync. With --sandbox\n" +
		"and no --db the database is sandbox.db, so that sandbox billers never mix with real ones.\n" +
		"CSV text cells a spreadsheet could run as a formula (=, +, -, @ first, past leading blanks and\n" +
		"quotes, full-width too; TAB or CR first) get a leading ' (--csv-raw: as they are).",
	Examples: `  billersync --sandbox
  billersync --full --out reports
  billersync --full --out reports --csv-raw   # CSV for a program
  billersync --category electricity --full
  SVC_OUTLET_ID=OUT123 billersync --db /var/lib/svcrecon/svcrecon.db`,
}

// New returns billersync's Runner. Its summary (for the scheduler's job
// history) is the lines it prints: the biller counts and the files written.
func New() cli.Runner { return new(billerSync) }

// billerSync is billersync's flags.
type billerSync struct {
	c        cli.Common
	category string
	full     bool
	out      string
	raw      bool
	pageSize int
}

func (b *billerSync) Flags(fs *flag.FlagSet) {
	b.c.BindExcept(fs, "account") // the biller list is no account's
	fs.StringVar(&b.category, "category", "", "only billers of this categoryKey, in any case (keys are upper-case codes: ELECTRICITY, C01)")
	fs.BoolVar(&b.full, "full", false, "walk the whole list and mark billers no longer listed as removed")
	fs.StringVar(&b.out, "out", "", "also export billers.xlsx and billers.csv into this directory")
	fs.BoolVar(&b.raw, "csv-raw", false, "with --out: write CSV text cells as they are (no leading ' before =, +, -, @, TAB or CR)")
	fs.IntVar(&b.pageSize, "page-size", 500, "billers per page requested")
}

func (b *billerSync) Run(ctx context.Context, call *cli.Call) (summary string, err error) {
	if len(call.Args) > 0 {
		return "", cli.Usagef("billersync: unexpected argument %q (see billersync -h)", call.Args[0])
	}
	if b.raw && b.out == "" {
		return "", cli.Usagef("billersync: --csv-raw needs --out DIR")
	}
	if b.pageSize < 1 {
		return "", cli.Usagef("billersync: --page-size %d: want 1 or more", b.pageSize)
	}
	// The service's category keys are upper-case codes (ELECTRICITY, C01)
	// and it compares them exactly: --category electricity means ELECTRICITY.
	b.category = strings.ToUpper(strings.TrimSpace(b.category))
	log, err := b.c.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	if !b.c.Sandbox && b.c.OutletID == "" {
		// The biller list is an H5 operation: say so before the database is created.
		return "", errNoOutlet
	}
	calls := &statement.CallCounter{}
	env, err := b.c.Open(ctx, log, cli.Options{NeedClient: true, Recorders: []svcapi.Recorder{calls},
		DefaultSandboxDB: "sandbox.db"})
	if err != nil {
		return "", err
	}
	defer env.Close()
	if env.Config.OutletID == "" {
		return "", errNoOutlet
	}
	sum, err := statement.SyncBillers(ctx, statement.BillerOptions{DB: env.DB, Client: env.Client,
		Category: b.category, Full: b.full, PageSize: b.pageSize, Calls: calls, Log: log, Progress: b.c.Progress(ctx, call.Stderr)})
	lines := []string{sum.Line()}
	fmt.Fprintln(call.Stdout, sum.Line())
	if err != nil {
		return sum.Line(), err
	}
	if b.out != "" {
		files, err := export.Billers(ctx, env.DB, b.out, export.Options{Format: export.FormatBoth, CSVRaw: b.raw, Log: log})
		if err != nil {
			return sum.Line(), fmt.Errorf("export billers to %s: %w", b.out, err)
		}
		for _, p := range files.Paths() {
			lines = append(lines, "wrote "+p)
			fmt.Fprintln(call.Stdout, "wrote", p)
		}
	}
	return strings.Join(lines, "\n"), nil
}
