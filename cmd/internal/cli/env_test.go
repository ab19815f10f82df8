package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	if _, err := env.Client.Do(ctx, svcapi.OpAepsBanks, nil); err != nil {
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
		if _, err := env.Client.Do(context.Background(), svcapi.OpAepsBanks, nil); err != nil {
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

// TestCheckDBExists: a SQLite file that is not there is a usage error
// naming the command and the path, and nothing is created; a postgres://
// URL is not checked.
func TestCheckDBExists(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo.db")
	c := Common{DB: missing}
	var ue *UsageError
	if err := c.CheckDBExists("export"); !errors.As(err, &ue) || err.Error() != "export: no database "+missing+" (give --db or SVC_DB)" {
		t.Errorf("CheckDBExists = %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the check created %s", missing)
	}
	c.DB = "postgres://db.invalid/x"
	if err := c.CheckDBExists("export"); err != nil {
		t.Errorf("CheckDBExists(postgres) = %v, want nil", err)
	}
}

// TestSandboxDatabaseUnlessDBGiven: with --sandbox, Open uses the
// command's own sandbox database unless --db was on the command line.
func TestSandboxDatabaseUnlessDBGiven(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SVC_DB", filepath.Join(dir, "env.db"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sandbox"}, filepath.Join(dir, "sandbox.db")},
		{[]string{"--sandbox", "--db", filepath.Join(dir, "mine.db")}, filepath.Join(dir, "mine.db")},
	} {
		var c Common
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		c.BindExcept(fs, "outlet-id")
		if err := fs.Parse(append(tc.args, "--sandbox-days", "2")); err != nil {
			t.Fatal(err)
		}
		env, err := c.Open(context.Background(), slog.New(slog.DiscardHandler), Options{DefaultSandboxDB: filepath.Join(dir, "sandbox.db"),
			SandboxOptions: func(o *sandbox.Options) { o.NoDefects = true; o.CallsPerDay = 5 }})
		if err != nil {
			t.Fatal(err)
		}
		env.Close()
		if env.DB.Path != tc.want {
			t.Errorf("%q: database %s, want %s", tc.args, env.DB.Path, tc.want)
		}
	}
}
