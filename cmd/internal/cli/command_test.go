package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// demo is a subcommand for the tests: --n, and a file written when it runs.
type demo struct {
	marker string
	n      int
}

func (d *demo) Flags(fs *flag.FlagSet) { fs.IntVar(&d.n, "n", 0, "a number") }

func (d *demo) Run(_ context.Context, call *Call) (string, error) {
	return "ran", os.WriteFile(d.marker, nil, 0o600)
}

func demoCommand(marker string) Command {
	return Command{Name: "demo", Help: Help{Synopsis: "demo [--n N]"}, New: func() Runner { return &demo{marker: marker} }}
}

// TestCheckArgs: the flags are parsed and nothing runs; a flag mistake is
// the usage error the command would give.
func TestCheckArgs(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := demoCommand(marker)
	if err := cmd.CheckArgs([]string{"--n", "3"}); err != nil {
		t.Errorf("CheckArgs(--n 3) = %v, want nil", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran past its flags: %v", err)
	}
	var ue *UsageError
	if err := cmd.CheckArgs([]string{"--m", "3"}); !errors.As(err, &ue) {
		t.Errorf("CheckArgs(--m 3) = %v, want a usage error", err)
	}
	if err := cmd.CheckArgs([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("CheckArgs(-h) = %v, want flag.ErrHelp", err)
	}
	// Run for real, the same command does its work.
	sum, err := cmd.Run(context.Background(), []string{"--n", "3"}, Stdio{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil || sum != "ran" {
		t.Fatalf("Run = %q, %v; want ran", sum, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
}

// TestCallHasArgsAndGivenFlags: the Runner gets the positional arguments,
// before and after flags when Interleaved, and which flags were set.
func TestCallHasArgsAndGivenFlags(t *testing.T) {
	var got *Call
	cmd := Command{Name: "x", Interleaved: true, New: func() Runner { return &probe{call: &got} }}
	if _, err := cmd.Run(context.Background(), []string{"A", "--n", "2", "B"}, Stdio{Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Args, " ") != "A B" || !got.Given["n"] || got.Given["version"] {
		t.Errorf("Call = args %q, given %v; want A B and n only", got.Args, got.Given)
	}
}

type probe struct {
	call **Call
	n    int
}

func (p *probe) Flags(fs *flag.FlagSet) { fs.IntVar(&p.n, "n", 0, "") }
func (p *probe) Run(_ context.Context, call *Call) (string, error) {
	*p.call = call
	return "", nil
}

// TestGroup: a group runs the subcommand its first argument names; -h
// prints the subcommands' synopses and examples; anything else says what
// to type.
func TestGroup(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	show := demoCommand(marker)
	show.Name, show.Help = "show", Help{Synopsis: "prog calls show REF...", Examples: "  prog calls show 17"}
	group := Command{Name: "calls", Help: Help{Synopsis: "prog calls show REF"}, Sub: []Command{show}}
	var help bytes.Buffer
	if _, err := group.Run(context.Background(), []string{"-h"}, Stdio{Stdout: &help, Stderr: failWriter{t}}); !errors.Is(err, flag.ErrHelp) ||
		help.String() != "Usage: prog calls show REF...\n\nExamples:\n  prog calls show 17\n" {
		t.Errorf("calls -h = %v, %q", err, help.String())
	}
	if _, err := group.Run(context.Background(), nil, Stdio{}); err == nil ||
		err.Error() != "calls: say what to do: prog calls show REF (see calls show -h)" {
		t.Errorf("calls = %v", err)
	}
	if err := group.CheckArgs([]string{"show", "--m"}); err == nil || !strings.HasPrefix(err.Error(), "calls show: flag provided but not defined") {
		t.Errorf("CheckArgs(show --m) = %v, want the flag set named calls show", err)
	}
	if _, err := group.Run(context.Background(), []string{"show", "--n", "1"}, Stdio{Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("calls show did not run: %v", err)
	}
}

func TestDispatchSuggestsAndPrintsTheVersion(t *testing.T) {
	p := Program{Name: "reconcile", Commands: []Command{demoCommand(filepath.Join(t.TempDir(), "ran"))}}
	p.Commands[0].Name = "check"
	err := p.Run(context.Background(), []string{"chek"}, Stdio{Stdout: io.Discard, Stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "did you mean reconcile check?") {
		t.Errorf("Dispatch(chek) = %v, want a suggestion", err)
	}
	var out bytes.Buffer
	if err := p.Run(context.Background(), []string{"--version"}, Stdio{Stdout: &out, Stderr: io.Discard}); err != nil || !strings.HasPrefix(out.String(), "svcrecon ") {
		t.Errorf("Dispatch(--version) = %v, %q", err, out.String())
	}
	fs := newFlagSet("check", "reconcile check", "", io.Discard)
	fs.String("from", "", "")
	err = parse(fs, []string{"--fomr", "2026-11-01"})
	if err == nil || !strings.Contains(err.Error(), "did you mean --from?") {
		t.Errorf("Parse(--fomr) = %v, want a suggestion", err)
	}
	out.Reset()
	fs = newFlagSet("check", "reconcile check", "", &out)
	if err := parse(fs, []string{"--version"}); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out.String(), "svcrecon ") {
		t.Errorf("Parse(--version) = %v, %q", err, out.String())
	}
}

// failWriter fails the test when anything is written to it.
type failWriter struct{ tb testing.TB }

func (w failWriter) Write(p []byte) (int, error) {
	w.tb.Errorf("unexpected write %q", p)
	return len(p), nil
}

// TestHelpGoesToStdout: -h, --help and help print the help on standard
// output with exit status 0 (flag.ErrHelp or nil), --version too; only a
// missing subcommand prints it on standard error, a usage error. The
// examples' dates count from the program's clock.
func TestHelpGoesToStdout(t *testing.T) {
	now := time.Date(2026, 3, 1, 1, 0, 0, 0, recon.IST)
	d := demoCommand(filepath.Join(t.TempDir(), "ran"))
	d.Help.Examples = "  demo --n 1 --from {prev-month-start} --to {yesterday}"
	p := Program{Name: "prog", Commands: []Command{d}, Footer: "Examples:\n  prog demo --date {yesterday}", Now: func() time.Time { return now }}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"--version"}, {"demo", "-h"}, {"demo", "--help"}, {"demo", "-help"}, {"demo", "--version"}} {
		var out bytes.Buffer
		err := p.Run(context.Background(), args, Stdio{Stdout: &out, Stderr: failWriter{t}})
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("prog %q = %v, want exit 0", args, err)
		}
		if out.Len() == 0 {
			t.Errorf("prog %q printed nothing on stdout", args)
		}
		if strings.Contains(out.String(), "{") {
			t.Errorf("prog %q printed a placeholder: %q", args, out.String())
		}
	}
	var out bytes.Buffer
	p.Run(context.Background(), []string{"demo", "-h"}, Stdio{Stdout: &out, Stderr: failWriter{t}})
	if !strings.Contains(out.String(), "demo --n 1 --from 2026-01-01 --to 2026-02-28") {
		t.Errorf("demo -h = %q, want the examples dated from the clock", out.String())
	}
	out.Reset()
	p.Run(context.Background(), []string{"-h"}, Stdio{Stdout: &out, Stderr: failWriter{t}})
	if !strings.Contains(out.String(), "prog demo --date 2026-02-28") {
		t.Errorf("prog -h = %q, want the footer dated from the clock", out.String())
	}
	var errOut bytes.Buffer
	var ue *UsageError
	if err := p.Run(context.Background(), nil, Stdio{Stdout: failWriter{t}, Stderr: &errOut}); !errors.As(err, &ue) || !strings.Contains(errOut.String(), "Usage: prog") {
		t.Errorf("prog = %v, %q; want a usage error and the help on stderr", err, errOut.String())
	}
}

func TestExampleDates(t *testing.T) {
	for _, tc := range []struct {
		now  time.Time
		text string
		want string
	}{
		{time.Date(2026, 12, 2, 10, 0, 0, 0, recon.IST), "{today} {yesterday} {month-start} {prev-month-start} {prev-month-end} {prev-month} {days-ago:61}",
			"2026-12-02 2026-12-01 2026-12-01 2026-11-01 2026-11-30 2026-11 2026-10-02"},
		// On the first of a month yesterday's month is the one before.
		{time.Date(2026, 3, 1, 0, 30, 0, 0, recon.IST), "{month-start}..{yesterday}, {prev-month-start}..{prev-month-end}",
			"2026-02-01..2026-02-28, 2026-01-01..2026-01-31"},
		// IST, whatever the clock's zone: 20:00 UTC is 01:30 the next day.
		{time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC), "{today}", "2026-01-02"},
		{time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC), "{tomorrow} {days-ago} ${HOME}", "{tomorrow} {days-ago} ${HOME}"},
	} {
		if got := ExampleDates(tc.text, tc.now); got != tc.want {
			t.Errorf("ExampleDates(%q, %v) = %q, want %q", tc.text, tc.now, got, tc.want)
		}
	}
}

// TestNamesInAnyCase: a subcommand, and a group's subcommand, are found in
// any case.
func TestNamesInAnyCase(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	show := demoCommand(marker)
	show.Name = "show"
	p := Program{Name: "prog", Commands: []Command{{Name: "calls", Sub: []Command{show}}}}
	if err := p.Run(context.Background(), []string{"CALLS", "Show", "--n", "1"}, Stdio{Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatalf("prog CALLS Show = %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("calls show did not run: %v", err)
	}
}
