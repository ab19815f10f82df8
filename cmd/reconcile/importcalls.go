package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/progress"
)

var importCallsHelp = cli.Help{
	Synopsis: "reconcile import-calls [--db FILE] [--log-format text|json] [--log-level LEVEL] FILE... (- for standard input)",
	Examples: `  reconcile import-calls logs/calls-{yesterday}.jsonl
  reconcile import-calls 'logs/calls-*.jsonl.gz'          # the pattern is expanded if the shell did not
  zcat old.jsonl.gz | reconcile import-calls -             # standard input
  reconcile import-calls --db /var/lib/svcrecon/svcrecon.db a.jsonl b.jsonl
Re-importing a line already imported adds nothing. Bad lines are reported as
file:line: reason (and kept in import_errors); the rest is still imported and
the exit status is 1. A file that does not exist is exit status 2, before
anything is imported. The client secret (SVC_CLIENT_SECRET, when set) is
replaced by [REDACTED] wherever a line carries it.
A line read from a file is kept as a reference into it (offset and SHA-256):
keep the files, reconcile calls show reads the lines back from them. A line
read from standard input is kept redacted in the database.`,
}

// maxShownErrors bounds the bad lines printed; all are in import_errors.
const maxShownErrors = 50

// importCallsCmd is reconcile import-calls; its summary is the line it
// prints (files, lines, imported, duplicates, bad).
type importCallsCmd struct{ com cli.Common }

func (ic *importCallsCmd) Flags(fs *flag.FlagSet) {
	ic.com.BindDB(fs)
	ic.com.BindLog(fs)
}

func (ic *importCallsCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	com, stdin, stdout, stderr := &ic.com, call.Stdin, call.Stdout, call.Stderr
	files, err := callLogFiles(call.Args)
	if err != nil {
		return "", err
	}
	log, err := com.Logger(ctx, stderr)
	if err != nil {
		return "", err
	}
	env, err := com.Open(ctx, log, cli.Options{})
	if err != nil {
		return "", err
	}
	defer env.Close()

	var sum ledger.ImportSummary
	bar := progress.New(com.Progress(ctx, stderr), "import-calls", 0, log)
	o := ledger.ImportOptions{Log: log, Progress: bar, Secrets: []string{os.Getenv(cli.EnvClientSecret)}}
	var ierr error
	for i := 0; i < len(files) && ierr == nil; {
		if files[i] == "-" {
			var s ledger.ImportSummary
			s, ierr = ledger.ImportWith(ctx, env.DB, "-", stdin, o)
			sum.Add(s)
			i++
			continue
		}
		j := i
		for j < len(files) && files[j] != "-" {
			j++
		}
		var s ledger.ImportSummary
		s, ierr = ledger.ImportFilesWith(ctx, env.DB, files[i:j], o)
		sum.Add(s)
		i = j
	}
	bar.Done()
	lines := com.Lines(ctx, stderr, log, slog.LevelWarn)
	for i, e := range sum.Errors {
		if i == maxShownErrors {
			fmt.Fprintf(lines, "… and %d more bad lines (all are in the import_errors table)\n", len(sum.Errors)-i)
			break
		}
		fmt.Fprintln(lines, e.Error())
	}
	line := "imported " + sum.String()
	fmt.Fprintln(stdout, line)
	if ierr != nil {
		return line, ierr
	}
	if sum.Bad > 0 {
		return line, &cli.ExitError{Code: cli.ExitFailure, Err: fmt.Errorf("import-calls: %d bad lines (the other lines were imported)", sum.Bad)}
	}
	return line, nil
}

// callLogFiles checks the arguments of import-calls, before anything is
// imported: every file (a glob the shell did not expand is expanded) must
// be there, and - (standard input) given once. A mistake is a usage error.
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
		// Every file must be there before anything is imported.
		expanded, err := ledger.ExpandPaths([]string{a})
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
