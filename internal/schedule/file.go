// Package schedule runs svcrecon's scheduled jobs: it parses schedules.yaml,
// fires each job on its cron expression in its own time zone (robfig/cron),
// never runs two runs of one job at once, records every run in the job_runs
// table and holds a lease in the leases table while a job runs, so that two
// processes on one database (the daemon and a cron(8) entry, say) never run
// the same job together.
//
// The package knows nothing of what a job does: the caller hands it one
// JobFunc per command name and maps those to its own subcommands.
package schedule

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"

	"github.com/svcrecon/svcrecon/internal/yamlfile"
)

// DefaultTimezone is the zone of a job when neither the job nor the file
// names one.
const DefaultTimezone = "Asia/Kolkata"

// File is a parsed schedules file.
type File struct {
	Path string
	Jobs []Job // in the order of the file
}

// Job is one scheduled job.
type Job struct {
	Name     string
	Cron     string         // the expression as written ("30 2 * * *", "@daily")
	Location *time.Location // the zone the expression is read in
	Command  string         // the subcommand to run
	Args     []string       // its arguments
	Timeout  time.Duration  // 0: no limit
	Notify   string         // URL to POST a Notice to when a run ends with breaks or fails ("" none)
	Line     int            // line of the job in the file
	ArgsLine int            // line of its args (Line when it has none)

	schedule cron.Schedule
}

// Job returns the job called name, or false.
func (f *File) Job(name string) (Job, bool) {
	for _, j := range f.Jobs {
		if j.Name == name {
			return j, true
		}
	}
	return Job{}, false
}

// Names returns the job names in file order.
func (f *File) Names() []string {
	out := make([]string, len(f.Jobs))
	for i, j := range f.Jobs {
		out[i] = j.Name
	}
	return out
}

// Next returns the job's next n run times after t, in the job's zone.
func (j Job) Next(t time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	for range n {
		t = j.schedule.Next(t)
		if t.IsZero() {
			break
		}
		out = append(out, t.In(j.Location))
	}
	return out
}

// ParseError is a mistake in a schedules file, at a line (0: the file as
// a whole).
type ParseError = yamlfile.Error

// Load reads and parses the schedules file at path. commands are the
// command names a job may run. Errors are *ParseError (file:line: reason) or the
// error reading the file. A file that is not a regular file, or beyond its
// budget (budget.SettingsFile in all, budget.SettingsLine a line), is a
// *ParseError, before it is parsed.
func Load(path string, commands []string) (*File, error) {
	data, err := yamlfile.Read(path, "a schedules file")
	if err != nil {
		return nil, err
	}
	return Parse(path, data, commands)
}

var (
	jobNameRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
)

// Parse parses a schedules file (name is used in errors). The format:
//
//	timezone: Asia/Kolkata        # optional default zone of the jobs
//	notify: https://chat.example/hook  # optional default notification URL
//	jobs:
//	  nightly:
//	    cron: "30 2 * * *"        # 5 fields or a descriptor (@daily, @every 1h)
//	    timezone: Asia/Kolkata    # optional, overrides the default
//	    command: run              # a command known to the caller
//	    args: ["--fail-on-breaks"] # optional
//	    timeout: 3h               # optional limit of one run
//	    notify: ${SVC_NOTIFY_URL} # optional, overrides the default
//
// A notify URL is http or https; written as $NAME or ${NAME} it is read
// from that environment variable (a chat webhook's URL is a secret).
// Every mistake — an unknown key, a missing field, a bad expression, an
// @every under one second, an expression that never fires (30 February),
// an unknown zone or command, a bad URL — is a *ParseError with the line
// at fault.
func Parse(name string, data []byte, commands []string) (*File, error) {
	p := parser{Reader: yamlfile.Reader{Name: name}, commands: commands}
	root, err := p.Root(data, "a jobs: mapping")
	if err != nil {
		return nil, err
	}
	f, err := p.file(root)
	if err != nil {
		return nil, err
	}
	return f, p.fires(f, time.Now())
}

