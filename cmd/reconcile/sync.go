package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func runSync(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := syncJob(ctx, args, stdout, stderr)
	return err
}

// syncJob is reconcile sync; its summary is the line it prints: the period,
// the kinds and the sync's counts.
func syncJob(ctx context.Context, args []string, stdout, stderr io.Writer) (string, error) {
	fs := cli.NewFlagSet("sync", "reconcile sync --from YYYY-MM-DD --to YYYY-MM-DD [--what statement,orders] [--recheck-days N] [--refresh] [flags]\n\n"+
		"Walks every page of the statement and the collect-order statement, one IST day at a time,\n"+
		"into the database; a run that was killed resumes at the page it stopped. Days already synced\n"+
		"(held) are checked, not trusted: the last --recheck-days of the period are walked again in\n"+
		"full, and each older held day is probed with one one-record page and walked again when the\n"+
		"service's count changed (records posted late). --refresh walks every day again. Exit 1 when\n"+
		"a day failed or its record count still differs from the service's; the other days are stored\n"+
		"all the same. A period ending after today (IST) is refused, and one longer than 400 days\n"+
		"needs --allow-long-period. With --sandbox and no --db the database is sandbox.db, so that\n"+
		"sandbox records never mix with real ones.",
		`  reconcile sync --sandbox
  reconcile sync --from 2026-11-01 --to 2026-11-21
  reconcile sync --from 2026-11-21 --to 2026-11-21 --what orders --refresh
  reconcile sync --from 2026-10-01 --to 2026-10-31 --recheck-days 0        # probe every held day, walk only the changed ones
  SVC_ACCOUNT=0409000123456 reconcile sync --from 2026-11-01 --to 2026-11-30 --concurrency 8 --db recon.db`, stderr)
	var c cli.Common
	c.BindExcept(fs, "outlet-id") // the statement and collect orders need no outlet id
	from := fs.String("from", "", "first IST day, YYYY-MM-DD (with --sandbox: default the sandbox's history)")
	to := fs.String("to", "", "last IST day, YYYY-MM-DD, inclusive")
	what := fs.String("what", "statement,orders", "what to sync: statement, orders or both, comma-separated")
	refresh := fs.Bool("refresh", false, "walk every day again, held or not")
	recheckDays := fs.Int("recheck-days", statement.DefaultRecheckDays, "walk again in full the last N days of the period already synced (older ones are probed)")
	allowLong := fs.Bool("allow-long-period", false, "allow a period longer than 400 days")
	concurrency := fs.Int("concurrency", 4, "days fetched at once")
	pageSize := fs.Int("page-size", 500, "records per page requested")
	maxWalks := fs.Int("max-walks", 3, "walks of a day while its count differs from the service's")
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	c.MarkExplicit(fs)
	if fs.NArg() > 0 {
		return "", cli.Usagef("sync: unexpected argument %q (see reconcile sync -h)", fs.Arg(0))
	}
	kinds, err := parseKinds(*what)
	if err != nil {
		return "", err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"concurrency", *concurrency}, {"page-size", *pageSize}, {"max-walks", *maxWalks}} {
		if f.v < 1 {
			return "", cli.Usagef("sync: --%s %d: want 1 or more", f.name, f.v)
		}
	}
	recheck, err := recheckOption(*recheckDays)
	if err != nil {
		return "", err
	}
	var pFrom, pTo time.Time
	if *from != "" || *to != "" || !c.Sandbox {
		if pFrom, pTo, err = cli.ParsePeriod(*from, *to); err != nil {
			return "", err
		}
		if err := cli.CheckPeriod(pFrom, pTo, clock(), *allowLong); err != nil {
			return "", err
		}
	}
	log, err := c.Logger(ctx, stderr)
	if err != nil {
		return "", err
	}
	calls := &statement.CallCounter{}
	env, err := c.Open(ctx, log, cli.Options{NeedClient: true, NeedAccount: true,
		Recorders: []svcapi.Recorder{calls}, DefaultSandboxDB: sandboxDBName})
	if err != nil {
		return "", err
	}
	defer env.Close()
	if pFrom.IsZero() {
		pFrom, pTo = env.Sandbox.Period()
	}
	sum, err := statement.Sync(ctx, statement.Options{
		DB: env.DB, Client: env.Client, Account: env.Account, From: pFrom, To: pTo, Kinds: kinds,
		Concurrency: *concurrency, PageSize: *pageSize, Refresh: *refresh, MaxWalks: *maxWalks, RecheckDays: recheck,
		Calls: calls, Log: log, Progress: stderr, Now: clock,
	})
	for _, p := range sum.Problems {
		fmt.Fprintln(stderr, "window:", p)
	}
	line := fmt.Sprintf("sync %s..%s %s: %s", pFrom.Format(time.DateOnly), pTo.Format(time.DateOnly),
		statement.KindsText(kinds), sum.Line())
	fmt.Fprintln(stdout, line)
	return line, err
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
		k, err := recon.ParseKind(name)
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
