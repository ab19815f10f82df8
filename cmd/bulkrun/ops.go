package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

var opsHelp = cli.Help{Synopsis: "bulkrun ops [NAME]",
	Examples: "  bulkrun ops\n  bulkrun ops litigation\n  bulkrun ops verifypanplusv2\n\nNames match in any case."}

// opsCmd is bulkrun ops: the operations, or one operation's fields.
type opsCmd struct {
	logs cli.Common // the log flags only: the format of its errors
}

func (oc *opsCmd) Flags(fs *flag.FlagSet) { oc.logs.BindLog(fs) }

func (oc *opsCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	if _, err := oc.logs.Logger(ctx, call.Stderr); err != nil { // the log flags are checked like everywhere
		return "", err
	}
	return "", listOps(call.Args, call.Stdout)
}

func listOps(pos []string, stdout io.Writer) error {
	switch len(pos) {
	case 0:
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "OPERATION\tMETHOD PATH\tBILLABLE\tFIELDS\tDESCRIPTION")
		for _, op := range svcapi.Operations() {
			billable := "no"
			if op.Billable {
				billable = "yes"
			}
			fmt.Fprintf(tw, "%s\t%s %s\t%s\t%d\t%s\n", op.Name, op.Method, op.Path, billable, len(op.Fields), op.Doc)
		}
		return tw.Flush()
	case 1:
		op, err := lookupOp("ops", pos[0])
		if err != nil {
			return err
		}
		return describe(stdout, op)
	}
	return cli.Usagef("ops takes at most one operation name (see bulkrun ops -h)")
}

func describe(w io.Writer, op *svcapi.Operation) error {
	fmt.Fprintf(w, "%s — %s\n%s %s, headers %s", op.Name, op.Doc, op.Method, op.Path, op.Headers)
	if op.Billable {
		fmt.Fprint(w, ", billable (never re-sent blindly: an unknown outcome is pending until txnStatus resolves it)")
	}
	fmt.Fprintln(w)
	if len(op.Fields) == 0 {
		fmt.Fprintln(w, "\nNo request fields.")
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tTYPE\tRULE\tDESCRIPTION")
	var example []string
	for _, f := range op.Fields {
		doc := f.Doc
		if len(f.Aliases) > 0 {
			doc += " (column may also be named " + strings.Join(f.Aliases, ", ") + ")"
		}
		if f.Redacted {
			doc += " [secret: never logged or exported]"
		}
		if f.Name == bulk.RefField {
			doc += "; leave the column out to derive one per row"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, f.Type, f.Rule(), doc)
		if f.Req != svcapi.Optional && f.Name != bulk.RefField {
			example = append(example, f.Name)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nExample CSV header (mandatory and conditional fields; externalRef is derived when absent):\n%s\n",
		strings.Join(example, ","))
	fmt.Fprintln(w, "\nValues stay text (leading zeros kept) unless the type is integer or boolean. Fields the same for")
	fmt.Fprintln(w, "every row can be given with --set field=value instead of a column; a non-empty cell wins over --set.")
	fmt.Fprintln(w, "Other columns (your own ids, notes) are never sent and are carried through to the results.")
	return nil
}
