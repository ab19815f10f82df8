package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Exit codes shared by the commands.
const (
	ExitOK       = 0
	ExitFailure  = 1 // the job failed (a step, a window, a line)
	ExitUsage    = 2 // bad flags or bad input; nothing was done
	ExitFindings = 3 // --fail-on-breaks and there were breaks
)

// UsageError is a mistake in the command line: exit 2 with one line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error { return &UsageError{fmt.Sprintf(format, args...)} }

// ExitError carries an exit code other than 1 for an error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Exit maps an error to an exit code and prints it as one line on stderr:
// nil and flag.ErrHelp (-h, --version) are 0, an *ExitError its code, a
// *UsageError or a *svcapi.ConfigError 2, anything else 1. args are the
// command line after the program's name: with --log-format json among them
// the line is a JSON log line (level ERROR, its exit status in "exit"),
// else "error: " and the error; masked and escaped either way (Notice).
func Exit(err error, stderr io.Writer, args ...string) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	code := ExitFailure
	var ue *UsageError
	var ce *svcapi.ConfigError
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.Code
	case errors.As(err, &ue), errors.As(err, &ce):
		code = ExitUsage
	}
	// The error's sources removed the secrets they knew; masks and escapes
	// make it one line that is safe to show (Notice's redact.Text).
	if FormatOf(args) == FormatJSON {
		Notice(stderr, args, slog.LevelError, err.Error(), "exit", code)
	} else {
		Notice(stderr, args, slog.LevelError, "error: "+err.Error())
	}
	return code
}
