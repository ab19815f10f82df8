package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

var exceptionsListHelp = cli.Help{
	Synopsis: "reconcile exceptions list [--status open|explained|written-off|resolved|all] [--kind KIND] [--min-age DAYS] [--format table|json] [--db FILE]",
	Description: "Lists the exceptions kept across runs: every break and exception a check found, by its\n" +
		"identity (kind and natural key; its id EX-…), with its status, the day it happened, when it was\n" +
		"first seen and its age in days (from the last day of the first run that found it to the last\n" +
		"day of the last one), assignee and amount. Open ones by default.",
	Examples: `  reconcile exceptions list
  reconcile exceptions list --status all --kind callOnly,statementOnly
  reconcile exceptions list --min-age 3 --format json`,
}

var exceptionsShowHelp = cli.Help{
	Synopsis: "reconcile exceptions show ID [--format table|json] [--db FILE]",
	Description: "Shows one exception and its history: every event, who and when, from which run (seen,\n" +
		"resolved, reopened by svcrecon; explained, written-off, assigned, note by people).",
	Examples: `  reconcile exceptions show EX-ecd749bdd5
  reconcile exceptions show EX-ecd749bdd5 --format json`,
}

// dbCmd is what the evidence commands share: --db and the log flags.
type dbCmd struct{ c cli.Common }

func (d *dbCmd) bind(fs *flag.FlagSet) {
	d.c.BindDB(fs)
	d.c.BindLog(fs)
}

// open opens the database (which must exist) for command name.
func (d *dbCmd) open(ctx context.Context, call *cli.Call, name string) (*cli.Env, error) {
	if err := d.c.CheckDBExists(name); err != nil {
		return nil, err
	}
	log, err := d.c.Logger(ctx, call.Stderr)
	if err != nil {
		return nil, err
	}
	return d.c.Open(ctx, log, cli.Options{})
}

// login is who --by defaults to: the login name, else $USER.
func login() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// refusedExit makes a refusal of the evidence rules exit status 2.
func refusedExit(err error) error {
	var r *evidence.RefusedError
	if errors.As(err, &r) {
		return &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	return err
}

// checkFormat checks --format.
func checkFormat(f string) error {
	if f != "table" && f != "json" {
		return cli.Usagef("--format %q: want table or json", f)
	}
	return nil
}

// exceptionsListCmd is reconcile exceptions list.
type exceptionsListCmd struct {
	db                   dbCmd
	status, kind, format string
	minAge               int
}

func (l *exceptionsListCmd) Flags(fs *flag.FlagSet) {
	l.db.bind(fs)
	fs.StringVar(&l.status, "status", evidence.StatusOpen, "only these statuses, comma-separated: open, explained, written-off, resolved; or all")
	fs.StringVar(&l.kind, "kind", "", "only these kinds, comma-separated: "+strings.Join(evidence.Kinds, ", "))
	fs.IntVar(&l.minAge, "min-age", 0, "only exceptions at least this many days old")
	fs.StringVar(&l.format, "format", "table", "table or json (an array of objects)")
}

// filter checks the flags and returns the test an exception must pass.
func (l *exceptionsListCmd) filter() (func(*evidence.Exception) bool, error) {
	statuses, kinds := splitList(l.status), splitList(l.kind)
	if l.status == "all" {
		statuses = evidence.Statuses
	}
	for _, s := range statuses {
		if !slices.Contains(evidence.Statuses, s) {
			return nil, cli.Usagef("exceptions list: --status %q: want %s or all", s, strings.Join(evidence.Statuses, ", "))
		}
	}
	for _, k := range kinds {
		if !evidence.IsKind(k) {
			return nil, cli.Usagef("exceptions list: --kind %q: want one of %s", k, strings.Join(evidence.Kinds, ", "))
		}
	}
	if l.minAge < 0 {
		return nil, cli.Usagef("exceptions list: --min-age %d: want 0 or more days", l.minAge)
	}
	return func(e *evidence.Exception) bool {
		return slices.Contains(statuses, e.Status) && (len(kinds) == 0 || slices.Contains(kinds, e.Kind)) &&
			ageOf(e) >= l.minAge
	}, checkFormat(l.format)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (l *exceptionsListCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) > 0 {
		return "", cli.Usagef("exceptions list: unexpected argument %q (see reconcile exceptions list -h)", call.Args[0])
	}
	keep, err := l.filter()
	if err != nil {
		return "", err
	}
	env, err := l.db.open(ctx, call, "exceptions list")
	if err != nil {
		return "", err
	}
	defer env.Close()
	var list []evidence.Exception
	for e, err := range env.DB.Exceptions(ctx) {
		if err != nil {
			return "", err
		}
		if keep(&e) {
			list = append(list, e)
		}
	}
	slices.SortStableFunc(list, func(a, b evidence.Exception) int { return strings.Compare(a.Day+a.Kind+a.Key, b.Day+b.Kind+b.Key) })
	if l.format == "json" {
		out := make([]exceptionJSON, len(list))
		for i := range list {
			out[i] = jsonOf(&list[i])
		}
		return fmt.Sprintf("%d exceptions", len(list)), writeJSON(call.Stdout, out)
	}
	return fmt.Sprintf("%d exceptions", len(list)), printExceptions(call.Stdout, list)
}

// ageOf is an exception's age in days: from the last day of the first run
// that found it to the last day of the last one.
func ageOf(e *evidence.Exception) int {
	return daysApart(e.FirstTo, e.LastTo)
}

// daysApart is b − a in days (YYYY-MM-DD).
func daysApart(a, b string) int {
	ta, err1 := time.Parse(time.DateOnly, a)
	tb, err2 := time.Parse(time.DateOnly, b)
	if err1 != nil || err2 != nil {
		return 0
	}
	return int(tb.Sub(ta).Hours() / 24)
}

// printExceptions prints the table of exceptions.
func printExceptions(w io.Writer, list []evidence.Exception) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no exceptions (--status all lists every status)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tDAY\tFIRST SEEN (IST)\tAGE\tASSIGNEE\tAMOUNT\tKEY / DETAIL")
	for i := range list {
		e := &list[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", e.ID, e.Kind, e.Status, e.Day,
			e.FirstSeen.In(recon.IST).Format("2006-01-02 15:04"), ageOf(e), orDash(e.Assignee), e.Amount, cut(e.Key+" "+e.Detail, 70))
	}
	return tw.Flush()
}

