// Package cli is the plumbing every svcrecon command shares: the common
// flags and environment variables, logging, opening the database and the
// API client, and --sandbox.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/redact"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Exit codes shared by the commands.
const (
	ExitOK       = 0
	ExitFailure  = 1 // the job failed (a step, a window, a line)
	ExitUsage    = 2 // bad flags or bad input; nothing was done
	ExitFindings = 3 // --fail-on-breaks and there were breaks
)

// UsageError is a mistake in the command line: exit 2 with one line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error { return &UsageError{fmt.Sprintf(format, args...)} }

// ExitError carries an exit code other than 1 for an error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Common holds the flags every command that talks to the service or the
// database takes. Register them all with Bind, or only those a command uses
// with BindDB and BindLog; environment variables give the defaults.
type Common struct {
	BaseURL, ClientID, ClientSecret, OutletID, EndpointIP, Account string
	DB                                                             string
	Sandbox                                                        bool
	SandboxSeed                                                    int64
	SandboxDays                                                    int
	CallLog                                                        string // append every call made to this JSONL file
	LogFormat, LogLevel                                            string
	Rate                                                           float64
	Timeout                                                        time.Duration
	MaxBody                                                        int64 // bytes
	DBPool                                                         int   // connection pool size

	explicit map[string]bool
	scrub    *redact.Scrubber
}

// Scrubber is the command's one redaction (redact.Scrubber): it knows the
// client secret, the database password (of --db and PGPASSWORD) and, once
// Open started it, the sandbox's secret. The logger, the API client and
// the call log all remove them through it.
func (c *Common) Scrubber() *redact.Scrubber {
	if c.scrub == nil {
		c.scrub = redact.NewScrubber()
	}
	c.scrub.Learn(c.ClientSecret, redact.DSNPassword(c.DB), os.Getenv("PGPASSWORD"))
	return c.scrub
}

// EnvClientSecret is the variable of the client secret: environment only,
// so that it never shows in ps.
const EnvClientSecret = "SVC_CLIENT_SECRET"

// Bind registers the common flags on fs, with defaults from the environment.
func (c *Common) Bind(fs *flag.FlagSet) {
	fs.StringVar(&c.BaseURL, "base-url", os.Getenv("SVC_BASE_URL"), "service base URL (env SVC_BASE_URL)")
	fs.StringVar(&c.ClientID, "client-id", os.Getenv("SVC_CLIENT_ID"), "client id (env SVC_CLIENT_ID)")
	c.ClientSecret = os.Getenv(EnvClientSecret)
	fs.StringVar(&c.OutletID, "outlet-id", os.Getenv("SVC_OUTLET_ID"), "outlet id for H5 operations (env SVC_OUTLET_ID)")
	fs.StringVar(&c.EndpointIP, "endpoint-ip", os.Getenv("SVC_ENDPOINT_IP"), "end-customer IP (env SVC_ENDPOINT_IP)")
	fs.StringVar(&c.Account, "account", os.Getenv("SVC_ACCOUNT"), "linked account number for statements (env SVC_ACCOUNT)")
	c.BindDB(fs)
	fs.BoolVar(&c.Sandbox, "sandbox", false, "run against the built-in sandbox (no account needed)")
	fs.Int64Var(&c.SandboxSeed, "sandbox-seed", 1, "seed of the sandbox world (with --sandbox)")
	fs.IntVar(&c.SandboxDays, "sandbox-days", 30, "days of sandbox history (with --sandbox)")
	fs.StringVar(&c.CallLog, "call-log", "", "also append every call made to this JSONL file")
	c.BindLog(fs)
	fs.Float64Var(&c.Rate, "rate", 0, "at most this many calls per second (0: no limit)")
	fs.DurationVar(&c.Timeout, "timeout", 60*time.Second, "time-out of one HTTP call")
	fs.Func("max-body", "largest answer read, e.g. 32MiB (past it a report call is retried, a billable one is pending)", func(s string) error {
		n, err := parseSize(s)
		c.MaxBody = n
		return err
	})
}

// BindExcept registers the flags of Bind but the named ones, for a command
// that calls the service without them (the statement needs no outlet id).
// The settings of the flags left out still take their environment defaults.
func (c *Common) BindExcept(fs *flag.FlagSet, names ...string) {
	all := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	c.Bind(all)
	all.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(names, f.Name) {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
}

// BindDB registers --db only (env SVC_DB, default svcrecon.db), for a
// command that works on the database and never calls the service.
func (c *Common) BindDB(fs *flag.FlagSet) {
	db := os.Getenv("SVC_DB")
	if db == "" {
		db = "svcrecon.db"
	}
	fs.StringVar(&c.DB, "db", db, "SQLite database file, or a postgres:// URL (env SVC_DB; put a password in PGPASSWORD or ~/.pgpass, not in the URL)")
	fs.IntVar(&c.DBPool, "db-pool", 8, "most database connections this process holds (PostgreSQL)")
}

// BindLog registers --log-format and --log-level only.
func (c *Common) BindLog(fs *flag.FlagSet) {
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
}

// parseSize reads a positive byte count: 1048576, 512KiB, 32MiB, 1GiB.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	num := s
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			mult, num = u.mult, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("%q: want a positive size such as 32MiB", s)
	}
	return n * mult, nil
}

