package cli

import (
	"context"
	"errors"
	"io"
)

// errArgsChecked is what Parse returns, once the flags are parsed, to a
// command run by CheckArgs: the command returns it without doing anything.
var errArgsChecked = errors.New("arguments checked; nothing run")

// argsOnly is the standard error CheckArgs gives a command: NewFlagSet
// keeps it as the flag set's output, where Parse recognises it.
type argsOnly struct{ io.Writer }

// CheckArgs parses args the way the command run would, and runs nothing:
// run's flag set sees a standard error that makes Parse stop as soon as the
// flags are parsed, and its context is already cancelled in case it did
// not stop there. It returns nil when the flags parse, else run's error (a
// *UsageError for a flag mistake; flag.ErrHelp for -h or --version). The
// schedules file's jobs are checked so before the scheduler starts.
func CheckArgs(run func(ctx context.Context, args []string, stdout, stderr io.Writer) error, args []string) error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run(ctx, args, io.Discard, argsOnly{io.Discard})
	if errors.Is(err, errArgsChecked) {
		return nil
	}
	return err
}
