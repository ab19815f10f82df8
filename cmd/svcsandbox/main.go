// Command svcsandbox serves the sandbox (an in-process fake of the whole
// service with a generated history) on a loopback address, so that every
// command can be tried by hand without an account. It prints the settings to
// paste into a shell, optionally writes the history's call log, and serves
// until interrupted. "svcsandbox callback" instead writes encrypted QR eKYC
// callback values and prints their key, for bulkrun callback decode.
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

const synopsis = "svcsandbox [--addr 127.0.0.1:8089] [--seed N] [--days N] [--end YYYY-MM-DD] [--calls FILE] [fault flags]\n       svcsandbox callback --out FILE [--count N] [--seed N]   (QR eKYC callback values; see svcsandbox callback -h)"

const examples = `  # serve the default world, write its call log; paste the export line into another shell
  go run ./cmd/svcsandbox --calls calls.jsonl

  # or run it in the background and source the settings once it has printed them
  # (the first go run compiles for a while: wait for the file, not a fixed time)
  go run ./cmd/svcsandbox --calls calls.jsonl > sandbox.env &
  while [ ! -s sandbox.env ] && kill -0 $! 2>/dev/null; do sleep 1; done; . ./sandbox.env

  # a 1,000,000-record statement for benchmarks, on another port
  svcsandbox --addr 127.0.0.1:9000 --total-records 1000000

  # an unreliable service: 10% HTTP 5xx, 5% dropped connections, 5% TUP, records posted late
  svcsandbox --5xx 0.1 --drop 0.05 --tup 0.05 --drift --latency 50ms

  # a fixed history ending on a given day, without planted defects
  svcsandbox --seed 42 --days 60 --end {days-ago:2} --no-defects

  # encrypted QR eKYC callback values, and the key to decode them with bulkrun
  eval "$(go run ./cmd/svcsandbox callback --out values.txt)"
  go run ./cmd/bulkrun callback decode values.txt`

// command is svcsandbox: it serves the sandbox; "callback" writes callback
// values instead.
var command = cli.Command{Name: "svcsandbox", Help: cli.Help{Synopsis: synopsis, Examples: examples},
	New: func() cli.Runner { return new(serveCmd) }, Sub: []cli.Command{
		{Name: "callback", Help: cli.Help{Synopsis: "svcsandbox callback --out FILE [--count N] [--seed N]", Examples: callbackExamples},
			New: func() cli.Runner { return new(callbackCmd) }},
	}}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr, os.Args[1:]...)
	stop()
	os.Exit(code)
}

// ready, when set (tests), receives the server once it listens.
var ready func(*sandbox.Server)

// run is svcsandbox with args (without the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, err := command.Run(ctx, args, cli.Stdio{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr})
	return err
}

// serveCmd is svcsandbox serving: the world's options, the faults and where
// to listen.
type serveCmd struct {
	o                         sandbox.Options
	f                         sandbox.Faults
	addr, end, calls, opening string
	logs                      cli.Common // the log flags only
}

