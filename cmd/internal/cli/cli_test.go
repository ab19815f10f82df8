package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Every call a command makes through the client Open builds lands in the
// calls table, without the command asking for it.
func TestOpenRecordsCallsInTheDatabase(t *testing.T) {
	ctx := context.Background()
	var c Common
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Bind(fs)
	if err := fs.Parse([]string{"--sandbox", "--sandbox-days", "3", "--db", filepath.Join(t.TempDir(), "t.db")}); err != nil {
		t.Fatal(err)
	}
	env, err := c.Open(ctx, slog.New(slog.DiscardHandler), Options{NeedClient: true, SandboxOptions: func(o *sandbox.Options) { o.NoDefects = true; o.CallsPerDay = 5 }})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer env.Close()
	if _, err := env.Client.AepsBanks(ctx); err != nil {
		t.Fatalf("AepsBanks: %v", err)
	}
	var n int
	var secretSeen int
	if err := env.DB.QueryRowContext(ctx, `SELECT count(*), sum(instr(coalesce(request,'')||coalesce(response,''), ?) > 0) FROM calls WHERE source = 'svcrecon' AND operation = ?`,
		env.Config.ClientSecret, svcapi.OpAepsBanks).Scan(&n, &secretSeen); err != nil {
		t.Fatal(err)
	}
	if n != 1 || secretSeen != 0 {
		t.Fatalf("calls rows for the call = %d (secret in %d), want 1 (0)", n, secretSeen)
	}
}

