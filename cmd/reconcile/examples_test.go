package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/cmd/internal/cli/clitest"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/store/pgtest"
)

// The examples run in one made-up world: "today" is 2026-12-02 (IST), so
// that every period the examples name has ended and last night (2026-12-01)
// holds a planted defect (a call whose log line lost its keys: callOnly
// and statementOnly); the sandbox's history runs from 2026-10-08 to
// 2026-12-05 (its last days are after "today" and never asked for), so
// 2026-10-02 is a day with no traffic.
var (
	exampleNow      = time.Date(2026, 12, 2, 10, 0, 0, 0, recon.IST)
	exampleWorldEnd = time.Date(2026, 12, 5, 0, 0, 0, 0, recon.IST)
)

const exampleWorldDays = 59

// exampleOutlet and the sandbox's account are the values the examples
// give as settings (SVC_OUTLET_ID=OUT123 …): the sandbox answers to them.
const exampleOutlet = "OUT123"

// notRunExamples are the example lines no test runs, with the reason. Each
// must still be an example (a stale entry fails the test).
var notRunExamples = map[string]string{
	"0 21 * * * cd /srv/svcrecon && ./reconcile schedule run nightly >>log/nightly.log 2>&1": "a crontab(5) line: cron runs it; its command is `reconcile schedule run nightly`, run as an example of its own",
	"go test ./...":              "the tests themselves: running them from a test would recurse",
	"go build -o bin/ ./cmd/...": "builds the binaries: go test has just compiled the same packages",
	"export SVC_BASE_URL=https://api.example.com SVC_CLIENT_ID=… SVC_CLIENT_SECRET=… SVC_OUTLET_ID=…": "the contents of ./env: placeholders for a deployment's own settings",
	"export SVC_ENDPOINT_IP=… SVC_ACCOUNT=… SVC_DB=/var/lib/svcrecon/svcrecon.db":                     "the contents of ./env: placeholders for a deployment's own settings",
	"while [ ! -s sandbox.env ] && kill -0 $! 2>/dev/null; do sleep 1; done; . ./sandbox.env":         "shell glue waiting for svcsandbox in the background; the test's environment points at its sandbox already",
	"kill %1": "shell glue stopping svcsandbox in the background",
	"reconcile calls show --db /var/lib/svcrecon/svcrecon.db 17 18 | jq .response.data.pool":          "pipes into jq, which a test cannot count on; `reconcile calls show 17` runs as an example",
	"reconcile exceptions import reviewed.xlsx --by asha":                                             closingRuns + " (an analyst's reviewed workbook of that world)",
	"reconcile signoff 9 --as preparer --by ravi --note \"November: open items carried to December\"": closingRuns + " (run 9 of that world)",
	"reconcile signoff 9 --as approver --by meera":                                                    closingRuns + " (after the preparer)",
	"reconcile verify close/2026-11/manifest.json":                                                    closingRuns + " (the manifest its close run writes)",
}

// closingRuns is the reason of the notRunExamples that TestClosingAMonth
// runs: each is a line of the README's "Closing a month" (checked there).
const closingRuns = "a line of the README's Closing a month, which TestClosingAMonth runs in its world"

// notRunBlocks are README code blocks that hold commands but are no shell
// session, by their first line, with the reason they are not run.
var notRunBlocks = map[string]string{
	"# /etc/cron.d/svcrecon": "a cron.d file: cron runs its lines; their command is `reconcile schedule run JOB`, run as examples",
	"[Service]":              "a systemd unit: systemd runs it; its command is `reconcile schedule --file … --log-format json`, run as an example",
}

// elsewhere are the commands whose examples another package's test runs.
var elsewhere = map[string]string{
	"svcsandbox": "cmd/svcsandbox TestEveryExampleRuns",
	"bulkrun":    "cmd/bulkrun TestEveryHelpExampleRuns (its README section) and cmd/svcsandbox TestEveryExampleRuns (the QR callback section)",
}

