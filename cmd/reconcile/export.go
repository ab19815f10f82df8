package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/nightly"
)

var exportHelp = cli.Help{
	Synopsis: "reconcile export --from YYYY-MM-DD --to YYYY-MM-DD [--out DIR] [--format xlsx|csv|both] [--csv-bom] [--csv-raw] [flags]",
	Description: "Writes the current reconciliation of the period (the last run of reconcile check for exactly\n" +
		"that period) as reconciliation-FROM_TO.xlsx with the sheets Summary (the verdict and the\n" +
		"opening-to-closing bridge), Legend, Breaks, Matching, Duplicates, Reversals, Unsettled,\n" +
		"Pending, Statement and Orders, and as one CSV file per sheet (summary.csv, breaks.csv, ...;\n" +
		"no legend). CSV text cells that a spreadsheet could run as a formula (=, +, -, @ first, past\n" +
		"leading blanks and quotes, full-width too; TAB or CR first) get a leading ' so that a\n" +
		"spreadsheet never runs them; --csv-raw writes them as they are. Files are written whole or\n" +
		"not at all, with the umask's mode. Reads the database only; calls nothing. Beside the files,\n" +
		"manifest.json: the run's manifest with what this export wrote (reconcile verify checks it).\n" +
		"Prints the paths written.",
	Examples: `  reconcile export --from {prev-month-start} --to {prev-month-end} --out reports
  reconcile export --from {yesterday} --to {yesterday} --format xlsx
  reconcile export --from {prev-month-start} --to {prev-month-end} --out reports --format csv --csv-bom   # CSV for Excel
  reconcile export --from {prev-month-start} --to {prev-month-end} --format csv --csv-raw   # CSV for a program
  SVC_DB=recon.db reconcile export --from {prev-month-start} --to {prev-month-end}
The period is one reconcile check has checked (reconcile run checks it too).`,
}

// exportCmd is reconcile export; its summary (what the scheduler records)
// says what was written where, in one line.
type exportCmd struct {
	c           cli.Common
	from, to    string
	out, format string
	bom, raw    bool
}

func (e *exportCmd) Flags(fs *flag.FlagSet) {
	e.c.BindDB(fs)
	e.c.BindLog(fs)
	fs.StringVar(&e.from, "from", "", "first IST day of the period, YYYY-MM-DD")
	fs.StringVar(&e.to, "to", "", "last IST day of the period, YYYY-MM-DD, inclusive")
	fs.StringVar(&e.out, "out", ".", "directory to write the files to (created when missing)")
	fs.StringVar(&e.format, "format", "both", "what to write: xlsx, csv or both (any case)")
	fs.BoolVar(&e.bom, "csv-bom", false, "start CSV files with a UTF-8 byte-order mark (Excel opens them as UTF-8)")
	fs.BoolVar(&e.raw, "csv-raw", false, "write CSV text cells as they are: no leading ' before =, +, -, @, TAB or CR (for programs)")
}

func (e *exportCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) > 0 {
		return "", cli.Usagef("export: unexpected argument %q (see reconcile export -h)", call.Args[0])
	}
	f, err := export.ParseFormat(strings.ToLower(e.format)) // any case: XLSX
	if err != nil {
		return "", cli.Usagef("export: --format %q: want xlsx, csv or both", e.format)
	}
	if e.out == "" {
		return "", cli.Usagef("export: --out is empty: give a directory")
	}
	pFrom, pTo, err := cli.ParsePeriod(e.from, e.to)
	if err != nil {
		return "", err
	}
	if err := e.c.CheckDBExists("export"); err != nil {
		return "", err
	}
	log, err := e.c.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	env, err := e.c.Open(ctx, log, cli.Options{})
	if err != nil {
		return "", err
	}
	defer env.Close()
	files, err := export.Reconciliation(ctx, env.DB, export.Options{
		From: pFrom, To: pTo, Dir: e.out, Format: f, BOM: e.bom, CSVRaw: e.raw, Log: log, Progress: e.c.Progress(ctx, call.Stderr),
		Evidence: nightly.WorkbookEvidence(env.DB),
	})
	if err != nil {
		return "", err
	}
	manifest, err := nightly.WriteManifest(ctx, env.DB, files, e.out, clock(), log)
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	for _, p := range append(files.Paths(), manifest) {
		if p != "" {
			fmt.Fprintln(call.Stdout, p)
		}
	}
	return fmt.Sprintf("export %s..%s: %d files in %s (workbook %s)", pFrom.Format(time.DateOnly), pTo.Format(time.DateOnly),
		len(files.Paths()), e.out, files.Workbook), nil
}
