package schedule

import (
	"errors"
	"strings"
	"testing"
)

// TestParseRefusesACronThatNeverFires: robfig/cron parses 30 February and
// 31 April and would wait for them forever; Parse refuses them with the
// job's line. A date of every leap year, or of some months only, fires.
func TestParseRefusesACronThatNeverFires(t *testing.T) {
	for _, tc := range []struct{ cron, want string }{
		{"0 2 30 2 *", `schedules.yaml:5: job late: cron "0 2 30 2 *" never fires (no such date in the next five years, e.g. 30 February or 31 April)`},
		{"15 1 31 4 *", `schedules.yaml:5: job late: cron "15 1 31 4 *" never fires`},
		{"0 0 31 2,4,6,9,11 *", `schedules.yaml:5: job late: cron "0 0 31 2,4,6,9,11 *" never fires`},
		{"0 0 30-31 2 *", `schedules.yaml:5: job late: cron "0 0 30-31 2 *" never fires`},
		{"0 0 29 2 *", ""},
		{"0 0 31 2,3 *", ""},
		{"0 0 30 2 MON", ""}, // day of month or day of week: Mondays in February
	} {
		file := "jobs:\n  nightly:\n    cron: \"30 2 * * *\"\n    command: run\n  late:\n    cron: \"" + tc.cron + "\"\n    command: sync\n"
		_, err := Parse("schedules.yaml", []byte(file), known)
		var pe *ParseError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Parse(cron %q) = %v, want nil", tc.cron, err)
		case tc.want != "" && (!errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("Parse(cron %q) = %v, want %q", tc.cron, err, tc.want)
		}
	}
}