// wantExit is the exit status an example documents when it is not 0.
var wantExit = map[string]int{
	// --fail-on-breaks: last night holds the planted lost-keys call.
	"reconcile run --calls '/var/log/client/calls-*.jsonl' --out reports --fail-on-breaks":     cli.ExitFindings,
	"reconcile run --fail-on-breaks --notify \"$SVC_NOTIFY_URL\" --calls 'logs/calls-*.jsonl'": cli.ExitFindings,
	"reconcile run --fail-on-breaks --db-pool 8":                                               cli.ExitFindings,
	// The nightly job of schedules.yaml is run … --fail-on-breaks.
	"reconcile schedule run nightly": cli.ExitFindings,
	// Yesterday (2026-12-01) holds the planted lost-keys call; November has
	// every kind of finding.
	"reconcile run --date 2026-12-01 --calls 'logs/calls-*.jsonl' --out reports --fail-on-breaks": cli.ExitFindings,
	"reconcile check --from 2026-12-01 --to 2026-12-01 --fail-on-breaks":                          cli.ExitFindings,
	"reconcile check --from 2026-11-01 --to 2026-11-30 --fail-on-breaks":                          cli.ExitFindings,
}

// exampleWorld is what the examples run against: the sandbox, a webhook
// for --notify, the sandbox's client call log and a database template
// holding the history synced, the call log imported and every period an
// example names checked (export writes a checked period).
type exampleWorld struct {
	root     string // the repository
	srv      *sandbox.Server
	hook     *webhook
	callLog  []byte
	template string
}

// atExampleNow makes "today" exampleNow for the rest of the test: for the
// commands and for the dates of the examples in -h.
func atExampleNow(t *testing.T) {
	t.Helper()
	old := clock
	clock = func() time.Time { return exampleNow }
	t.Cleanup(func() { clock = old })
}

