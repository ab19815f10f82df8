package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/schedule"
)

// breaksError is the error of a command that ran to the end and found
// breaks (exit status 3): it also matches schedule.ErrBreaks, so that the
// scheduler records the run as breaks, not failed.
type breaksError struct{ err error }

func (e *breaksError) Error() string   { return e.err.Error() }
func (e *breaksError) Unwrap() []error { return []error{e.err, schedule.ErrBreaks} }

// asJobError marks a command's error that means breaks (exit status 3) for
// the scheduler; other errors are returned as they are.
func asJobError(err error) error {
	if outcomeOf(err) == schedule.OutcomeBreaks {
		return &breaksError{err}
	}
	return err
}

// outcomeOf is the job outcome a command's error stands for: ok, breaks
// (exit status 3, findings under --fail-on-breaks) or failed.
func outcomeOf(err error) string {
	var ee *cli.ExitError
	switch {
	case err == nil:
		return schedule.OutcomeOK
	case errors.As(err, &ee) && ee.Code == cli.ExitFindings:
		return schedule.OutcomeBreaks
	}
	return schedule.OutcomeFailed
}

// notifySleep is the Notifier's wait between attempts (tests replace it).
var notifySleep func(ctx context.Context, d time.Duration) error

// newNotifier is the notifier of run --notify and of the scheduler's
// notify: URLs. Notices are scrubbed (redact.Scrubber) of the client
// secret and the database password (from the environment: neither is ever
// a flag), of passwords in URLs and of card and Aadhaar numbers.
func newNotifier(log *slog.Logger) *schedule.Notifier {
	sc := redact.NewScrubber(os.Getenv(cli.EnvClientSecret), os.Getenv("PGPASSWORD"))
	return &schedule.Notifier{Log: log, Sleep: notifySleep, Scrub: func(s string) string {
		return redact.Numbers(redact.URLPasswords(sc.String(s)))
	}}
}
