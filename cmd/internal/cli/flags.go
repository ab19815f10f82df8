package cli

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/redact"
)

// Common holds the flags every command that talks to the service or the
// database takes. Register them all with Bind, or only those a command uses
// with BindExcept, BindOnly, BindDB and BindLog; environment variables give
// the defaults.
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

	// fs is the flag set the flags were bound to: once it is parsed, it
	// tells which of them the command line set (--db given or defaulted).
	fs    *flag.FlagSet
	scrub *redact.Scrubber
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
	c.bindSome(fs, func(name string) bool { return !slices.Contains(names, name) })
}

// BindOnly registers only the named flags of Bind, for a command that works
// on the database and the logs without calling the service (history, the
// scheduler). The other settings take their environment defaults.
func (c *Common) BindOnly(fs *flag.FlagSet, names ...string) {
	c.bindSome(fs, func(name string) bool { return slices.Contains(names, name) })
}

// bindSome registers the flags of Bind that keep selects, in Bind's order.
func (c *Common) bindSome(fs *flag.FlagSet, keep func(name string) bool) {
	all := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	c.Bind(all)
	all.VisitAll(func(f *flag.Flag) {
		if keep(f.Name) {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	c.fs = fs
}

// BindDB registers --db and --db-pool only (env SVC_DB, default
// svcrecon.db), for a command that works on the database and never calls
// the service.
func (c *Common) BindDB(fs *flag.FlagSet) {
	db := os.Getenv("SVC_DB")
	if db == "" {
		db = "svcrecon.db"
	}
	c.DB = db
	fs.Var(dsnValue{&c.DB}, "db", "SQLite database `file`, or a postgres:// URL (env SVC_DB; put a password in PGPASSWORD or ~/.pgpass, not in the URL)")
	fs.IntVar(&c.DBPool, "db-pool", 8, "most database connections this process holds (a check needs 4)")
	c.fs = fs
}

// BindLog registers --log-format and --log-level only.
func (c *Common) BindLog(fs *flag.FlagSet) {
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
}

// dsnValue is the flag.Value of --db: its text (what -h shows as the
// default, from SVC_DB) is the address without its password.
type dsnValue struct{ p *string }

func (v dsnValue) String() string {
	if v.p == nil {
		return ""
	}
	return redact.DSN(*v.p)
}

func (v dsnValue) Set(s string) error { *v.p = s; return nil }

// DBGiven reports whether the command line set --db (rather than SVC_DB or
// the default): --sandbox then keeps it instead of a database of its own.
func (c *Common) DBGiven() bool {
	given := false
	if c.fs != nil {
		c.fs.Visit(func(f *flag.Flag) { given = given || f.Name == "db" })
	}
	return given
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
