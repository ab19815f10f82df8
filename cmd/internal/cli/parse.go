package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// parse parses args into fs. -h prints the usage and returns flag.ErrHelp
// (exit 0), and so does --version after printing the version; a mistake
// returns a one-line *UsageError that says where to look.
func parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls Usage itself on -h and on errors
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	if err != nil {
		return Usagef("%s: %v%s (see %s -h)", fs.Name(), err, flagHint(fs, err), fs.Name())
	}
	if v := fs.Lookup("version"); v != nil && v.Value.String() == "true" {
		if err := printVersion(out); err != nil {
			return err
		}
		return flag.ErrHelp
	}
	return nil
}

// parseInterleaved parses flags that may come before or after the
// positional arguments (bulkrun resume 7KQ2M --db ops.db) and returns the
// positionals.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// flagHint suggests a defined flag for the flag package's "flag provided
// but not defined: -fomr".
func flagHint(fs *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return didYouMean(strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-"), names, "--")
}