// checkNetwork refuses network settings that cannot work.
func (c *Common) checkNetwork() error {
	switch {
	case c.Rate < 0:
		return Usagef("--rate %v: want 0 (no limit) or a positive number of calls per second", c.Rate)
	case c.Timeout <= 0:
		return Usagef("--timeout %v: want a positive duration such as 60s", c.Timeout)
	}
	return nil
}

type logAttrsKey struct{}

// WithLogAttrs returns a context whose commands log these attributes on every
// line (the scheduler adds the job name and run id).
func WithLogAttrs(ctx context.Context, args ...any) context.Context {
	prev, _ := ctx.Value(logAttrsKey{}).([]any)
	return context.WithValue(ctx, logAttrsKey{}, append(append([]any{}, prev...), args...))
}

// Logger builds the slog logger the flags ask for, writing to w, with the
// attributes of WithLogAttrs.
func (c *Common) Logger(ctx context.Context, w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, Usagef("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler
	switch c.LogFormat {
	case "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, Usagef("--log-format %q: want text or json", c.LogFormat)
	}
	log := slog.New(c.Scrubber().Handler(h))
	if attrs, _ := ctx.Value(logAttrsKey{}).([]any); len(attrs) > 0 {
		log = log.With(attrs...)
	}
	return log, nil
}

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
	// was not given explicitly ("" keeps --db).
	DefaultSandboxDB string
}

// Open resolves the common flags: starts the sandbox when asked, opens the
// database and builds the client. Errors name the variable or flag at fault.
func (c *Common) Open(ctx context.Context, log *slog.Logger, o Options) (*Env, error) {
	env := &Env{Log: log, Account: c.Account}
	ok := false
	defer func() {
		if !ok {
			env.Close()
		}
	}()
	if o.NeedClient || c.Sandbox {
		if err := c.checkNetwork(); err != nil {
			return nil, err
		}
	}
	cfg := svcapi.Config{BaseURL: c.BaseURL, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
		OutletID: c.OutletID, EndpointIP: c.EndpointIP, Timeout: c.Timeout, Rate: c.Rate, MaxBody: c.MaxBody, Logger: log,
		Scrubber: c.Scrubber()}
	if c.Sandbox {
		so := sandbox.Options{Seed: c.SandboxSeed, Days: c.SandboxDays}
		if o.SandboxOptions != nil {
			o.SandboxOptions(&so)
		}
		srv, err := sandbox.Start(so)
		if err != nil {
			return nil, fmt.Errorf("start sandbox: %w", err)
		}
		env.Sandbox = srv
		env.closers = append(env.closers, srv.Close)
		sc := srv.Config()
		cfg.BaseURL, cfg.ClientID, cfg.ClientSecret, cfg.OutletID, cfg.EndpointIP =
			sc.BaseURL, sc.ClientID, sc.ClientSecret, sc.OutletID, sc.EndpointIP
		env.Account = srv.Credentials().Account
		cfg.Scrubber.Learn(sc.ClientSecret)
		log.Info("sandbox started", "url", sc.BaseURL, "account", env.Account)
	}
	if o.NeedClient {
		// Before the database file is created: a command that cannot run
		// leaves nothing behind.
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
	}
	if o.NeedAccount && env.Account == "" {
		return nil, &svcapi.ConfigError{Setting: "SVC_ACCOUNT", Reason: "not set (the linked account number; or --account)"}
	}
	dbPath := c.DB
	if c.Sandbox && o.DefaultSandboxDB != "" && !c.dbExplicit() {
		dbPath = o.DefaultSandboxDB
	}
	db, err := c.OpenDB(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	env.DB = db
	env.closers = append(env.closers, db.Close)
	// Every call svcrecon makes lands in the calls table, so that the
	// night's reconciliation sees it.
	cfg.Recorders = append(cfg.Recorders, ledger.NewRecorder(db, log))
	cfg.Recorders = append(cfg.Recorders, o.Recorders...)
	if c.CallLog != "" {
		f, err := os.OpenFile(c.CallLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--call-log: %w", err)
		}
		env.closers = append(env.closers, f.Close)
		cfg.Recorders = append(cfg.Recorders, svcapi.NewJSONLRecorder(f))
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

// OpenDB opens the database at dsn (a SQLite path or a postgres:// URL)
// with the pool size of --db-pool.
func (c *Common) OpenDB(ctx context.Context, dsn string) (*store.DB, error) {
	if c.DBPool < 0 {
		return nil, Usagef("--db-pool %d: want a positive number of connections", c.DBPool)
	}
	return store.OpenWith(ctx, dsn, store.Options{MaxConns: c.DBPool})
}

// explicitDB is set by MarkExplicit when --db was on the command line.
func (c *Common) dbExplicit() bool { return c.explicit["db"] }

// MarkExplicit records which flags were set on the command line (call after
// fs.Parse).
func (c *Common) MarkExplicit(fs *flag.FlagSet) {
	c.explicit = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.explicit[f.Name] = true })
}

// ParseDate parses a YYYY-MM-DD flag value as an IST date.
func ParseDate(flagName, v string) (time.Time, error) {
	t, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(v), recon.IST)
	if err != nil {
		return time.Time{}, Usagef("--%s %q: want a date YYYY-MM-DD", flagName, v)
	}
	return t, nil
}

