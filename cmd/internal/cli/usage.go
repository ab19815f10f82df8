package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// isHelp reports whether arg asks for help: -h, -help or --help (the flag
// package's names). Help goes to standard output, exit status 0.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

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
func (c Command) groupUsage(path string, args []string, stdio Stdio, now time.Time) error {
	if len(args) > 0 && isHelp(args[0]) {
		w := stdio.Stdout
		var synopses []string
		for _, s := range c.Sub {
			synopses = append(synopses, s.Help.Synopsis)
		}
		fmt.Fprintf(w, "Usage: %s\n", strings.Join(synopses, "\n       "))
		for _, s := range c.Sub {
			printExamples(w, ExampleDates(s.Help.Examples, now))
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
// its summary, then the footer (its example dates counted from p's clock).
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
	fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(ExampleDates(p.Footer, p.now())))
}

// datePlaceholder is a date placeholder of an example: {yesterday},
// {days-ago:61} …
var datePlaceholder = regexp.MustCompile(`\{([a-z-]+)(?::([0-9]+))?\}`)

// ExampleDates replaces the date placeholders of an example text with the
// IST dates they name, counted from now, so that the examples of -h name
// periods that have ended and work on the day they are read:
//
//   - {today}, {yesterday}, {days-ago:N}: those days;
//   - {month-start}: the first day of yesterday's month (the month so far);
//   - {prev-month-start}, {prev-month-end}: the first and last day of the
//     month before it, and {prev-month} its name (YYYY-MM).
//
// Any other text in braces is left as it is.
func ExampleDates(text string, now time.Time) string {
	yesterday := Yesterday(now)
	today := yesterday.AddDate(0, 0, 1)
	monthStart := yesterday.AddDate(0, 0, 1-yesterday.Day())
	prevStart := monthStart.AddDate(0, -1, 0)
	return datePlaceholder.ReplaceAllStringFunc(text, func(m string) string {
		sub := datePlaceholder.FindStringSubmatch(m)
		var d time.Time
		switch name, n := sub[1], sub[2]; {
		case name == "today" && n == "":
			d = today
		case name == "yesterday" && n == "":
			d = yesterday
		case name == "days-ago" && n != "":
			k, _ := strconv.Atoi(n)
			d = today.AddDate(0, 0, -k)
		case name == "month-start" && n == "":
			d = monthStart
		case name == "prev-month-start" && n == "":
			d = prevStart
		case name == "prev-month-end" && n == "":
			d = monthStart.AddDate(0, 0, -1)
		case name == "prev-month" && n == "":
			return prevStart.Format("2006-01")
		default:
			return m
		}
		return d.Format(time.DateOnly)
	})
}