// neverWithin is how far ahead a job's cron expression must fire once:
// robfig/cron looks no further (it gives up after five years), and a
// date every leap year (29 February) fires within it.
const neverWithin = 5 * 365 * 24 * time.Hour

// fires refuses a job whose expression parses but names no time that
// exists (30 February, 31 April): robfig/cron would wait for it forever.
// The error is the job's line.
func (p *parser) fires(f *File, now time.Time) error {
	for _, j := range f.Jobs {
		if next := j.schedule.Next(now); next.IsZero() || next.Sub(now) > neverWithin {
			return p.Errf(j.Line, "job %s: cron %q never fires (no such date in the next five years, e.g. 30 February or 31 April)", j.Name, j.Cron)
		}
	}
	return nil
}

type parser struct {
	yamlfile.Reader
	commands []string
	notify   string // the file's default notify URL
}

func (p *parser) file(root *yaml.Node) (*File, error) {
	kvs, err := p.Mapping(root, "top level", "timezone", "notify", "jobs")
	if err != nil {
		return nil, err
	}
	f := &File{Path: p.Name}
	defaultZone := DefaultTimezone
	zoneLine := 0
	var jobs *yaml.Node
	for _, kv := range kvs {
		switch kv[0].Value {
		case "timezone":
			if defaultZone, err = p.scalar(kv[1], "timezone"); err != nil {
				return nil, err
			}
			zoneLine = kv[1].Line
		case "notify":
			if p.notify, err = p.notifyURL(kv[1], "notify"); err != nil {
				return nil, err
			}
		case "jobs":
			jobs = kv[1]
		}
	}
	defLoc, err := p.zone(defaultZone, zoneLine, "timezone")
	if err != nil {
		return nil, err
	}
	if jobs == nil {
		return nil, p.Errf(yamlfile.Deref(root).Line, "missing jobs: (a mapping of job names to jobs)")
	}
	jkvs, err := p.Mapping(jobs, "jobs")
	if err != nil {
		return nil, err
	}
	if len(jkvs) == 0 {
		return nil, p.Errf(jobs.Line, "jobs: no jobs")
	}
	for _, kv := range jkvs {
		j, err := p.job(kv[0], kv[1], defLoc)
		if err != nil {
			return nil, err
		}
		f.Jobs = append(f.Jobs, j)
	}
	return f, nil
}

// job parses the job named by key: its fields, then its schedule.
func (p *parser) job(key, n *yaml.Node, defLoc *time.Location) (Job, error) {
	j := Job{Name: key.Value, Line: key.Line, ArgsLine: key.Line, Location: defLoc, Notify: p.notify}
	if !jobNameRE.MatchString(j.Name) {
		return j, p.Errf(key.Line, "job name %q: use letters, digits, '-', '_' and '.'", j.Name)
	}
	what := "job " + j.Name
	kvs, err := p.Mapping(n, what, "cron", "timezone", "command", "args", "timeout", "notify")
	if err != nil {
		return j, err
	}
	var cronNode *yaml.Node
	for _, kv := range kvs {
		if kv[0].Value == "cron" {
			cronNode = kv[1]
		}
		if err := p.jobField(&j, kv[0].Value, kv[1], what); err != nil {
			return j, err
		}
	}
	switch {
	case cronNode == nil:
		return j, p.Errf(key.Line, "%s: missing cron (e.g. cron: \"30 2 * * *\")", what)
	case j.Command == "":
		return j, p.Errf(key.Line, "%s: missing command (the subcommand to run)", what)
	}
	j.schedule, err = p.schedule(j, cronNode.Line, what)
	return j, err
}

