package cli

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestBindExcept: the named flags are left out, the others parse into
// Common as Bind's do, and the settings left out keep their environment
// defaults.
func TestBindExcept(t *testing.T) {
	t.Setenv("SVC_OUTLET_ID", "OUT9")
	t.Setenv("SVC_BASE_URL", "https://env.example")
	var c Common
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindExcept(fs, "outlet-id", "rate")
	for _, name := range []string{"outlet-id", "rate"} {
		if fs.Lookup(name) != nil {
			t.Errorf("BindExcept left --%s in", name)
		}
	}
	if err := fs.Parse([]string{"--sandbox", "--account", "A1", "--timeout", "5s"}); err != nil {
		t.Fatal(err)
	}
	if !c.Sandbox || c.Account != "A1" || c.Timeout.String() != "5s" || c.BaseURL != "https://env.example" || c.OutletID != "OUT9" {
		t.Errorf("Common = %+v", c)
	}
	if f := fs.Lookup("timeout"); f == nil || f.DefValue != "1m0s" {
		t.Errorf("--timeout default = %v, want 1m0s", f)
	}
	if err := fs.Parse([]string{"--outlet-id", "X"}); err == nil {
		t.Errorf("--outlet-id parsed, want flag provided but not defined")
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

// TestBindOnlyAndDBGiven: BindOnly registers the named flags only; DBGiven
// tells --db on the command line from SVC_DB.
func TestBindOnlyAndDBGiven(t *testing.T) {
	t.Setenv("SVC_DB", "env.db")
	for _, tc := range []struct {
		args  []string
		db    string
		given bool
	}{{nil, "env.db", false}, {[]string{"--db", "flag.db"}, "flag.db", true}, {[]string{"-db=flag.db"}, "flag.db", true}} {
		var c Common
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		c.BindOnly(fs, "db", "log-level")
		if fs.Lookup("db-pool") != nil || fs.Lookup("sandbox") != nil || fs.Lookup("log-level") == nil {
			t.Fatalf("BindOnly(db, log-level) registered the wrong flags")
		}
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if c.DB != tc.db || c.DBGiven() != tc.given {
			t.Errorf("%q: DB %q, DBGiven %v; want %q, %v", tc.args, c.DB, c.DBGiven(), tc.db, tc.given)
		}
	}
}