func (sc *serveCmd) Flags(fs *flag.FlagSet) {
	o, f := &sc.o, &sc.f
	fs.StringVar(&sc.addr, "addr", "127.0.0.1:8089", "loopback address to listen on (host:port; port 0 picks a free one)")
	fs.StringVar(&sc.end, "end", "", "last day of the history, YYYY-MM-DD (default yesterday, IST)")
	fs.StringVar(&sc.calls, "calls", "", "write the history's call log (JSONL) to this file")
	fs.StringVar(&sc.opening, "opening-balance", "", "pool balance before the history (default 1000000.00, more for big histories)")
	sc.logs.BindLog(fs) // the sandbox logs its start and its stop
	fs.Int64Var(&o.Seed, "seed", 1, "seed of the generated world; one seed, one world")
	fs.IntVar(&o.Days, "days", 30, "days of statement history")
	fs.IntVar(&o.CallsPerDay, "calls-per-day", 40, "billable calls a day in the history")
	fs.IntVar(&o.TotalRecords, "total-records", 0, "generate this many statement records over --days instead (benchmarks: 1000000)")
	fs.IntVar(&o.OrdersPerDay, "orders-per-day", 10, "collect orders a day")
	fs.IntVar(&o.Billers, "billers", 300, "billers in the biller list")
	fs.BoolVar(&o.NoDefects, "no-defects", false, "plant no defects in the call log and statement")
	fs.DurationVar(&f.Latency, "latency", 0, "added to every answer, e.g. 50ms")
	fs.Float64Var(&f.ServerError, "5xx", 0, "share of answers that are HTTP 500/502/503 (0..1)")
	fs.Float64Var(&f.Drop, "drop", 0, "share of connections closed after the request was read (0..1)")
	fs.Float64Var(&f.Pending, "tup", 0, "share of billable calls executed but answered TUP (0..1)")
	fs.BoolVar(&f.PageDrift, "drift", false, "late postings: about 1% of each day's records appear only after the day's first page was served, and stay (a second sync finds them)")
	fs.Int64Var(&f.Seed, "fault-seed", 0, "seed of the fault dice (default --seed)")
}

func (sc *serveCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if err := sc.check(call.Args); err != nil {
		return "", err
	}
	log, err := sc.logs.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	started := time.Now()
	srv, err := sandbox.Listen(sc.addr, sc.o)
	if errors.Is(err, sandbox.ErrNoRoom) {
		return "", cli.Usagef("--days %d with --calls-per-day %d leaves no room for the planted defects: give more --days or --calls-per-day, or --no-defects", sc.o.Days, sc.o.CallsPerDay)
	}
	if err != nil {
		return "", err
	}
	defer srv.Close()
	if sc.calls != "" {
		if err := writeCalls(srv.Sandbox, sc.calls); err != nil {
			return "", err
		}
	}
	printSettings(call.Stdout, srv)
	log.Info("sandbox serving", "url", srv.Config().BaseURL, "seed", sc.o.Seed, "took", time.Since(started).Round(time.Millisecond).String())
	if ready != nil {
		ready(srv)
	}
	<-ctx.Done()
	log.Info("sandbox stopping")
	return "", nil
}

// check checks the flags' values and completes the options with them.
func (sc *serveCmd) check(args []string) error {
	o, f := &sc.o, sc.f
	if len(args) > 0 {
		return cli.Usagef("unexpected argument %q (see svcsandbox -h)", args[0])
	}
	host, _, err := net.SplitHostPort(sc.addr)
	if err != nil {
		return cli.Usagef("--addr %q: want host:port, e.g. 127.0.0.1:8089", sc.addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return cli.Usagef("--addr %q: the sandbox serves on loopback only (127.0.0.1, ::1 or localhost)", sc.addr)
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"5xx", f.ServerError}, {"drop", f.Drop}, {"tup", f.Pending}} {
		if s.v < 0 || s.v > 1 {
			return cli.Usagef("--%s %v: want a share between 0 and 1", s.name, s.v)
		}
	}
	if sc.end != "" {
		if o.End, err = cli.ParseDate("end", sc.end); err != nil {
			return err
		}
	}
	if sc.opening != "" {
		d, err := svcapi.ParseAmount(sc.opening)
		if err != nil || d.Sign() <= 0 {
			return cli.Usagef("--opening-balance %q: want a positive amount", sc.opening)
		}
		o.OpeningBalance = d
	}
	if o.Days <= 0 || o.CallsPerDay <= 0 || o.TotalRecords < 0 || o.OrdersPerDay <= 0 || o.Billers <= 0 {
		return cli.Usagef("--days, --calls-per-day, --orders-per-day and --billers must be positive, --total-records not negative")
	}
	o.Faults = f
	return nil
}

