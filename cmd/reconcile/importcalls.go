package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/progress"
)

var importCallsHelp = cli.Help{
	Synopsis: "reconcile import-calls [--complete-through YYYY-MM-DD] [--db FILE] [--log-format text|json] [--log-level LEVEL] FILE... (- for standard input)",
	Examples: `  reconcile import-calls logs/calls-2026-11-21.jsonl
  reconcile import-calls 'logs/calls-*.jsonl.gz'          # the pattern is expanded if the shell did not
  zcat old.jsonl.gz | reconcile import-calls -             # standard input
  reconcile import-calls --db /var/lib/svcrecon/svcrecon.db a.jsonl b.jsonl
  reconcile import-calls --complete-through {prev-month-end} logs/calls-{prev-month-end}.jsonl   # the last log of last month
Re-importing a line already imported adds nothing. Bad lines are reported as
file:line: reason (and kept in import_errors); the rest is still imported and
the exit status is 1. A file that does not exist is exit status 2, before
anything is imported. The client secret (SVC_CLIENT_SECRET, when set) is
replaced by [REDACTED] wherever a line carries it.
A line read from a file is kept as a reference into it (offset and SHA-256):
keep the files, reconcile calls show reads the lines back from them. A line
read from standard input (or a FIFO) is kept redacted in the database.
A day's check is complete only when a call logged after the day's end was
imported; --complete-through D declares the logs complete through D instead
(for a client that logs nothing past the day).
Budgets: a line longer than 16 MiB is a bad line; 256 MiB without a line
break or of blank lines only, more than 4 GiB (decompressed) or 4,000,000
lines in one file, or more than 10,000 bad lines outnumbering the good ones
end that file's import, exit status 1 (the lines before it are kept); a
file larger than 4 GiB is refused, exit 2.`,
}

// maxShownErrors bounds the bad lines printed; all are in import_errors.
const maxShownErrors = 50

// importCallsCmd is reconcile import-calls; its summary is the line it
// prints (files, lines, imported, duplicates, bad).
type importCallsCmd struct {
	com             cli.Common
	completeThrough string
}

func (ic *importCallsCmd) Flags(fs *flag.FlagSet) {
	ic.com.BindDB(fs)
	ic.com.BindLog(fs)
	fs.StringVar(&ic.completeThrough, "complete-through", "", "declare the call logs complete through this IST day, YYYY-MM-DD (no call is logged after it)")
}

func (ic *importCallsCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	files, err := callLogFiles(call.Args)
	if err != nil {
		return "", err
	}
	var through time.Time
	if ic.completeThrough != "" {
		if through, err = cli.ParseDate("complete-through", ic.completeThrough); err != nil {
			return "", err
		}
	}
	log, err := ic.com.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	env, err := ic.com.Open(ctx, log, cli.Options{})
	if err != nil {
		return "", err
	}
	defer env.Close()

	bar := progress.New(ic.com.Progress(ctx, call.Stderr), "import-calls", 0, log)
	sum, ierr := importAll(ctx, env.DB, files, call.Stdin,
		calllog.Options{Log: log, Progress: bar, Secrets: []string{os.Getenv(cli.EnvClientSecret)}})
	bar.Done()
	if ierr == nil && !through.IsZero() {
		ierr = env.DB.DeclareCoverage(ctx, through.Format(time.DateOnly), clock(), "import-calls --complete-through")
	}
	return reportImport(call.Stdout, ic.com.Lines(ctx, call.Stderr, log, slog.LevelWarn), sum, ierr)
}

// callLogFiles checks the FILE... arguments and expands their patterns:
// every file must be there before anything is imported; - (standard
// input) may be given once.
func callLogFiles(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, cli.Usagef("import-calls: name at least one call-log file, or - for standard input (see import-calls -h)")
	}
	var files []string
	stdinSeen := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			// The flag package stops at the first file name.
			return nil, cli.Usagef("import-calls: %s after the files: put flags before FILE... (a file named so: ./%s)", a, a)
		}
		if a == "-" {
			if stdinSeen {
				return nil, cli.Usagef("import-calls: - (standard input) given twice")
			}
			stdinSeen = true
			files = append(files, a)
			continue
		}
		expanded, err := calllog.ExpandPaths([]string{a})
		if err != nil {
			return nil, cli.Usagef("import-calls: %v", err)
		}
		for _, p := range expanded {
			switch st, err := os.Stat(p); {
			case err != nil:
				return nil, cli.Usagef("import-calls: %s: no such file (see import-calls -h)", p)
			case st.IsDir():
				return nil, cli.Usagef("import-calls: %s is a directory: name the call-log files in it", p)
			}
		}
		files = append(files, expanded...)
	}
	return files, nil
}

// importAll imports the files in order, "-" from stdin, the files between
// two "-" as one run (one progress total); it stops at the first error.
func importAll(ctx context.Context, db calllog.Writer, files []string, stdin io.Reader, o calllog.Options) (calllog.Summary, error) {
	var sum calllog.Summary
	for i := 0; i < len(files); {
		var s calllog.Summary
		var err error
		if files[i] == "-" {
			s, err = calllog.Import(ctx, db, "-", stdin, o)
			i++
		} else {
			j := i
			for j < len(files) && files[j] != "-" {
				j++
			}
			s, err = calllog.ImportFiles(ctx, db, files[i:j], o)
			i = j
		}
		sum.Add(s)
		if err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// reportImport prints the bad lines (at most maxShownErrors) on lines (a
// command's lines for a person on stderr: cli.Common.Lines) and the summary
// line on stdout, which it returns (the scheduler's summary)
// with the import's error, or an exit status 1 for bad lines.
func reportImport(stdout, lines io.Writer, sum calllog.Summary, ierr error) (string, error) {
	for i, e := range sum.Errors {
		if i == maxShownErrors {
			fmt.Fprintf(lines, "… and %d more bad lines (all are in the import_errors table)\n", sum.Bad-i)
			break
		}
		fmt.Fprintln(lines, e.Error())
	}
	line := "imported " + sum.String()
	fmt.Fprintln(stdout, line)
	var refused *budget.Error
	if errors.As(ierr, &refused) && refused.Line == 0 { // a file over budget, refused before anything was read
		return line, &cli.ExitError{Code: cli.ExitUsage, Err: ierr}
	}
	if ierr != nil {
		return line, ierr
	}
	if sum.Bad > 0 {
		return line, &cli.ExitError{Code: cli.ExitFailure, Err: fmt.Errorf("import-calls: %d bad lines (the other lines were imported)", sum.Bad)}
	}
	return line, nil
}