// ParsePeriod parses --from and --to (both required) and checks their order.
func ParsePeriod(from, to string) (time.Time, time.Time, error) {
	if from == "" || to == "" {
		return time.Time{}, time.Time{}, Usagef("give the period as --from YYYY-MM-DD --to YYYY-MM-DD")
	}
	f, err := ParseDate("from", from)
	if err != nil {
		return f, f, err
	}
	t, err := ParseDate("to", to)
	if err != nil {
		return f, t, err
	}
	if t.Before(f) {
		return f, t, Usagef("--to %s is before --from %s", to, from)
	}
	return f, t, nil
}

// MaxPeriodDays is the longest period a command walks without
// --allow-long-period: a little over a year.
const MaxPeriodDays = 400

// CheckPeriod refuses a period the service would be asked about in vain or
// at great length, before anything is sent: one that ends after today (IST,
// by now) and, unless allowLong, one longer than MaxPeriodDays.
func CheckPeriod(from, to, now time.Time, allowLong bool) error {
	today := now.In(recon.IST).Format(time.DateOnly)
	if end := to.Format(time.DateOnly); end > today {
		return Usagef("--to %s is after today (%s, IST): the service has nothing there yet", end, today)
	}
	days := int(to.Sub(from).Hours()/24) + 1
	if days > MaxPeriodDays && !allowLong {
		return Usagef("the period %s to %s is %d days, longer than %d: add --allow-long-period if you mean it (one request or more per day and kind)",
			from.Format(time.DateOnly), to.Format(time.DateOnly), days, MaxPeriodDays)
	}
	return nil
}

// Yesterday returns yesterday's IST date relative to now.
func Yesterday(now time.Time) time.Time {
	y, m, d := now.In(recon.IST).AddDate(0, 0, -1).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, recon.IST)
}

// Exit maps an error to an exit code and prints it as one line on stderr.
func Exit(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	// The error's sources removed the secrets they knew; masks and escapes
	// make it one line that is safe to show.
	fmt.Fprintln(stderr, "error:", redact.Text(err.Error()))
	var ue *UsageError
	var ce *svcapi.ConfigError
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &ue), errors.As(err, &ce):
		return ExitUsage
	}
	return ExitFailure
}

// NewFlagSet returns a flag set that reports errors instead of exiting, with
// a usage text that shows the synopsis and examples.
func NewFlagSet(name, synopsis, examples string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
		if examples != "" {
			fmt.Fprintf(stderr, "\nExamples:\n%s\n", strings.TrimRight(examples, "\n"))
		}
	}
	return fs
}

// Parse parses args. -h prints the usage and returns flag.ErrHelp (exit 0);
// a mistake returns a one-line *UsageError that says where to look.
func Parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls Usage itself on -h and on errors
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	if err != nil {
		return Usagef("%s: %v%s (see %s -h)", fs.Name(), err, flagHint(fs, err), fs.Name())
	}
	if v := fs.Lookup("version"); v != nil && v.Value.String() == "true" {
		fmt.Fprintln(out, Version())
		return flag.ErrHelp
	}
	if _, ok := out.(argsOnly); ok {
		return errArgsChecked // CheckArgs: parsed, run nothing
	}
	return nil
}

// flagHint suggests a defined flag for the flag package's "flag provided
// but not defined: -fomr".
func flagHint(fs *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return didYouMean(strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-"), names, "--")
}

// Command is one subcommand of a program with subcommands.
type Command struct {
	Name, Summary string
	Run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// Dispatch runs the subcommand named by args[0]. No arguments, -h or help
// print the usage (the subcommands, sorted, then footer: exit status and
// examples); no arguments is a usage error, an unknown name too.
func Dispatch(ctx context.Context, prog string, cmds []Command, footer string, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stderr, "Usage: %s SUBCOMMAND [flags]   (%s SUBCOMMAND -h for its flags and examples)\n\nSubcommands:\n", prog, prog)
		sorted := append([]Command(nil), cmds...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
		width := 0
		for _, c := range sorted {
			width = max(width, len(c.Name))
		}
		for _, c := range sorted {
			fmt.Fprintf(stderr, "  %-*s  %s\n", width, c.Name, c.Summary)
		}
		fmt.Fprintf(stderr, "\n%s\n", strings.TrimSpace(footer))
		if len(args) == 0 {
			return Usagef("name a subcommand (see %s -h)", prog)
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, Version())
		return nil
	}
	names := make([]string, len(cmds))
	for i, c := range cmds {
		if c.Name == args[0] {
			return c.Run(ctx, args[1:], stdout, stderr)
		}
		names[i] = c.Name
	}
	return Usagef("unknown subcommand %q%s (see %s -h)", args[0], didYouMean(args[0], names, prog+" "), prog)
}
