package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

var syncHelp = cli.Help{
	Synopsis: "reconcile sync --from YYYY-MM-DD --to YYYY-MM-DD [--what statement,orders] [--recheck-days N] [--refresh] [flags]",
	Description: "Walks every page of the statement and the collect-order statement, one IST day at a time,\n" +
		"into the database; a run that was killed resumes at the page it stopped. Days already synced\n" +
		"(held) are checked, not trusted: the last --recheck-days of the period are walked again in\n" +
		"full, and each older held day is probed with one one-record page and walked again when the\n" +
		"service's count changed (records posted late). --refresh walks every day again. Exit 1 when\n" +
		"a day failed or its record count still differs from the service's; the other days are stored\n" +
		"all the same. A period ending after today (IST) is refused, and one longer than 400 days\n" +
		"needs --allow-long-period. With --sandbox and no --db the database is sandbox.db, so that\n" +
		"sandbox records never mix with real ones.",
	Examples: `  reconcile sync --sandbox
  reconcile sync --from {month-start} --to {yesterday}
  reconcile sync --from {yesterday} --to {yesterday} --what orders --refresh
  reconcile sync --from {prev-month-start} --to {prev-month-end} --recheck-days 0   # probe every held day, walk only the changed ones
  SVC_ACCOUNT=0409000123456 reconcile sync --from {prev-month-start} --to {prev-month-end} --concurrency 8 --db recon.db`,
}

// syncCmd is reconcile sync; its summary is the line it prints: the period,
// the kinds and the sync's counts.
type syncCmd struct {
	c                               cli.Common
	from, to, what                  string
	refresh, allowLong              bool
	recheckDays                     int
	concurrency, pageSize, maxWalks int
}

func (s *syncCmd) Flags(fs *flag.FlagSet) {
	s.c.BindExcept(fs, "outlet-id") // the statement and collect orders need no outlet id
	fs.StringVar(&s.from, "from", "", "first IST day, YYYY-MM-DD (with --sandbox: default the sandbox's history)")
	fs.StringVar(&s.to, "to", "", "last IST day, YYYY-MM-DD, inclusive")
	fs.StringVar(&s.what, "what", "statement,orders", "what to sync: statement, orders or both, comma-separated (any case)")
	fs.BoolVar(&s.refresh, "refresh", false, "walk every day again, held or not")
	fs.IntVar(&s.recheckDays, "recheck-days", statement.DefaultRecheckDays, "walk again in full the last N days of the period already synced (older ones are probed)")
	fs.BoolVar(&s.allowLong, "allow-long-period", false, "allow a period longer than 400 days")
	fs.IntVar(&s.concurrency, "concurrency", 4, "days fetched at once")
	fs.IntVar(&s.pageSize, "page-size", 500, "records per page requested")
	fs.IntVar(&s.maxWalks, "max-walks", 3, "walks of a day while its count differs from the service's")
}

func (s *syncCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	o, err := s.options(call)
	if err != nil {
		return "", err
	}
	log, err := s.c.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	calls := &statement.CallCounter{}
	env, err := s.c.Open(ctx, log, cli.Options{NeedClient: true, NeedAccount: true,
		Recorders: []svcapi.Recorder{calls}, DefaultSandboxDB: sandboxDBName})
	if err != nil {
		return "", err
	}
	defer env.Close()
	if o.From.IsZero() {
		o.From, o.To = env.Sandbox.Period()
	}
	o.DB, o.Client, o.Account, o.Calls, o.Log, o.Progress, o.Now = env.DB, env.Client, env.Account, calls, log, s.c.Progress(ctx, call.Stderr), clock
	keeper := evidence.KeepDays(ctx, env.DB, log) // the check finds the days' digests kept
	o.DayEnded = keeper.Ended
	sum, err := statement.Sync(ctx, o)
	keeper.Close()
	lines := s.c.Lines(ctx, call.Stderr, log, slog.LevelWarn)
	for _, p := range sum.Problems {
		fmt.Fprintln(lines, "window:", p)
	}
	line := fmt.Sprintf("sync %s..%s %s: %s%s", o.From.Format(time.DateOnly), o.To.Format(time.DateOnly),
		statement.KindsText(o.Kinds), unfinished(err), sum.Line())
	fmt.Fprintln(call.Stdout, line)
	return line, err
}

// unfinished is how the line of a sync that its database's failure
// stopped starts, so that it does not read as a sync done: "" otherwise
// (the line of a sync whose windows failed says so itself).
func unfinished(err error) string {
	var dbe *store.DBError
	if errors.As(err, &dbe) {
		return "NOT FINISHED, database " + dbe.DB + " failed: "
	}
	return ""
}

// options checks the flags' values: the sync's options but what Open gives
// (no period with --sandbox and no --from/--to: the sandbox's history).
func (s *syncCmd) options(call *cli.Call) (statement.Options, error) {
	var o statement.Options
	if len(call.Args) > 0 {
		return o, cli.Usagef("sync: unexpected argument %q (see reconcile sync -h)", call.Args[0])
	}
	kinds, err := parseKinds(s.what)
	if err != nil {
		return o, err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"concurrency", s.concurrency}, {"page-size", s.pageSize}, {"max-walks", s.maxWalks}} {
		if f.v < 1 {
			return o, cli.Usagef("sync: --%s %d: want 1 or more", f.name, f.v)
		}
	}
	recheck, err := recheckOption(s.recheckDays)
	if err != nil {
		return o, err
	}
	o = statement.Options{Kinds: kinds, Concurrency: s.concurrency, PageSize: s.pageSize, Refresh: s.refresh,
		MaxWalks: s.maxWalks, RecheckDays: recheck}
	if s.from != "" || s.to != "" || !s.c.Sandbox {
		if o.From, o.To, err = cli.ParsePeriod(s.from, s.to); err != nil {
			return o, err
		}
		if err := cli.CheckPeriod(o.From, o.To, clock(), s.allowLong); err != nil {
			return o, err
		}
	}
	return o, nil
}

// recheckOption turns --recheck-days (0 or more) into
// statement.Options.RecheckDays (negative: none).
func recheckOption(days int) (int, error) {
	switch {
	case days < 0:
		return 0, cli.Usagef("--recheck-days %d: want 0 (probe every held day) or more", days)
	case days == 0:
		return -1, nil
	}
	return days, nil
}

// parseKinds reads --what.
func parseKinds(what string) ([]recon.Kind, error) {
	var kinds []recon.Kind
	seen := map[recon.Kind]bool{}
	for _, name := range strings.Split(what, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		k, err := recon.ParseKind(strings.ToLower(name)) // any case: Orders, STATEMENT
		if err != nil {
			hint := ""
			if s := cli.Suggest(name, []string{string(recon.Statement), string(recon.Orders)}); s != "" {
				hint = fmt.Sprintf("; did you mean %s?", s)
			}
			return nil, cli.Usagef("sync: --what %q: want statement, orders or statement,orders%s", what, hint)
		}
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil, cli.Usagef("sync: --what is empty: want statement, orders or statement,orders")
	}
	return kinds, nil
}
