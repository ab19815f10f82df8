package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"

	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Env is what a command works with once the common flags are resolved.
// Close releases everything.
type Env struct {
	Log     *slog.Logger
	DB      *store.DB
	Client  *svcapi.Client  // nil unless NeedClient
	Account string          // linked account (SVC_ACCOUNT or the sandbox's)
	Sandbox *sandbox.Server // non-nil with --sandbox
	Config  svcapi.Config   // the client's config (secret included: never print it)
	closers []func() error
}

// Close closes the database, the call log and the sandbox.
func (e *Env) Close() error {
	var errs []error
	for i := len(e.closers) - 1; i >= 0; i-- {
		errs = append(errs, e.closers[i]())
	}
	return errors.Join(errs...)
}

// Options say what Open must set up.
type Options struct {
	NeedClient  bool
	NeedAccount bool
	// SandboxOptions adjusts the sandbox options before it starts.
	SandboxOptions func(*sandbox.Options)
	// Recorders receive every call, besides the calls table and --call-log.
	Recorders []svcapi.Recorder
	// DefaultSandboxDB is the database path used with --sandbox when --db
	// was not given on the command line ("" keeps --db).
	DefaultSandboxDB string
	// ExistingDB, when set, names the command that needs the database to
	// exist already (it reads or continues what is there): a SQLite file
	// that does not exist is refused (CheckDBExists), after the settings,
	// and not created.
	ExistingDB string
}

// Open resolves the common flags: starts the sandbox when asked, opens the
// database and builds the client. Errors name the variable or flag at fault;
// a setting that cannot work is refused before the database is created.
func (c *Common) Open(ctx context.Context, log *slog.Logger, o Options) (*Env, error) {
	env := &Env{Log: log, Account: c.Account}
	ok := false
	defer func() {
		if !ok {
			env.Close()
		}
	}()
	// Settings first, all of them whether this run uses them or not: a
	// command that cannot run leaves nothing behind.
	if err := c.checkNetwork(); err != nil {
		return nil, err
	}
	cfg := svcapi.Config{BaseURL: c.BaseURL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
		OutletID: c.OutletID, EndpointIP: c.EndpointIP, Timeout: c.Timeout, Rate: c.Rate, MaxBody: c.MaxBody, Logger: log,
		Scrubber: c.Scrubber()}
	// The service's settings before the database file is created: a
	// command that cannot run leaves nothing behind. With --sandbox the
	// sandbox supplies them, checked once it has started.
	validate := func() error {
		if o.NeedClient {
			return cfg.Validate()
		}
		return nil
	}
	if !c.Sandbox {
		if err := validate(); err != nil {
			return nil, err
		}
	}
	dbPath := c.DB
	if c.Sandbox && o.DefaultSandboxDB != "" && !c.DBGiven() {
		dbPath = o.DefaultSandboxDB
	}
	if o.ExistingDB != "" && store.Missing(dbPath) {
		return nil, Usagef("%s: no database %s (give --db or SVC_DB)", o.ExistingDB, dbPath)
	}
	if c.Sandbox {
		if err := c.startSandbox(env, &cfg, o); err != nil {
			return nil, err
		}
		if err := validate(); err != nil {
			return nil, err
		}
	}
	if o.NeedAccount {
		if err := checkAccount(env.Account); err != nil {
			return nil, err
		}
	}
	db, err := c.OpenDB(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	env.DB = db
	env.closers = append(env.closers, db.Close)
	if err := c.record(env, &cfg, o.Recorders); err != nil {
		return nil, err
	}
	env.Config = cfg
	if o.NeedClient {
		cl, err := svcapi.New(cfg)
		if err != nil {
			return nil, err
		}
		env.Client = cl
	}
	ok = true
	return env, nil
}

// startSandbox starts the sandbox of --sandbox and points cfg and env at it.
func (c *Common) startSandbox(env *Env, cfg *svcapi.Config, o Options) error {
	so := sandbox.Options{Seed: c.SandboxSeed, Days: c.SandboxDays}
	if o.SandboxOptions != nil {
		o.SandboxOptions(&so)
	}
	srv, err := sandbox.Start(so)
	if err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	env.Sandbox = srv
	env.closers = append(env.closers, srv.Close)
	sc := srv.Config()
	cfg.BaseURL, cfg.ClientID, cfg.ClientSecret, cfg.OutletID, cfg.EndpointIP =
		sc.BaseURL, sc.ClientID, sc.ClientSecret, sc.OutletID, sc.EndpointIP
	env.Account = srv.Credentials().Account
	cfg.Scrubber.Learn(sc.ClientSecret)
	env.Log.Info("sandbox started", "url", sc.BaseURL, "account", env.Account)
	return nil
}

// record makes every call the client makes land in the calls table (so that
// the night's reconciliation sees it), in the command's own recorders and
// in --call-log.
func (c *Common) record(env *Env, cfg *svcapi.Config, own []svcapi.Recorder) error {
	cfg.Recorders = append(cfg.Recorders, calllog.NewRecorder(env.DB, env.Log))
	cfg.Recorders = append(cfg.Recorders, own...)
	if c.CallLog == "" {
		return nil
	}
	f, err := os.OpenFile(c.CallLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("--call-log: %w", err)
	}
	env.closers = append(env.closers, f.Close)
	cfg.Recorders = append(cfg.Recorders, svcapi.NewJSONLRecorder(f))
	return nil
}

// NeedCheckPool refuses (a usage error) a --db-pool too small for a check
// (store.CheckConns), for a command that runs one: before its other work.
func (c *Common) NeedCheckPool() error {
	if c.DBPool > 0 && c.DBPool < store.CheckConns {
		return Usagef("--db-pool %d: a check holds %d connections at once; give at least %d", c.DBPool, store.CheckConns, store.CheckConns)
	}
	return nil
}

// OpenDB opens the database at dsn (a SQLite path or a postgres:// URL)
// with the pool size of --db-pool.
func (c *Common) OpenDB(ctx context.Context, dsn string) (*store.DB, error) {
	if c.DBPool < 0 {
		return nil, Usagef("--db-pool %d: want a positive number of connections", c.DBPool)
	}
	return store.OpenWith(ctx, dsn, store.Options{MaxConns: c.DBPool})
}

// CheckDBExists refuses, as a usage error of command, a --db that names a
// SQLite file that does not exist: opening it would create an empty
// database, and the command would blame the period. A postgres:// URL is
// not checked.
func (c *Common) CheckDBExists(command string) error {
	if store.Missing(c.DB) {
		return Usagef("%s: no database %s (give --db or SVC_DB)", command, c.DB)
	}
	return nil
}

// checkAccount refuses a missing linked account, or one holding a
// character that does not print (an escape, a line break).
func checkAccount(account string) error {
	if account == "" {
		return &svcapi.ConfigError{Setting: "SVC_ACCOUNT", Reason: "not set (the linked account number; or --account)"}
	}
	return svcapi.CheckText("SVC_ACCOUNT", account)
}

// checkNetwork refuses network settings that cannot work, when the
// command takes them. (The values the client sends are
// svcapi.Config.Validate's.)
func (c *Common) checkNetwork() error {
	if c.fs == nil || c.fs.Lookup("rate") == nil {
		return nil // a command that never calls the service
	}
	switch {
	case math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) || c.Rate < 0:
		return Usagef("--rate %v: want 0 (no limit) or a positive number of calls per second", c.Rate)
	case c.Timeout <= 0:
		return Usagef("--timeout %v: want a positive duration such as 60s", c.Timeout)
	}
	return nil
}
