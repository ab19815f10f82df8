package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/evidence"
)

var exceptionsResolveHelp = cli.Help{
	Synopsis: "reconcile exceptions resolve ID --as explained|written-off --note TEXT [--by NAME] [--db FILE]",
	Description: "Records a decision about an exception: explained (it is no defect, and why) or written off\n" +
		"(accepted as a loss or a gain, and why), as an event by --by (default: your login name). The\n" +
		"history keeps every decision; a later one adds to it.",
	Examples: `  reconcile exceptions resolve EX-25cd993ac9 --as explained --note "a test call, refunded by the service"
  reconcile exceptions resolve EX-ecd749bdd5 --as written-off --note "10.00 lost to the service's rounding, agreed" --by asha`,
}

var exceptionsAssignHelp = cli.Help{
	Synopsis:    "reconcile exceptions assign ID --to NAME [--by NAME] [--db FILE]",
	Description: "Assigns an exception to someone (--to \"\" unassigns), as an event by --by (default: your login name).",
	Examples:    `  reconcile exceptions assign EX-db0fdc4e26 --to meera`,
}

var exceptionsImportHelp = cli.Help{
	Synopsis: "reconcile exceptions import REVIEWED.xlsx [--by NAME] [--db FILE]",
	Description: "Applies what an analyst filled in on the Exceptions sheet of a run's workbook (Decision,\n" +
		"Assignee, Note) as events by --by (default: your login name). The workbook must name a run of\n" +
		"this database (its Summary's Run id); columns are read by their names, so a workbook re-saved\n" +
		"by any spreadsheet program works. A row whose exception changed since that run (an event\n" +
		"after it) is refused, with its row number; a row asking for nothing new is passed over, so\n" +
		"importing the same workbook twice adds nothing. Exit status 1 when a row was refused.\n" +
		"Budgets: the workbook is a regular file of at most 512 MiB whose parts unzip to at most 4 GiB\n" +
		"(parts other than sheets: 16 MiB each, 64 MiB together); a larger one, or a zip bomb, is\n" +
		"refused before it is unzipped, exit 2.",
	Examples: `  reconcile exceptions import reviewed.xlsx --by asha`,
}

// exceptionsResolveCmd is reconcile exceptions resolve.
type exceptionsResolveCmd struct {
	db           dbCmd
	as, note, by string
}

func (r *exceptionsResolveCmd) Flags(fs *flag.FlagSet) {
	r.db.bind(fs)
	fs.StringVar(&r.as, "as", "", "the decision: explained or written-off")
	fs.StringVar(&r.note, "note", "", "why (required)")
	fs.StringVar(&r.by, "by", login(), "who decides (default: the login name)")
}

func (r *exceptionsResolveCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) != 1 {
		return "", cli.Usagef("exceptions resolve: name one exception: reconcile exceptions resolve EX-… --as explained --note TEXT")
	}
	if r.as != evidence.StatusExplained && r.as != evidence.StatusWrittenOff {
		return "", cli.Usagef("exceptions resolve: --as %q: want explained or written-off", r.as)
	}
	return decide(ctx, call, &r.db, "exceptions resolve", evidence.Decision{ID: call.Args[0], Status: r.as, Note: r.note, By: r.by})
}

// exceptionsAssignCmd is reconcile exceptions assign.
type exceptionsAssignCmd struct {
	db     dbCmd
	to, by string
}

func (a *exceptionsAssignCmd) Flags(fs *flag.FlagSet) {
	a.db.bind(fs)
	fs.StringVar(&a.to, "to", "", "who looks into it (\"\" unassigns)")
	fs.StringVar(&a.by, "by", login(), "who assigns (default: the login name)")
}

func (a *exceptionsAssignCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) != 1 || !call.Given["to"] {
		return "", cli.Usagef("exceptions assign: reconcile exceptions assign EX-… --to NAME")
	}
	return decide(ctx, call, &a.db, "exceptions assign", evidence.Decision{ID: call.Args[0], Assignee: &a.to, By: a.by})
}

// decide records d and prints the events it made.
func decide(ctx context.Context, call *cli.Call, db *dbCmd, name string, d evidence.Decision) (string, error) {
	env, err := db.open(ctx, call, name)
	if err != nil {
		return "", err
	}
	defer env.Close()
	d.At = clock()
	evs, err := evidence.Decide(ctx, env.DB, d)
	if err != nil {
		return "", refusedExit(fmt.Errorf("%s: %w", name, err))
	}
	if len(evs) == 0 {
		line := d.ID + ": nothing new (it says so already)"
		fmt.Fprintln(call.Stdout, line)
		return line, nil
	}
	for _, ev := range evs {
		printEvent(call.Stdout, &ev)
	}
	return fmt.Sprintf("%s: %d events", d.ID, len(evs)), nil
}

// printEvent prints an event recorded: "EX-… explained by asha: NOTE (event 42)".
func printEvent(w io.Writer, ev *evidence.Event) {
	what := ev.Action
	if ev.Action == evidence.ActionAssigned {
		what = "assigned to " + orDash(ev.Data)
	}
	line := fmt.Sprintf("%s %s by %s", ev.ExceptionID, what, ev.By)
	if ev.Note != "" {
		line += ": " + ev.Note
	}
	fmt.Fprintf(w, "%s (event %d)\n", line, ev.Seq)
}

// exceptionsImportCmd is reconcile exceptions import.
type exceptionsImportCmd struct {
	db dbCmd
	by string
}

func (im *exceptionsImportCmd) Flags(fs *flag.FlagSet) {
	im.db.bind(fs)
	fs.StringVar(&im.by, "by", login(), "who decided (default: the login name)")
}

func (im *exceptionsImportCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if len(call.Args) != 1 {
		return "", cli.Usagef("exceptions import: name the reviewed workbook: reconcile exceptions import reviewed.xlsx")
	}
	env, err := im.db.open(ctx, call, "exceptions import")
	if err != nil {
		return "", err
	}
	defer env.Close()
	rep, err := evidence.ImportWorkbook(ctx, env.DB, call.Args[0], im.by, clock())
	if err != nil {
		return "", refusedExit(fmt.Errorf("exceptions import: %w", err))
	}
	applied, refused := 0, 0
	for _, l := range rep.Lines {
		if l.Refused != "" {
			refused++
			fmt.Fprintf(call.Stdout, "row %d %s: refused: %s\n", l.Row, l.ID, l.Refused)
			continue
		}
		applied++
		for _, ev := range l.Applied {
			fmt.Fprintf(call.Stdout, "row %d ", l.Row)
			printEvent(call.Stdout, &ev)
		}
	}
	line := fmt.Sprintf("run %d's workbook: %d rows applied, %d refused, %d unchanged", rep.RunID, applied, refused, rep.Unchanged)
	fmt.Fprintln(call.Stdout, line)
	if refused > 0 {
		return line, fmt.Errorf("exceptions import: %d rows refused (see above)", refused)
	}
	return line, nil
}