// A command that only works on the database binds --db and the log flags,
// and nothing else; Open works with them alone.
func TestBindSubset(t *testing.T) {
	t.Setenv("SVC_DB", "")
	var c Common
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.BindDB(fs)
	c.BindLog(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if got := strings.Join(names, " "); got != "db db-pool log-format log-level" {
		t.Errorf("BindDB + BindLog registered %q, want \"db log-format log-level\"", got)
	}
	if c.DB != "svcrecon.db" || c.LogFormat != "text" || c.LogLevel != "info" {
		t.Errorf("defaults %q %q %q", c.DB, c.LogFormat, c.LogLevel)
	}
	all := flag.NewFlagSet("all", flag.ContinueOnError)
	new(Common).Bind(all)
	for _, n := range names {
		if all.Lookup(n) == nil {
			t.Errorf("Bind lacks --%s", n)
		}
	}
	db := filepath.Join(t.TempDir(), "t.db")
	if err := fs.Parse([]string{"--db", db, "--log-level", "warn"}); err != nil {
		t.Fatal(err)
	}
	log, err := c.Logger(context.Background(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.Open(context.Background(), log, Options{})
	if err != nil {
		t.Fatalf("Open with only --db: %v", err)
	}
	defer env.Close()
	if env.DB.Path != db || env.Client != nil {
		t.Errorf("Open: database %q, client %v; want %q and no client", env.DB.Path, env.Client, db)
	}
}

func TestMissingCredentialNamesTheVariable(t *testing.T) {
	t.Setenv("SVC_BASE_URL", "https://svc.example")
	t.Setenv("SVC_CLIENT_ID", "id")
	t.Setenv("SVC_CLIENT_SECRET", "")
	t.Setenv("SVC_ENDPOINT_IP", "192.0.2.1")
	var c Common
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Bind(fs)
	if err := fs.Parse([]string{"--db", filepath.Join(t.TempDir(), "t.db")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Open(context.Background(), slog.New(slog.DiscardHandler), Options{NeedClient: true})
	var ce *svcapi.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_CLIENT_SECRET" {
		t.Fatalf("Open() = %v, want a ConfigError naming SVC_CLIENT_SECRET", err)
	}
	var stderr bytes.Buffer
	if code := Exit(err, &stderr); code != ExitUsage || strings.Count(stderr.String(), "\n") != 1 {
		t.Fatalf("Exit() = %d, %q; want %d and one line", code, stderr.String(), ExitUsage)
	}
}

func TestParseHelpAndMistakes(t *testing.T) {
	var stderr bytes.Buffer
	fs := NewFlagSet("demo", "demo [flags]", "  demo --x 1", &stderr)
	fs.Int("x", 0, "a number")
	if err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
	if got := strings.Count(stderr.String(), "Usage:"); got != 1 || !strings.Contains(stderr.String(), "demo --x 1") {
		t.Fatalf("-h printed %q, want the usage once with its examples", stderr.String())
	}
	err := Parse(fs, []string{"--y"})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "demo -h") {
		t.Fatalf("Parse(--y) = %v, want a UsageError pointing at demo -h", err)
	}
}

func TestParsePeriod(t *testing.T) {
	for _, tc := range []struct{ from, to, wantErr string }{
		{"2026-11-01", "2026-11-30", ""},
		{"2026-11-30", "2026-11-01", "before"},
		{"2026-13-01", "2026-11-30", "--from"},
		{"", "2026-11-30", "--from YYYY-MM-DD --to"},
	} {
		_, _, err := ParsePeriod(tc.from, tc.to)
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("ParsePeriod(%q, %q) = %v, want error containing %q", tc.from, tc.to, err, tc.wantErr)
		}
	}
}

func TestEveryMissingSettingInOneLineAndNoDatabaseLeft(t *testing.T) {
	for _, v := range []string{"SVC_BASE_URL", "SVC_CLIENT_ID", "SVC_CLIENT_SECRET", "SVC_ENDPOINT_IP"} {
		t.Setenv(v, "")
	}
	var c Common
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Bind(fs)
	db := filepath.Join(t.TempDir(), "t.db")
	if err := fs.Parse([]string{"--db", db}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Open(context.Background(), slog.New(slog.DiscardHandler), Options{NeedClient: true})
	var ce *svcapi.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "SVC_BASE_URL, SVC_CLIENT_ID, SVC_CLIENT_SECRET, SVC_ENDPOINT_IP" {
		t.Fatalf("Open() = %v, want one ConfigError naming all four variables", err)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("database file after a config error: %v, want none created", err)
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{{"1048576", 1 << 20, true}, {"32MiB", 32 << 20, true}, {"512KiB", 512 << 10, true}, {"1GiB", 1 << 30, true},
		{"0", 0, false}, {"-5MiB", 0, false}, {"lots", 0, false}, {"32MB", 0, false}} {
		got, err := parseSize(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestBadNetworkSettingsAreRefusedBeforeTheDatabase(t *testing.T) {
	for _, args := range [][]string{{"--rate", "-5"}, {"--timeout", "0s"}, {"--timeout", "-1s"}} {
		dir := t.TempDir()
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var c Common
		c.Bind(fs)
		if err := fs.Parse(append(args, "--db", filepath.Join(dir, "x.db"), "--sandbox")); err != nil {
			t.Fatal(err)
		}
		_, err := c.Open(context.Background(), slog.New(slog.DiscardHandler), Options{NeedClient: true})
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: Open = %v, want a usage error", args, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: left %d files behind", args, len(entries))
		}
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"run", "sync", "import-calls", "check", "export", "schedule", "history"}
	for _, c := range []struct{ in, want string }{
		{"chek", "check"}, {"CHECK", "check"}, {"imprt-calls", "import-calls"}, {"sched", "schedule"},
		{"export", "export"}, {"frobnicate", ""}, {"x", ""},
	} {
		if got := Suggest(c.in, cands); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDispatchSuggestsAndPrintsTheVersion(t *testing.T) {
	cmds := []Command{{Name: "check", Run: func(context.Context, []string, io.Writer, io.Writer) error { return nil }}}
	err := Dispatch(context.Background(), "reconcile", cmds, "", []string{"chek"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "did you mean reconcile check?") {
		t.Errorf("Dispatch(chek) = %v, want a suggestion", err)
	}
	var out bytes.Buffer
	if err := Dispatch(context.Background(), "reconcile", cmds, "", []string{"--version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "svcrecon ") {
		t.Errorf("Dispatch(--version) = %v, %q", err, out.String())
	}
	fs := NewFlagSet("check", "reconcile check", "", io.Discard)
	fs.String("from", "", "")
	err = Parse(fs, []string{"--fomr", "2026-11-01"})
	if err == nil || !strings.Contains(err.Error(), "did you mean --from?") {
		t.Errorf("Parse(--fomr) = %v, want a suggestion", err)
	}
	out.Reset()
	fs = NewFlagSet("check", "reconcile check", "", &out)
	if err := Parse(fs, []string{"--version"}); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out.String(), "svcrecon ") {
		t.Errorf("Parse(--version) = %v, %q", err, out.String())
	}
}

func TestCheckPeriod(t *testing.T) {
	now := time.Date(2026, 11, 22, 1, 0, 0, 0, recon.IST) // 2026-11-21 19:30 UTC
	d := func(s string) time.Time {
		v, err := ParseDate("x", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		from, to  string
		allowLong bool
		want      string
	}{
		{"2026-11-01", "2026-11-22", false, ""},
		{"2026-11-01", "2026-11-23", false, "after today (2026-11-22, IST)"},
		{"1900-01-01", "2026-11-21", false, "longer than 400"},
		{"1900-01-01", "2026-11-21", true, ""},
		{"2025-10-19", "2026-11-22", false, ""}, // 400 days
		{"2025-10-18", "2026-11-22", false, "401 days"},
	} {
		err := CheckPeriod(d(c.from), d(c.to), now, c.allowLong)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckPeriod(%s, %s, %v) = %v, want %q", c.from, c.to, c.allowLong, err, c.want)
		}
	}
}

// The database and the call log hold customers' data: they are created
// readable by their owner only, whatever the umask.
func TestDatabaseAndCallLogArePrivate(t *testing.T) {
	for _, umask := range []int{0o022, 0o077} {
		old := syscall.Umask(umask)
		dir := t.TempDir()
		var c Common
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		c.Bind(fs)
		if err := fs.Parse([]string{"--sandbox", "--sandbox-days", "3", "--db", filepath.Join(dir, "t.db"), "--call-log", filepath.Join(dir, "calls.jsonl")}); err != nil {
			t.Fatal(err)
		}
		env, err := c.Open(context.Background(), slog.New(slog.DiscardHandler), Options{NeedClient: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Client.AepsBanks(context.Background()); err != nil {
			t.Fatal(err)
		}
		env.Close()
		syscall.Umask(old)
		for _, name := range []string{"t.db", "calls.jsonl"} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("umask %03o: %s mode = %v, want 0600", umask, name, fi.Mode().Perm())
			}
		}
	}
}
