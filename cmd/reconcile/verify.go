package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
)

var verifyHelp = cli.Help{
	Synopsis: "reconcile verify [MANIFEST.json ...] [--db FILE]",
	Description: "Checks the evidence and says what differs, one line each: the history of exceptions and\n" +
		"sign-offs (each event carries the hash of the one before it: an edited, deleted or inserted\n" +
		"row breaks the chain, and its first broken link is named), each exception against its events;\n" +
		"and for each manifest given, its digest and settings hash recomputed, the database's copy of\n" +
		"it, its call-log files hashed again (at the name given to the import, else the absolute path;\n" +
		"a file not found is said, not counted), its statement and order days digested again from the\n" +
		"database, and the exported files beside it. Exit status 0 when everything matches, 1 when\n" +
		"anything differs or the chain is broken.",
	Examples: `  reconcile verify
  reconcile verify close/2026-11/manifest.json`,
}

// verifyCmd is reconcile verify.
type verifyCmd struct{ db dbCmd }

func (v *verifyCmd) Flags(fs *flag.FlagSet) { v.db.bind(fs) }

func (v *verifyCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	env, err := v.db.open(ctx, call, "verify")
	if err != nil {
		return "", err
	}
	defer env.Close()
	var res evidence.Verification
	if err := evidence.VerifyChain(ctx, env.DB, &res); err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	for _, m := range call.Args {
		if err := evidence.VerifyManifest(ctx, env.DB, m, &res); err != nil {
			return "", fmt.Errorf("verify: %w", err)
		}
	}
	n := printVerification(call.Stdout, &res)
	if n > 0 {
		line := fmt.Sprintf("verify: %d differences", n)
		return line, fmt.Errorf("%s (see above)", line)
	}
	line := fmt.Sprintf("verify: %d checks, everything matches", len(res.Lines))
	fmt.Fprintln(call.Stdout, line)
	return line, nil
}

// printVerification prints a line per check and returns how many differ.
func printVerification(w io.Writer, v *evidence.Verification) int {
	n := 0
	for _, l := range v.Lines {
		switch {
		case l.Skipped:
			fmt.Fprintf(w, "skipped  %s: %s\n", l.What, l.Note)
		case l.OK:
			fmt.Fprintf(w, "ok       %s\n", l.What)
		default:
			n++
			fmt.Fprintf(w, "DIFFERS  %s: %s\n", l.What, l.Note)
		}
	}
	return n
}