// cut shortens s to n characters.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// exceptionJSON is an exception as --format json writes it.
type exceptionJSON struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Key       string `json:"key"`
	Status    string `json:"status"`
	FirstSeen string `json:"firstSeen"` // RFC 3339: the first run that found it
	LastSeen  string `json:"lastSeen"`  // the last one
	AgeDays   int    `json:"ageDays"`
	Assignee  string `json:"assignee"`
	Day       string `json:"day"`
	Amount    string `json:"amount"`
	Detail    string `json:"detail"`
	Note      string `json:"note"`
}

func jsonOf(e *evidence.Exception) exceptionJSON {
	return exceptionJSON{ID: e.ID, Kind: e.Kind, Key: e.Key, Status: e.Status, FirstSeen: evidence.SeenIST(e.FirstSeen),
		LastSeen: evidence.SeenIST(e.LastSeen), AgeDays: ageOf(e), Assignee: e.Assignee, Day: e.Day, Amount: e.Amount,
		Detail: e.Detail, Note: e.Note}
}

// eventJSON is an event as --format json writes it.
type eventJSON struct {
	Seq    int64  `json:"seq"`
	By     string `json:"by"`
	At     string `json:"at"`
	Action string `json:"action"`
	Note   string `json:"note"`
	Data   string `json:"data,omitempty"`
	RunID  int64  `json:"runId"`
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// exceptionsShowCmd is reconcile exceptions show.
type exceptionsShowCmd struct {
	db     dbCmd
	format string
}

func (s *exceptionsShowCmd) Flags(fs *flag.FlagSet) {
	s.db.bind(fs)
	fs.StringVar(&s.format, "format", "table", "table or json (an array of one object, with its events)")
}

func (s *exceptionsShowCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) != 1 {
		return "", cli.Usagef("exceptions show: name one exception: reconcile exceptions show EX-… (see exceptions list)")
	}
	if err := checkFormat(s.format); err != nil {
		return "", err
	}
	env, err := s.db.open(ctx, call, "exceptions show")
	if err != nil {
		return "", err
	}
	defer env.Close()
	e, evs, err := exceptionWithEvents(ctx, env.DB, call.Args[0])
	if err != nil {
		return "", err
	}
	if s.format == "json" {
		out := struct {
			exceptionJSON
			Events []eventJSON `json:"events"`
		}{jsonOf(&e), evs}
		return e.ID, writeJSON(call.Stdout, []any{out})
	}
	return e.ID, printException(call.Stdout, &e, evs)
}

// exceptionWithEvents reads an exception and its events.
func exceptionWithEvents(ctx context.Context, db *store.DB, id string) (evidence.Exception, []eventJSON, error) {
	e, ok, err := db.Exception(ctx, id)
	if err != nil {
		return e, nil, err
	}
	if !ok {
		return e, nil, cli.Usagef("no exception %s (see reconcile exceptions list --status all)", id)
	}
	evs := []eventJSON{}
	for ev, err := range db.Events(ctx, evidence.EventFilter{ExceptionID: id}) {
		if err != nil {
			return e, nil, err
		}
		evs = append(evs, eventJSON{Seq: ev.Seq, By: ev.By, At: evidence.SeenIST(ev.At), Action: ev.Action, Note: ev.Note,
			Data: ev.Data, RunID: ev.RunID})
	}
	return e, evs, nil
}

// printException prints an exception and its history.
func printException(w io.Writer, e *evidence.Exception, evs []eventJSON) error {
	fmt.Fprintf(w, "%s  %s %s  (%s)\n", e.ID, e.Kind, e.Key, e.Status)
	fmt.Fprintf(w, "  day %s, amount %s: %s\n", e.Day, e.Amount, e.Detail)
	fmt.Fprintf(w, "  first seen %s (run %d, through %s); last seen %s (run %d, through %s); %d days\n",
		evidence.SeenIST(e.FirstSeen), e.FirstRun, e.FirstTo, evidence.SeenIST(e.LastSeen), e.LastRun, e.LastTo, ageOf(e))
	fmt.Fprintf(w, "  assignee %s; note %s\n\n", orDash(e.Assignee), orDash(e.Note))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tAT (IST)\tBY\tACTION\tRUN\tNOTE")
	for _, ev := range evs {
		note := ev.Note
		if ev.Data != "" {
			note = strings.TrimSpace(ev.Data + " " + note)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", ev.Seq, ev.At, ev.By, ev.Action, runOrDash(ev.RunID), note)
	}
	return tw.Flush()
}

func runOrDash(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprint(id)
}