// jobField parses the job's field k, of value v, into j.
func (p *parser) jobField(j *Job, k string, v *yaml.Node, what string) error {
	var err error
	switch k {
	case "cron":
		j.Cron, err = p.scalar(v, what+": cron")
	case "timezone":
		var z string
		if z, err = p.scalar(v, what+": timezone"); err == nil {
			j.Location, err = p.zone(z, v.Line, what+": timezone")
		}
	case "command":
		if j.Command, err = p.scalar(v, what+": command"); err == nil && !slices.Contains(p.commands, j.Command) {
			err = p.Errf(v.Line, "%s: unknown command %q (known: %s)", what, j.Command, strings.Join(p.commands, ", "))
		}
	case "args":
		j.ArgsLine = v.Line
		j.Args, err = p.args(v, what)
	case "timeout":
		j.Timeout, err = p.timeout(v, what)
	case "notify":
		j.Notify, err = p.notifyURL(v, what+": notify")
	}
	return err
}

// args reads a job's args: a list of strings.
func (p *parser) args(v *yaml.Node, what string) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, p.Errf(v.Line, "%s: args: want a list of strings, e.g. [\"--full\"], got %s", what, yamlfile.KindName(v))
	}
	out := []string{}
	for _, a := range v.Content {
		s, err := p.scalar(a, what+": args")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// timeout reads a job's timeout: a positive duration.
func (p *parser) timeout(v *yaml.Node, what string) (time.Duration, error) {
	s, err := p.scalar(v, what+": timeout")
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, p.Errf(v.Line, "%s: timeout %q: want a positive duration such as 90m or 3h", what, s)
	}
	return d, nil
}

// schedule parses the job's cron expression (written on line) in its zone.
func (p *parser) schedule(j Job, line int, what string) (cron.Schedule, error) {
	if strings.HasPrefix(j.Cron, "TZ=") || strings.HasPrefix(j.Cron, "CRON_TZ=") {
		return nil, p.Errf(line, "%s: cron %q: give the zone with timezone:, not in the expression", what, j.Cron)
	}
	if every, ok := strings.CutPrefix(j.Cron, "@every "); ok {
		// robfig/cron runs anything under a second (0s, -1h) every second.
		d, err := time.ParseDuration(strings.TrimSpace(every))
		if err == nil && d < time.Second {
			return nil, p.Errf(line, "%s: cron %q: want @every 1s or more (e.g. @every 1h)", what, j.Cron)
		}
	}
	s, err := cronParser.Parse(j.Cron)
	if err != nil {
		return nil, p.Errf(line, "%s: cron %q: %v", what, j.Cron, err)
	}
	if spec, ok := s.(*cron.SpecSchedule); ok {
		spec.Location = j.Location
	}
	return s, nil
}

// envRefRE is a whole value naming an environment variable: $NAME or ${NAME}.
var envRefRE = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$`)

// notifyURL reads a notification URL: http or https with a host, or
// $NAME / ${NAME} for one in the environment. "" (notify: "") is none.
func (p *parser) notifyURL(n *yaml.Node, what string) (string, error) {
	v, err := p.scalar(n, what)
	if err != nil || v == "" {
		return "", err
	}
	if m := envRefRE.FindStringSubmatch(v); m != nil {
		name := m[1] + m[2]
		if v = os.Getenv(name); v == "" {
			return "", p.Errf(n.Line, "%s: %s is not set (the URL to notify)", what, name)
		}
		if err := CheckURL(v); err != nil {
			return "", p.Errf(n.Line, "%s: the URL in %s: %v", what, name, err)
		}
		return v, nil
	}
	if err := CheckURL(v); err != nil {
		return "", p.Errf(n.Line, "%s: %v", what, err)
	}
	return v, nil
}

func (p *parser) scalar(n *yaml.Node, what string) (string, error) {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.Errf(n.Line, "%s: want a value, got %s", what, yamlfile.KindName(n))
	}
	return n.Value, nil
}

func (p *parser) zone(name string, line int, what string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, p.Errf(max(line, 1), "%s %q: name an IANA zone such as Asia/Kolkata", what, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, p.Errf(max(line, 1), "%s: unknown time zone %q (want an IANA name such as Asia/Kolkata)", what, name)
	}
	return loc, nil
}
