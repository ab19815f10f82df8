package schedule

import (
	"time"

	"github.com/robfig/cron/v3"
)

// FireTime is the scheduled time that a run of the job fired at now is
// for, the same on every scheduler that fires it: for a cron expression,
// the latest time of its schedule at or before now (robfig/cron fires on
// it, to the second; now truncated to the second when none is in the last
// minute); for @every D, now truncated to a multiple of D since the zero
// time, so that schedulers started at different moments agree on the slot
// (each runs the job at its own phase, and the first in a slot runs it).
func (j Job) FireTime(now time.Time) time.Time {
	if s, ok := j.schedule.(cron.ConstantDelaySchedule); ok {
		return now.Truncate(s.Delay)
	}
	fire := now.Truncate(time.Second)
	for t := j.schedule.Next(now.Add(-time.Minute)); !t.IsZero() && !t.After(now); t = j.schedule.Next(t) {
		fire = t
	}
	return fire.UTC()
}
