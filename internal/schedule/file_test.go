package schedule

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

var known = []string{"billersync", "run", "sync"}

const good = `# comment
timezone: Asia/Kolkata
jobs:
  nightly:
    cron: "30 2 * * *"
    command: run
    args: ["--out", "reports", "--fail-on-breaks"]
    timeout: 4h
  billers:
    cron: "@daily"
    timezone: UTC
    command: billersync
`

func TestParse(t *testing.T) {
	f, err := Parse("schedules.yaml", []byte(good), known)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got, want := f.Names(), []string{"nightly", "billers"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	n, _ := f.Job("nightly")
	if n.Command != "run" || !reflect.DeepEqual(n.Args, []string{"--out", "reports", "--fail-on-breaks"}) ||
		n.Location.String() != "Asia/Kolkata" || n.Timeout != 4*time.Hour || n.Line != 4 || n.Cron != "30 2 * * *" {
		t.Errorf("nightly = %+v", n)
	}
	b, _ := f.Job("billers")
	if b.Location.String() != "UTC" || b.Args != nil {
		t.Errorf("billers = %+v", b)
	}
}

// TestParseErrors: every mistake names the file and its line.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top key", "jobz:\n  a:\n    cron: '@daily'\n", "schedules.yaml:1: top level: unknown key \"jobz\""},
		{"unknown job key", "jobs:\n  a:\n    cron: '@daily'\n    command: run\n    argz: []\n", "schedules.yaml:5: job a: unknown key \"argz\""},
		{"bad expression", "jobs:\n  a:\n    command: run\n    cron: \"61 2 * * *\"\n", "schedules.yaml:4: job a: cron \"61 2 * * *\":"},
		{"six fields", "jobs:\n  a:\n    command: run\n    cron: \"0 30 2 * * *\"\n", "schedules.yaml:4: job a: cron \"0 30 2 * * *\": expected exactly 5 fields"},
		{"bad descriptor", "jobs:\n  a:\n    command: run\n    cron: \"@nightly\"\n", "schedules.yaml:4: job a: cron \"@nightly\""},
		{"tz in expression", "jobs:\n  a:\n    command: run\n    cron: \"CRON_TZ=UTC 0 3 * * *\"\n", "schedules.yaml:4: job a: cron \"CRON_TZ=UTC 0 3 * * *\": give the zone with timezone:"},
		{"unknown zone", "jobs:\n  a:\n    cron: '@daily'\n    timezone: Asia/Kolkatta\n    command: run\n", "schedules.yaml:4: job a: timezone: unknown time zone \"Asia/Kolkatta\""},
		{"unknown default zone", "timezone: Mars/Olympus\njobs:\n  a:\n    cron: '@daily'\n    command: run\n", "schedules.yaml:1: timezone: unknown time zone \"Mars/Olympus\""},
		{"unknown command", "jobs:\n  a:\n    cron: '@daily'\n\n    command: billsync\n", "schedules.yaml:5: job a: unknown command \"billsync\""},
		{"missing cron", "jobs:\n  a:\n    command: run\n  b:\n    command: run\n", "schedules.yaml:2: job a: missing cron"},
		{"missing command", "jobs:\n  a:\n    cron: '@daily'\n", "schedules.yaml:2: job a: missing command"},
		{"empty cron", "jobs:\n  a:\n    cron:\n    command: run\n", "schedules.yaml:3: job a: cron: want a value, got nothing"},
		{"args not a list", "jobs:\n  a:\n    cron: '@daily'\n    command: run\n    args: --full\n", "schedules.yaml:5: job a: args: want a list of strings"},
		{"args of mappings", "jobs:\n  a:\n    cron: '@daily'\n    command: run\n    args:\n      - x: 1\n", "schedules.yaml:6: job a: args: want a value, got a mapping"},
		{"bad timeout", "jobs:\n  a:\n    cron: '@daily'\n    command: run\n    timeout: soon\n", "schedules.yaml:5: job a: timeout \"soon\""},
		{"duplicate job", "jobs:\n  a:\n    cron: '@daily'\n    command: run\n  a:\n    cron: '@daily'\n    command: run\n", "schedules.yaml:5: jobs: \"a\" given twice (first on line 2)"},
		{"duplicate key", "jobs:\n  a:\n    cron: '@daily'\n    cron: '@hourly'\n    command: run\n", "schedules.yaml:4: job a: \"cron\" given twice (first on line 3)"},
		{"bad job name", "jobs:\n  'a b':\n    cron: '@daily'\n    command: run\n", "schedules.yaml:2: job name \"a b\""},
		{"job not a mapping", "jobs:\n  a: run\n", "schedules.yaml:2: job a: want a mapping, got \"run\""},
		{"no jobs", "jobs: {}\n", "schedules.yaml:1: jobs: no jobs"},
		{"missing jobs", "timezone: UTC\n", "schedules.yaml:1: missing jobs:"},
		{"empty file", "# nothing\n", "schedules.yaml:1: empty file"},
		{"syntax", "jobs:\n  a:\n    cron: '@daily\n    command: run\n", "schedules.yaml:3:"},
		{"tab indent", "jobs:\n  a:\n\tcron: x\n", "schedules.yaml:3:"},
		{"every zero", "jobs:\n  a:\n    command: run\n    cron: '@every 0s'\n", "schedules.yaml:4: job a: cron \"@every 0s\": want @every 1s or more"},
		{"every negative", "jobs:\n  a:\n    command: run\n    cron: '@every -1h'\n", "schedules.yaml:4: job a: cron \"@every -1h\": want @every 1s or more"},
		{"every under a second", "jobs:\n  a:\n    command: run\n    cron: '@every 500ms'\n", "schedules.yaml:4: job a: cron \"@every 500ms\": want @every 1s or more"},
		{"every nonsense", "jobs:\n  a:\n    command: run\n    cron: '@every soon'\n", "schedules.yaml:4: job a: cron \"@every soon\":"},
		{"notify not a URL", "jobs:\n  a:\n    cron: '@daily'\n    command: run\n    notify: chat\n", "schedules.yaml:5: job a: notify: want an http or https URL"},
		{"notify ftp", "notify: ftp://chat.example/x\njobs:\n  a:\n    cron: '@daily'\n    command: run\n", "schedules.yaml:1: notify: want an http or https URL, not \"ftp\""},
		{"notify unset variable", "jobs:\n  a:\n    cron: '@daily'\n    command: run\n    notify: ${SVC_TEST_NOTIFY_UNSET}\n", "schedules.yaml:5: job a: notify: SVC_TEST_NOTIFY_UNSET is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("schedules.yaml", []byte(tt.yaml), known)
			if err == nil {
				t.Fatalf("Parse(%q) = nil error, want %q", tt.yaml, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse error %v (%T) is not a *ParseError", err, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Parse error = %q, want prefix %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse error %q is not one line", err)
			}
		})
	}
}

