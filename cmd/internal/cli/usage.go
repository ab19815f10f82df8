package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// helpOut is where -h prints the help of a program, a command or a group:
// standard error.
func helpOut(stdio Stdio) io.Writer { return stdio.Stderr }

// printVersion prints the version line of --version.
func printVersion(w io.Writer) error {
	_, err := fmt.Fprintln(w, Version())
	return err
}

// newFlagSet returns a flag set that reports errors instead of exiting,
// with --version and a usage text that shows the synopsis, the flags and
// the examples, printed to w.
func newFlagSet(name, synopsis, examples string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
		printExamples(w, examples)
	}
	return fs
}

// usage is the synopsis and the description.
func (h Help) usage() string {
	if h.Description == "" {
		return h.Synopsis
	}
	return h.Synopsis + "\n\n" + h.Description
}

func printExamples(w io.Writer, examples string) {
	if examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(examples, "\n"))
	}
}

// groupUsage answers args that name none of a group's subcommands: -h
// prints their synopses and examples (flag.ErrHelp), anything else is a
// usage error that says what to type.
func (c Command) groupUsage(path string, args []string, stdio Stdio) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		w := helpOut(stdio)
		var synopses []string
		for _, s := range c.Sub {
			synopses = append(synopses, s.Help.Synopsis)
		}
		fmt.Fprintf(w, "Usage: %s\n", strings.Join(synopses, "\n       "))
		for _, s := range c.Sub {
			printExamples(w, s.Help.Examples)
		}
		return flag.ErrHelp
	}
	see := path
	if len(c.Sub) == 1 {
		see += " " + c.Sub[0].Name
	}
	return Usagef("%s: say what to do: %s (see %s -h)", path, c.Help.Synopsis, see)
}

// printHelp prints the program's help: its subcommands, sorted, each with
// its summary, then the footer.
func (p Program) printHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s SUBCOMMAND [flags]   (%s SUBCOMMAND -h for its flags and examples)\n\nSubcommands:\n", p.Name, p.Name)
	sorted := slices.SortedFunc(slices.Values(p.Commands), func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	width := 0
	for _, c := range sorted {
		width = max(width, len(c.Name))
	}
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(p.Footer))
}
