package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/export"
	"github.com/svcrecon/svcrecon/internal/store"
)

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := exportJob(ctx, args, stdout, stderr)
	return err
}

// exportJob is reconcile export; its summary (what the scheduler records)
// says what was written where, in one line.
func exportJob(ctx context.Context, args []string, stdout, stderr io.Writer) (string, error) {
	fs := cli.NewFlagSet("export", "reconcile export --from YYYY-MM-DD --to YYYY-MM-DD [--out DIR] [--format xlsx|csv|both] [--csv-bom] [--csv-raw] [flags]\n\n"+
		"Writes the current reconciliation of the period (the last run of reconcile check for exactly\n"+
		"that period) as reconciliation-FROM_TO.xlsx with the sheets Summary (the verdict and the\n"+
		"opening-to-closing bridge), Legend, Breaks, Matching, Duplicates, Reversals, Unsettled,\n"+
		"Pending, Statement and Orders, and as one CSV file per sheet (summary.csv, breaks.csv, ...;\n"+
		"no legend). CSV text cells that begin with =, +, -, @, TAB or CR get a leading ' so that a\n"+
		"spreadsheet never runs them; --csv-raw writes them as they are. Files are written whole or\n"+
		"not at all, with the umask's mode. Reads the database only; calls nothing. Prints the paths written.",
		`  reconcile export --from 2026-11-01 --to 2026-11-30 --out reports
  reconcile export --from 2026-11-21 --to 2026-11-21 --format xlsx
  reconcile export --from 2026-11-01 --to 2026-11-30 --out reports --format csv --csv-bom   # CSV for Excel
  reconcile export --from 2026-11-01 --to 2026-11-30 --format csv --csv-raw   # CSV for a program
  SVC_DB=recon.db reconcile export --from 2026-11-01 --to 2026-11-30`, stderr)
	var c cli.Common
	c.BindDB(fs)
	c.BindLog(fs)
	from := fs.String("from", "", "first IST day of the period, YYYY-MM-DD")
	to := fs.String("to", "", "last IST day of the period, YYYY-MM-DD, inclusive")
	out := fs.String("out", ".", "directory to write the files to (created when missing)")
	format := fs.String("format", "both", "what to write: xlsx, csv or both")
	bom := fs.Bool("csv-bom", false, "start CSV files with a UTF-8 byte-order mark (Excel opens them as UTF-8)")
	raw := fs.Bool("csv-raw", false, "write CSV text cells as they are: no leading ' before =, +, -, @, TAB or CR (for programs)")
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	c.MarkExplicit(fs)
	if fs.NArg() > 0 {
		return "", cli.Usagef("export: unexpected argument %q (see reconcile export -h)", fs.Arg(0))
	}
	f, err := export.ParseFormat(*format)
	if err != nil {
		return "", cli.Usagef("export: --format %q: want xlsx, csv or both", *format)
	}
	if *out == "" {
		return "", cli.Usagef("export: --out is empty: give a directory")
	}
	pFrom, pTo, err := cli.ParsePeriod(*from, *to)
	if err != nil {
		return "", err
	}
	if store.Missing(c.DB) {
		// Opening would create an empty database and blame the period.
		return "", cli.Usagef("export: no database %s (give --db or SVC_DB)", c.DB)
	}
	log, err := c.Logger(ctx, stderr)
	if err != nil {
		return "", err
	}
	env, err := c.Open(ctx, log, cli.Options{})
	if err != nil {
		return "", err
	}
	defer env.Close()
	files, err := export.Reconciliation(ctx, env.DB, export.Options{
		From: pFrom, To: pTo, Dir: *out, Format: f, BOM: *bom, CSVRaw: *raw, Log: log, Progress: stderr,
	})
	if err != nil {
		return "", err
	}
	for _, p := range files.Paths() {
		fmt.Fprintln(stdout, p)
	}
	return fmt.Sprintf("export %s..%s: %d files in %s (workbook %s)", pFrom.Format(time.DateOnly), pTo.Format(time.DateOnly),
		len(files.Paths()), *out, files.Workbook), nil
}