// TestParseNotifyAndArgsLine: a job's notify URL is its own, else the
// file's, else none; $NAME reads it from the environment (a webhook URL is
// a secret); the line of a job's args is kept for errors about them.
func TestParseNotifyAndArgsLine(t *testing.T) {
	t.Setenv("SVC_TEST_NOTIFY", "https://chat.example/hooks/T0K3N")
	f, err := Parse("s.yaml", []byte(`notify: http://127.0.0.1:9/all
jobs:
  a:
    cron: '@every 1s'
    command: run
    args:
      - --fail-on-breaks
    notify: ${SVC_TEST_NOTIFY}
  b:
    cron: '@daily'
    command: run
  c:
    cron: '@daily'
    command: run
    notify: ""
`), known)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "https://chat.example/hooks/T0K3N", "b": "http://127.0.0.1:9/all", "c": ""}
	for name, url := range want {
		if j, _ := f.Job(name); j.Notify != url {
			t.Errorf("job %s notify = %q, want %q", name, j.Notify, url)
		}
	}
	if a, _ := f.Job("a"); a.ArgsLine != 7 || a.Line != 3 {
		t.Errorf("job a: line %d, args line %d; want 3 and 7", a.Line, a.ArgsLine)
	}
	if b, _ := f.Job("b"); b.ArgsLine != b.Line {
		t.Errorf("job b without args: args line %d, want its own line %d", b.ArgsLine, b.Line)
	}
	// An error about a URL never quotes it.
	t.Setenv("SVC_TEST_NOTIFY", "gopher://chat.example/hooks/T0K3N")
	_, err = Parse("s.yaml", []byte("jobs:\n  a:\n    cron: '@daily'\n    command: run\n    notify: $SVC_TEST_NOTIFY\n"), known)
	if err == nil || strings.Contains(err.Error(), "T0K3N") || !strings.Contains(err.Error(), "s.yaml:5:") {
		t.Errorf("Parse with a bad URL in the environment = %v; want s.yaml:5 and not the URL", err)
	}
}

// TestNext: 02:30 in Asia/Kolkata is 21:00 UTC the day before.
func TestNext(t *testing.T) {
	f, err := Parse("s.yaml", []byte(good), known)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 11, 24, 0, 0, time.UTC) // 16:54 IST
	tests := []struct {
		job  string
		want []string // UTC
		zone string
	}{
		{"nightly", []string{"2026-11-22T21:00:00Z", "2026-11-23T21:00:00Z", "2026-11-24T21:00:00Z"}, "Asia/Kolkata"},
		{"billers", []string{"2026-11-23T00:00:00Z", "2026-11-24T00:00:00Z", "2026-11-25T00:00:00Z"}, "UTC"},
	}
	for _, tt := range tests {
		j, _ := f.Job(tt.job)
		got := j.Next(now, 3)
		if len(got) != 3 {
			t.Fatalf("%s: Next = %v, want 3 times", tt.job, got)
		}
		for i, g := range got {
			if g.UTC().Format(time.RFC3339) != tt.want[i] || g.Location().String() != tt.zone {
				t.Errorf("%s: Next[%d] = %v, want %s in %s", tt.job, i, g, tt.want[i], tt.zone)
			}
		}
	}
	j, _ := f.Job("nightly")
	if got := j.Next(now, 1)[0].Format("2006-01-02 15:04 MST"); got != "2026-11-23 02:30 IST" {
		t.Errorf("nightly next in its zone = %s, want 2026-11-23 02:30 IST", got)
	}
	// Just before 02:30 IST the next run is the same night.
	just := time.Date(2026, 11, 22, 20, 59, 59, 0, time.UTC)
	if got := j.Next(just, 1)[0].UTC().Format(time.RFC3339); got != "2026-11-22T21:00:00Z" {
		t.Errorf("Next(%v) = %s, want 2026-11-22T21:00:00Z", just, got)
	}
}

// TestRepoSchedules parses the schedules.yaml shipped at the repository root.
func TestRepoSchedules(t *testing.T) {
	f, err := Load("../../schedules.yaml", []string{"billersync", "run"})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for _, name := range []string{"nightly", "billers"} {
		j, ok := f.Job(name)
		if !ok {
			t.Fatalf("schedules.yaml has no job %s", name)
		}
		if j.Location.String() != "Asia/Kolkata" {
			t.Errorf("job %s zone = %s, want Asia/Kolkata", name, j.Location)
		}
	}
	if _, err := os.Stat("../../schedules.yaml"); err != nil {
		t.Fatal(err)
	}
}
