package clitest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	env := map[string]string{"SVC_NOTIFY_URL": "http://127.0.0.1:1/hook", "HOME": "/home/x"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		line string
		want Command
	}{
		{`reconcile run --sandbox                     # try everything`,
			Command{Prog: "reconcile", Args: []string{"run", "--sandbox"}}},
		{`go run ./cmd/reconcile run --sandbox`, Command{Prog: "reconcile", Args: []string{"run", "--sandbox"}}},
		{`SVC_ACCOUNT=0409000123456 SVC_DB="my db" reconcile sync --from 2026-11-01`,
			Command{Env: []string{"SVC_ACCOUNT=0409000123456", "SVC_DB=my db"}, Prog: "reconcile", Args: []string{"sync", "--from", "2026-11-01"}}},
		{`reconcile run --notify "$SVC_NOTIFY_URL" --calls 'logs/calls-*.jsonl' --out ${HOME}/r`,
			Command{Prog: "reconcile", Args: []string{"run", "--notify", "http://127.0.0.1:1/hook", "--calls", "logs/calls-*.jsonl", "--out", "/home/x/r"}}},
		{`zcat old.jsonl.gz | reconcile import-calls -             # standard input`,
			Command{Prog: "reconcile", Args: []string{"import-calls", "-"}, Input: &Command{Prog: "zcat", Args: []string{"old.jsonl.gz"}}}},
		{`go run ./cmd/svcsandbox --calls calls.jsonl > sandbox.env &`,
			Command{Prog: "svcsandbox", Args: []string{"--calls", "calls.jsonl"}, Stdout: "sandbox.env", Background: true}},
		{`eval "$(go run ./cmd/svcsandbox callback --out values.txt)"   # sets the key`,
			Command{Prog: "svcsandbox", Args: []string{"callback", "--out", "values.txt"}, Eval: true}},
		{`bulkrun run --set 'note=a # b' --set x=\$y`, Command{Prog: "bulkrun", Args: []string{"run", "--set", "note=a # b", "--set", "x=$y"}}},
	} {
		got, err := Parse(c.line, getenv)
		if err != nil {
			t.Errorf("Parse(%q) = %v", c.line, err)
			continue
		}
		c.want.Line = c.line
		if !same(got, &c.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", c.line, got, c.want)
		}
	}
	for _, line := range []string{
		`while [ ! -s sandbox.env ] && kill -0 $! 2>/dev/null; do sleep 1; done; . ./sandbox.env`,
		`kill %1 ; true`,
		`0 21 * * * cd /srv/svcrecon && ./reconcile schedule run nightly >>log/nightly.log 2>&1`,
		`reconcile sync > a > b`,
		`FOO=1`,
	} {
		if _, err := Parse(line, getenv); !errors.Is(err, ErrNotSimple) {
			t.Errorf("Parse(%q) = %v, want ErrNotSimple", line, err)
		}
	}
}

func same(a, b *Command) bool {
	if (a.Input == nil) != (b.Input == nil) || a.Input != nil && !same(a.Input, b.Input) {
		return false
	}
	return a.Prog == b.Prog && slices.Equal(a.Args, b.Args) && slices.Equal(a.Env, b.Env) &&
		a.Stdout == b.Stdout && a.Background == b.Background && a.Eval == b.Eval
}

func TestParseExpandsUnquotedGlobs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"a.jsonl", "b.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Parse(`reconcile import-calls *.jsonl 'x*.jsonl' none*.jsonl`, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"import-calls", "a.jsonl", "b.jsonl", "x*.jsonl", "none*.jsonl"}; !slices.Equal(c.Args, want) {
		t.Errorf("Args = %q, want %q", c.Args, want)
	}
}

func TestRebase(t *testing.T) {
	c, err := Parse(`SVC_DB=/var/lib/s.db reconcile schedule --file /etc/s.yaml --out=/srv/r --calls 'logs/*.jsonl' > /tmp/o`, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	c.Rebase("/t")
	if want := []string{"schedule", "--file", "/t/etc/s.yaml", "--out=/t/srv/r", "--calls", "logs/*.jsonl"}; !slices.Equal(c.Args, want) {
		t.Errorf("Args = %q, want %q", c.Args, want)
	}
	if c.Env[0] != "SVC_DB=/t/var/lib/s.db" || c.Stdout != "/t/tmp/o" {
		t.Errorf("Env %q, Stdout %q", c.Env, c.Stdout)
	}
}

func TestHelpExamplesAndBlocks(t *testing.T) {
	usage := "Usage: x\n\nFlags:\n  -db string\n\nExamples:\n  x --a   # one\n\n  # a comment\n  x --b\nProse about them.\n"
	if got := HelpExamples(usage); !slices.Equal(got, []string{"x --a   # one", "x --b"}) {
		t.Errorf("HelpExamples = %q", got)
	}
	md := "# T\n\n## One\n\n```sh\nx --a\n\n# c\ny\n```\n\n## Two\n```\nout\n```\n"
	bs := Blocks(md)
	if len(bs) != 2 || bs[0].Lang != "sh" || bs[0].Section != "One" || bs[0].Line != 6 ||
		!slices.Equal(bs[0].Commands(), []string{"x --a", "y"}) || bs[1].Lang != "" || bs[1].Section != "Two" {
		t.Errorf("Blocks = %+v", bs)
	}
	if strings.Join(bs[1].Lines, "") != "out" {
		t.Errorf("second block lines %q", bs[1].Lines)
	}
}