// newExampleWorld starts the world and points the environment at it.
func newExampleWorld(t *testing.T, examples []string) *exampleWorld {
	t.Helper()
	needSandbox(t)
	atExampleNow(t)
	noNotifyWait(t)
	creds := sandbox.DefaultCredentials
	creds.OutletID = exampleOutlet
	srv, err := sandbox.Start(sandbox.Options{Days: exampleWorldDays, End: exampleWorldEnd, CallsPerDay: 10, OrdersPerDay: 3,
		Credentials: creds, Now: func() time.Time { return exampleWorldEnd.AddDate(0, 0, 1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	w := &exampleWorld{root: root, srv: srv, hook: newWebhook(t, 0)}
	clitest.Setenv(t, append(clitest.SandboxEnv(srv), "SVC_NOTIFY_URL="+w.hook.url()))
	var b bytes.Buffer
	if err := srv.WriteCallLog(&b); err != nil {
		t.Fatal(err)
	}
	w.callLog = b.Bytes()

	dir := t.TempDir()
	w.template = filepath.Join(dir, "template.db")
	from, _ := srv.OrdersPeriod()
	logPath := filepath.Join(dir, "calls.jsonl")
	if err := os.WriteFile(logPath, w.callLog, 0o600); err != nil {
		t.Fatal(err)
	}
	steps := [][]string{
		{"sync", "--from", from.Format(time.DateOnly), "--to", exampleNow.AddDate(0, 0, -1).Format(time.DateOnly)},
		{"import-calls", logPath},
	}
	for _, p := range namedPeriods(examples) {
		steps = append(steps, []string{"check", "--from", p[0], "--to", p[1]})
	}
	for _, s := range steps {
		args := append([]string{s[0], "--db", w.template, "--log-level", "error"}, s[1:]...)
		if stdout, stderr, err := runCmd(t, args...); err != nil {
			t.Fatalf("template: %v: %v\n%s%s", args, err, stdout, stderr)
		}
	}
	return w
}

// namedPeriods are the --from/--to periods the examples name.
func namedPeriods(examples []string) [][2]string {
	re := regexp.MustCompile(`--from (\S+) --to (\S+)`)
	var out [][2]string
	for _, ex := range examples {
		for _, m := range re.FindAllStringSubmatch(ex, -1) {
			if p := [2]string{m[1], m[2]}; !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// prepare writes into dir what the commands name: the repository's
// schedules.yaml (its absolute paths moved under dir, like the commands'),
// the sandbox's client call log under every call-log name (a glob's *
// becomes "all"; .gz compressed) and in /var/log/client/ where
// schedules.yaml looks, and, withDB, the database template as svcrecon.db
// and under every other .db name.
func (w *exampleWorld) prepare(t *testing.T, dir string, cmds []*clitest.Command, withDB bool) {
	t.Helper()
	yaml, err := os.ReadFile(filepath.Join(w.root, "schedules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	yaml = bytes.ReplaceAll(yaml, []byte(`"/`), []byte(`"`+dir+`/`))
	card, err := os.ReadFile(filepath.Join(w.root, "testdata", "rates-sandbox.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The nightly job of schedules.yaml prices the debits by rates.yaml:
	// the sandbox's prices.
	files := map[string][]byte{"schedules.yaml": yaml, "var/log/client/calls-all.jsonl": w.callLog, "rates.yaml": card}
	var dbs []string
	if withDB {
		dbs = append(dbs, filepath.Join(dir, "svcrecon.db"))
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Args...)
		names = append(names, c.Env...)
		if c.Input != nil {
			names = append(names, c.Input.Args...)
		}
	}
	for _, n := range names {
		if k, v, ok := strings.Cut(n, "="); ok && !strings.Contains(k, "/") {
			n = v // --flag=value, VAR=value
		}
		switch {
		case strings.HasSuffix(n, ".yaml") && strings.HasPrefix(filepath.Base(n), "rates"): // a rate card: the sandbox's prices
			files[n] = card
		case strings.HasSuffix(n, ".yaml"):
			files[n] = yaml
		case strings.HasSuffix(n, ".jsonl"):
			files[strings.ReplaceAll(n, "*", "all")] = w.callLog
		case strings.HasSuffix(n, ".jsonl.gz"):
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(w.callLog)
			zw.Close()
			files[strings.ReplaceAll(n, "*", "all")] = b.Bytes()
		case strings.HasSuffix(n, ".db") && withDB:
			dbs = append(dbs, n)
		}
	}
	tmpl, err := os.ReadFile(w.template)
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs {
		files[db] = tmpl
	}
	for name, body := range files {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs one example command in the current directory through run (a
// billersync line as reconcile billersync): its VAR=value prefixes set, its
// piped input on standard input, the scheduler daemon stopped as soon as it
// runs (it runs until SIGTERM), its > file written. It returns the exit
// status and the output.
func (w *exampleWorld) run(t *testing.T, c *clitest.Command) (code int, stdout, stderr string) {
	t.Helper()
	clitest.Setenv(t, c.Env)
	if c.Input != nil {
		w.stdin(t, c.Input)
	}
	args := c.Args
	if c.Prog == "billersync" {
		args = append([]string{"billersync"}, args...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var o bytes.Buffer
	e := &watchWriter{}
	if len(args) > 0 && args[0] == "schedule" && (len(args) == 1 || strings.HasPrefix(args[1], "-")) {
		e.watch, e.then = "scheduler running", cancel
	}
	err := run(ctx, args, &o, e)
	code = cli.Exit(err, e)
	if c.Stdout != "" {
		if err := os.WriteFile(c.Stdout, o.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return code, o.String(), e.String()
}

// stdin makes the output of the piped command (cat or zcat FILE) the
// standard input until the test ends.
func (w *exampleWorld) stdin(t *testing.T, in *clitest.Command) {
	t.Helper()
	if len(in.Args) != 1 || in.Prog != "cat" && in.Prog != "zcat" {
		t.Fatalf("piped input %s %q: the test knows cat FILE and zcat FILE", in.Prog, in.Args)
	}
	f, err := os.Open(in.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if in.Prog == "zcat" {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sf, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = sf
	t.Cleanup(func() { os.Stdin = old; sf.Close() })
}

// watchWriter collects what is written and calls then once the text
// watch has been written.
type watchWriter struct {
	mu    sync.Mutex
	b     bytes.Buffer
	watch string
	then  func()
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, _ := w.b.Write(p)
	if w.then != nil && strings.Contains(w.b.String(), w.watch) {
		w.then()
		w.then = nil
	}
	return n, nil
}

func (w *watchWriter) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.b.String() }

// helpTexts returns the usage of reconcile and of every subcommand
// (schedule list and schedule run too).
func helpTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	help := func(args ...string) {
		var o, e bytes.Buffer
		if err := run(context.Background(), args, &o, &e); err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("reconcile %q: %v", args, err)
		}
		if e.Len() > 0 {
			t.Errorf("reconcile %q wrote %q to stderr, want the help on stdout", args, e.String())
		}
		if m := regexp.MustCompile(`\{[a-z-]+(:[0-9]+)?\}`).FindString(o.String()); m != "" {
			t.Errorf("reconcile %q shows the placeholder %s: not a date cli.ExampleDates knows", args, m)
		}
		out["reconcile "+strings.Join(args, " ")] = o.String()
	}
	help("-h")
	for _, c := range commands() {
		help(c.Name, "-h")
	}
	help("schedule", "list", "-h")
	help("schedule", "run", "-h")
	return out
}

// readmeBlocks returns the README's code blocks outside the bulkrun
// section (whose examples cmd/bulkrun runs) and "Closing a month" (one
// session across its blocks, in a world of its own: TestClosingAMonth).
func readmeBlocks(t *testing.T) []clitest.Block {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []clitest.Block
	for _, bl := range clitest.Blocks(string(b)) {
		if !strings.HasPrefix(bl.Section, "Bulk verification files") && bl.Section != closingSection { // TestClosingAMonth runs it
			out = append(out, bl)
		}
	}
	return out
}

// toTestServer points an example's PostgreSQL URLs (in its arguments and
// settings) at a database of its own on the test server; without one, the
// example is skipped (pgtest.NewDatabase).
func toTestServer(t *testing.T, c *clitest.Command) {
	t.Helper()
	for _, list := range [][]string{c.Args, c.Env} {
		for i, a := range list {
			k, v, isSetting := strings.Cut(a, "=")
			switch {
			case store.IsPostgres(a):
				list[i] = pgtest.NewDatabase(t)
			case isSetting && store.IsPostgres(strings.Trim(v, "'")):
				list[i] = k + "=" + pgtest.NewDatabase(t)
			}
		}
	}
}

// TestEveryExampleRuns runs every example of reconcile's help texts, each in
// a fresh directory holding the database template and the files it names,
// and every shell session of the README (outside the bulkrun section), each
// line in turn in one fresh directory, against the sandbox: each exits 0
// or the status it documents (wantExit), so none can rot. Absolute paths
// (/var/lib/svcrecon/svcrecon.db, /etc/svcrecon/schedules.yaml) are moved
// under the directory; the scheduler daemon is stopped once it runs. The
// lines that cannot run in a test are listed with the reason
// (notRunExamples, notRunBlocks).
func TestEveryExampleRuns(t *testing.T) {
	atExampleNow(t)
	helps := helpTexts(t)
	type example struct{ source, line string }
	var helpExamples []example
	for _, name := range slices.Sorted(maps.Keys(helps)) {
		exs := clitest.HelpExamples(helps[name])
		if len(exs) == 0 {
			t.Errorf("%s -h shows no examples", name)
		}
		for _, ex := range exs {
			helpExamples = append(helpExamples, example{name, ex})
		}
	}
	var sessions []clitest.Block
	readme := readmeBlocks(t)
	for _, bl := range readme {
		if bl.Lang == "sh" {
			sessions = append(sessions, bl)
			continue
		}
		if len(bl.Lines) > 0 && notRunBlocks[bl.Lines[0]] != "" {
			t.Logf("README:%d not run: %s", bl.Line, notRunBlocks[bl.Lines[0]])
		}
	}
	var all []string
	for _, ex := range helpExamples {
		all = append(all, ex.line)
	}
	for _, s := range sessions {
		all = append(all, s.Commands()...)
	}
	w := newExampleWorld(t, all)

	seen := map[string]bool{}
	// parse reads an example line; ok is false for a line this test does
	// not run (listed, or another package's).
	parse := func(t *testing.T, source, line string) (*clitest.Command, bool) {
		t.Helper()
		line = clitest.WithoutComment(line)
		seen[line] = true
		if reason, ok := notRunExamples[line]; ok {
			t.Logf("%s: not run: %s: %s", source, line, reason)
			return nil, false
		}
		c, err := clitest.Parse(line, os.Getenv)
		if err != nil {
			t.Errorf("%s: %v; fix the example or list it in notRunExamples with the reason", source, err)
			return nil, false
		}
		switch {
		case c.Prog == "reconcile" || c.Prog == "billersync" || c.Prog == "export":
			return c, true
		case elsewhere[c.Prog] != "":
			t.Logf("%s: %s: run by %s", source, line, elsewhere[c.Prog])
		default:
			t.Errorf("%s: %q: no test runs %s; list it in notRunExamples with the reason", source, line, c.Prog)
		}
		return nil, false
	}
	check := func(t *testing.T, c *clitest.Command, code int, stdout, stderr string) {
		t.Helper()
		if want := wantExit[clitest.WithoutComment(c.Line)]; code != want {
			t.Errorf("%s\nexit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.Line, code, want, stdout, stderr)
		}
	}

	for _, ex := range helpExamples {
		t.Run(ex.source+"/"+ex.line, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			c, ok := parse(t, ex.source, ex.line)
			if !ok {
				return
			}
			toTestServer(t, c)
			c.Rebase(dir)
			w.prepare(t, dir, []*clitest.Command{c}, true)
			notices := len(must(w.hook.got()))
			code, stdout, stderr := w.run(t, c)
			check(t, c, code, stdout, stderr)
			if slices.Contains(c.Args, "--notify") && len(must(w.hook.got())) != notices+1 {
				t.Errorf("%s: the webhook got %d notices, want 1", c.Line, len(must(w.hook.got()))-notices)
			}
		})
	}
	for _, s := range sessions {
		t.Run(fmt.Sprintf("README.md:%d", s.Line), func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			var parsed []*clitest.Command
			for _, line := range s.Commands() { // every line seen before any is skipped
				if c, ok := parse(t, fmt.Sprintf("README.md:%d (%s)", s.Line, s.Section), line); ok {
					parsed = append(parsed, c)
				}
			}
			var cmds []*clitest.Command
			for _, c := range parsed {
				toTestServer(t, c)
				switch {
				case c.Prog == "export":
					for _, kv := range c.Args { // the session's settings, placeholders (…) left out
						if k, v, _ := strings.Cut(kv, "="); v != "…" {
							t.Setenv(k, v)
						}
					}
				default:
					c.Rebase(dir)
					cmds = append(cmds, c)
				}
			}
			w.prepare(t, dir, cmds, false)
			for _, c := range cmds {
				code, stdout, stderr := w.run(t, c)
				check(t, c, code, stdout, stderr)
			}
		})
	}
	for line := range notRunExamples {
		if !seen[line] {
			t.Errorf("notRunExamples lists %q, no longer an example", line)
		}
	}
	for line := range wantExit {
		if !seen[line] {
			t.Errorf("wantExit lists %q, no longer an example", line)
		}
	}
	blocks := map[string]bool{}
	for _, bl := range readme {
		if len(bl.Lines) > 0 {
			blocks[bl.Lines[0]] = true
		}
	}
	for first := range notRunBlocks {
		if !blocks[first] {
			t.Errorf("notRunBlocks lists a README block beginning %q, no longer there", first)
		}
	}
}

func must[A, B any](a A, _ B) A { return a }
