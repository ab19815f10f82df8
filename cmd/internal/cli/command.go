package cli

import (
	"context"
	"flag"
	"io"
	"slices"
	"strings"
	"time"
)

// Stdio is the standard streams a command reads and writes.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Call is one run of a subcommand, its flags parsed: what it gets besides
// its flags.
type Call struct {
	Args  []string        // the arguments left after the flags
	Given map[string]bool // the flags the command line set (not defaulted)
	Stdio
}

// Runner is a subcommand's flags and what it does with them. Command.New
// makes a fresh one for every run; the two steps are apart, so that the
// scheduler can check a job's flags (Flags, then parsing) without running
// anything.
type Runner interface {
	// Flags declares the subcommand's flags on fs, into the Runner's fields.
	Flags(fs *flag.FlagSet)
	// Run runs the subcommand once its flags are parsed: it checks their
	// values (a mistake is a *UsageError) and does the work. It returns what
	// the run did in a few lines, which the scheduler records with the run
	// (a person sees the output instead).
	Run(ctx context.Context, call *Call) (summary string, err error)
}

// Help is the text of a command's -h, around its flags: Synopsis says how
// to type it, Description (when set) follows it after a blank line,
// Examples end it. For a group (Sub without New) the synopsis is the short
// form a mistake suggests. Examples (and a Program's Footer) name dates by
// placeholders, {yesterday} and the like (ExampleDates), so that they work
// on the day they are read.
type Help struct {
	Synopsis, Description, Examples string
}

// Command is one row of a program's table of subcommands: everything about
// a subcommand but its code, which its Runner holds. Dispatch, -h and the
// scheduler's list of jobs are all read from the table.
type Command struct {
	Name    string
	Summary string // its line in the program's -h
	Help    Help   // its -h

	// New returns a fresh Runner. nil for a group that only names its Sub.
	New func() Runner
	// Sub are the commands the first argument may name (schedule list,
	// calls show); other arguments go to New's Runner.
	Sub []Command
	// Interleaved lets flags follow the positional arguments too
	// (bulkrun resume 7KQ2M --db ops.db).
	Interleaved bool

	// Job says the scheduler may run it (a schedules file's command:).
	Job bool
	// GC is how its heap is collected (TuneGC).
	GC GCProfile
}

// Run runs the command with args (after its name): the one of its Sub that
// args[0] names, else its own Runner. It returns the Runner's summary. The
// dates of its -h examples count from time.Now.
func (c Command) Run(ctx context.Context, args []string, stdio Stdio) (string, error) {
	return c.run(ctx, c.Name, args, stdio, time.Now())
}

// run runs the command at path; now dates the examples of its -h.
func (c Command) run(ctx context.Context, path string, args []string, stdio Stdio, now time.Time) (string, error) {
	if sub, ok := c.sub(args); ok {
		return sub.run(ctx, path+" "+sub.Name, args[1:], stdio, now)
	}
	r, call, err := c.parse(path, args, stdio, now)
	if err != nil {
		return "", err
	}
	return r.Run(ctx, call)
}

// CheckArgs parses args the way Run would, and runs nothing: nil when they
// parse, else the error Run would give (a *UsageError for a flag mistake;
// flag.ErrHelp for -h or --version). The values of the flags are not
// checked: that is the Runner's, at run time (a job's --calls glob may
// match files only by then). The scheduler checks the schedules file's
// jobs so before it starts.
func (c Command) CheckArgs(args []string) error {
	return c.check(c.Name, args)
}

func (c Command) check(path string, args []string) error {
	if sub, ok := c.sub(args); ok {
		return sub.check(path+" "+sub.Name, args[1:])
	}
	_, _, err := c.parse(path, args, Stdio{Stdout: io.Discard, Stderr: io.Discard}, time.Now())
	return err
}

// sub returns the subcommand args[0] names, in any case.
func (c Command) sub(args []string) (Command, bool) {
	if len(args) == 0 {
		return Command{}, false
	}
	i := slices.IndexFunc(c.Sub, func(s Command) bool { return strings.EqualFold(s.Name, args[0]) })
	if i < 0 {
		return Command{}, false
	}
	return c.Sub[i], true
}

// parse makes a fresh Runner, declares its flags on a flag set named path
// and parses args into them. A group without a Runner prints its help
// (-h) or says what to type. now dates the examples of -h.
func (c Command) parse(path string, args []string, stdio Stdio, now time.Time) (Runner, *Call, error) {
	if c.New == nil {
		return nil, nil, c.groupUsage(path, args, stdio, now)
	}
	fs := newFlagSet(path, c.Help.usage(), ExampleDates(c.Help.Examples, now), stdio.Stdout)
	r := c.New()
	r.Flags(fs)
	var rest []string
	var err error
	if c.Interleaved {
		rest, err = parseInterleaved(fs, args)
	} else {
		err = parse(fs, args)
		rest = fs.Args()
	}
	if err != nil {
		return nil, nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return r, &Call{Args: rest, Given: given, Stdio: stdio}, nil
}

// Program is a command with subcommands: its name, its table and the end
// of its -h (exit status and examples).
type Program struct {
	Name     string
	Commands []Command
	Footer   string
	// Now is the clock the dates of the examples in -h count from
	// (time.Now when nil).
	Now func() time.Time
}

// Run runs the subcommand args[0] names. -h, --help or help print the
// program's help on standard output; no arguments print it on standard
// error, a usage error; --version prints the version; an unknown name is a
// usage error that suggests the nearest.
func (p Program) Run(ctx context.Context, args []string, stdio Stdio) error {
	if len(args) == 0 {
		p.printHelp(stdio.Stderr)
		return Usagef("name a subcommand (see %s -h)", p.Name)
	}
	if isHelp(args[0]) || args[0] == "help" {
		p.printHelp(stdio.Stdout)
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		return printVersion(stdio.Stdout)
	}
	c, ok := p.Lookup(args[0])
	if !ok {
		return Usagef("unknown subcommand %q%s (see %s -h)", args[0], didYouMean(args[0], p.names(), p.Name+" "), p.Name)
	}
	_, err := c.run(ctx, c.Name, args[1:], stdio, p.now())
	return err
}

// now is the time of p's clock.
func (p Program) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// Lookup returns the subcommand of that name, in any case.
func (p Program) Lookup(name string) (Command, bool) {
	i := slices.IndexFunc(p.Commands, func(c Command) bool { return strings.EqualFold(c.Name, name) })
	if i < 0 {
		return Command{}, false
	}
	return p.Commands[i], true
}

// GCFor is the collector of the subcommand args[0] names (main's
// arguments): GCDefault for any other.
func (p Program) GCFor(args []string) GCProfile {
	if len(args) == 0 {
		return GCDefault
	}
	c, _ := p.Lookup(args[0])
	return c.GC
}

func (p Program) names() []string {
	names := make([]string, len(p.Commands))
	for i, c := range p.Commands {
		names[i] = c.Name
	}
	return names
}
