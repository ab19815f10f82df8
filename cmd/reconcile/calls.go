package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/store"
)

var callsShowHelp = cli.Help{
	Synopsis: "reconcile calls show [--db FILE] [--log-format text|json] REF...",
	Description: "Prints the line each call was logged as, redacted (secrets, pidData, card and Aadhaar\n" +
		"numbers, as everywhere): one JSON line per call on standard output, and on standard error\n" +
		"which call it is and where its line was read from. REF is a call id (the reports' callId\n" +
		"column) or an externalRef (every call of it, oldest first).",
	Examples: `  reconcile calls show 17                            # the call of callId 17 (the reports' callId column)
  reconcile calls show RC2026111800000001            # every call of that externalRef
  reconcile calls show --db /var/lib/svcrecon/svcrecon.db 17 18 | jq .response.data.pool
A line imported from a file is read back from that file and checked against the
SHA-256 taken at the import: keep the call-log files, or the line cannot be shown
(exit 1, "the file no longer holds the line"). A line read from standard input, or a
call svcrecon made itself, is kept redacted in the database.`,
}

// callsShowCmd is reconcile calls show: it prints each call's line,
// redacted: one JSON line per call on stdout, where it was read from on
// stderr.
type callsShowCmd struct{ c cli.Common }

func (cs *callsShowCmd) Flags(fs *flag.FlagSet) { cs.c.BindOnly(fs, "db", "log-format", "log-level") }

func (cs *callsShowCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	stdout, stderr := call.Stdout, call.Stderr
	if len(call.Args) == 0 {
		return "", cli.Usagef("calls show: name a call: its id or externalRef (see calls show -h)")
	}
	log, err := cs.c.Logger(ctx, stderr)
	if err != nil {
		return "", err
	}
	if err := cs.c.CheckDBExists("calls show"); err != nil {
		return "", err
	}
	where := cs.c.Lines(ctx, stderr, log, slog.LevelInfo)
	db, err := store.Open(ctx, cs.c.DB)
	if err != nil {
		return "", err
	}
	defer db.Close()
	secrets := []string{os.Getenv(cli.EnvClientSecret)}
	var failed error
	for _, ref := range call.Args {
		shown, err := calllog.Show(ctx, db, ref, secrets)
		for _, s := range shown {
			fmt.Fprintf(where, "call %d (%s:%d, %s %s): line from the %s\n", s.ID, s.Source, s.SourceLine, s.TS,
				s.Operation, s.Where)
			if _, err := fmt.Fprintf(stdout, "%s\n", s.Line); err != nil {
				return "", err
			}
		}
		switch {
		case err != nil:
			failed = errors.Join(failed, err)
		case len(shown) == 0:
			failed = errors.Join(failed, fmt.Errorf("calls show: no call with id or externalRef %q", ref))
		}
	}
	return "", failed
}