// printSettings prints the settings to paste into a shell and what the
// world holds.
func printSettings(stdout io.Writer, srv *sandbox.Server) {
	cfg, cr := srv.Config(), srv.Credentials()
	from, to := srv.Period()
	ofrom, _ := srv.OrdersPeriod()
	cnt := srv.Counts()
	fmt.Fprintf(stdout, "export SVC_BASE_URL=%s SVC_CLIENT_ID=%s SVC_CLIENT_SECRET=%s SVC_OUTLET_ID=%s SVC_ENDPOINT_IP=%s SVC_ACCOUNT=%s\n",
		cfg.BaseURL, cr.ClientID, cr.ClientSecret, cr.OutletID, cr.EndpointIP, cr.Account)
	fmt.Fprintf(stdout, "# period %s to %s (collect orders from %s); %d statement records, %d collect orders, %d billers, %d call-log lines, %d planted defects\n",
		from.Format(time.DateOnly), to.Format(time.DateOnly), ofrom.Format(time.DateOnly), cnt.Statement, cnt.OrdersAll, cnt.Billers, cnt.Calls, len(srv.Planted()))
	fmt.Fprintf(stdout, "# e.g. reconcile run --from %s --to %s\n", from.Format(time.DateOnly), to.Format(time.DateOnly))
	if f, ok := stdout.(interface{ Sync() error }); ok {
		f.Sync() //nolint:errcheck // a pipe cannot sync
	}
}

func writeCalls(sb *sandbox.Sandbox, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--calls: %w", err)
	}
	if err := sb.WriteCallLog(f); err != nil {
		f.Close()
		return fmt.Errorf("--calls %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--calls %s: %w", path, err)
	}
	return nil
}

const callbackExamples = `  # write 5 values and set SVC_ENCRYPTION_KEY in this shell, then decode them
  eval "$(go run ./cmd/svcsandbox callback --out values.txt)"
  go run ./cmd/bulkrun callback decode values.txt

  # 1000 values of another made-up world
  svcsandbox callback --out many.txt --count 1000 --seed 42`

// callbackCmd writes encrypted QR eKYC callback values (spec Part 6), one
// per line as the service delivers them, and prints the sandbox's key as an
// export line. The key is made up: printing it is the point.
type callbackCmd struct {
	out   string
	count int
	seed  int64
	logs  cli.Common // the log flags only: the format of its errors
}

func (cc *callbackCmd) Flags(fs *flag.FlagSet) {
	cc.logs.BindLog(fs)
	fs.StringVar(&cc.out, "out", "", "write the values to this file, one per line (URL-encoded, as delivered)")
	fs.IntVar(&cc.count, "count", 5, "how many values")
	fs.Int64Var(&cc.seed, "seed", 1, "seed of the key and the made-up people")
}

func (cc *callbackCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if _, err := cc.logs.Logger(ctx, call.Stderr); err != nil { // the log flags are checked like everywhere
		return "", err
	}
	switch {
	case len(call.Args) > 0:
		return "", cli.Usagef("unexpected argument %q (see svcsandbox callback -h)", call.Args[0])
	case cc.out == "":
		return "", cli.Usagef("give the values file: svcsandbox callback --out values.txt (the key goes to stdout)")
	case cc.count <= 0:
		return "", cli.Usagef("--count %d: want a positive number of values", cc.count)
	}
	return "", writeCallbacks(call.Stdout, cc.out, cc.count, cc.seed)
}

// writeCallbacks writes count values of world seed to out and prints the key.
func writeCallbacks(stdout io.Writer, out string, count int, seed int64) error {
	vals, err := sandbox.CallbackValues(seed, count)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, v := range vals {
		b.WriteString(v.Value)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(stdout, "export SVC_ENCRYPTION_KEY=%s\n", hex.EncodeToString(sandbox.CallbackKey(seed)))
	fmt.Fprintf(stdout, "# %d QR eKYC callback values in %s, encrypted with the sandbox's made-up key (seed %d); decode: bulkrun callback decode %s\n",
		len(vals), out, seed, out)
	return nil
}
