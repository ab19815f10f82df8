package export

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// This file is what the reconciliation workbook and CSV files show of the
// run's evidence (internal/evidence): the Exceptions sheet
// (exceptions.csv) that analysts decide on and hand back, the exception
// and life of every row of Breaks, Matching, Duplicates, Reversals,
// Unsettled and Pending (two columns at the end), the Summary's run id,
// manifest digest, exceptions new / carried over / resolved and
// sign-offs (rows at the end of summary.csv), and the verdict of an
// incomplete period.

// TableRows is a table an export wrote and how many rows (its header
// aside).
type TableRows struct {
	Sheet, File string
	Rows        int64
}

// Verdict is the verdict of the findings of the current run of the period
// from..to in the Summary's words ("Reconciled", "Not reconciled: …"),
// before the completeness of the period is known: evidence.Record adds it.
func Verdict(ctx context.Context, db Reports, from, to time.Time) (string, error) {
	f, t := from.Format(recon.DateLayout), to.Format(recon.DateLayout)
	r, found, err := db.ReportRun(ctx, f, t)
	if err != nil {
		return "", err
	}
	if !found {
		return "", &NoRunError{From: f, To: t}
	}
	if r.AsOf == "" {
		r.AsOf = t
	}
	// Not the Summary's daily totals: they read every record of the
	// period (1.1 CPU-s at 1M calls, 12 at 10M) where the verdict needs
	// to know, and seldom, whether there is one.
	v, _, err := loadVerdict(ctx, db, &r, func() (bool, error) { return db.ReportHasRecords(ctx, f, t) })
	return v.Text, err
}

// Exported lists the files written, with their rows, as the manifest's
// export section names them: the workbook with its sheets' rows, each CSV
// file with its own.
func (f Files) Exported() []evidence.Exported {
	var out []evidence.Exported
	if f.Workbook != "" {
		sheets := map[string]int64{}
		for _, t := range f.Tables {
			if t.File != "summary.csv" {
				sheets[t.Sheet] = t.Rows
			}
		}
		out = append(out, evidence.Exported{Path: f.Workbook, Sheets: sheets})
	}
	for _, p := range f.CSV {
		e := evidence.Exported{Path: p}
		for _, t := range f.Tables {
			if t.File == filepath.Base(p) {
				e.Rows = t.Rows
			}
		}
		out = append(out, e)
	}
	return out
}

// evidence reads the run's evidence through o.Evidence (nil without it).
func (o *Options) evidence(ctx context.Context, runID int64) (*evidence.View, error) {
	if o.Evidence == nil {
		return nil, nil
	}
	return o.Evidence(ctx, runID)
}

// withCompleteness is v with what the period lacks before its findings
// (evidence.Verdict): an incomplete period is never Reconciled.
func withCompleteness(v verdict, ev *evidence.View) verdict {
	if ev == nil || ev.Manifest == nil || ev.Manifest.Completeness.Complete {
		return v
	}
	v.Text = evidence.Verdict(&ev.Manifest.Completeness, v.Text)
	v.Reconciled = false
	return v
}

// exceptionCols are the columns of the Exceptions sheet.
var exceptionCols = []Column{
	{evidence.ColID, Text, false},
	{"Kind", Text, false},
	{"Key", Text, false},
	{"Day", Date, false},
	{"Amount", Amount, false},
	{"Detail", Text, true},
	{"Status", Text, false},
	{"Life", Text, false},
	{"First seen", Stamp, false},
	{"Age (days)", Int, false},
	{evidence.ColAssignee, Text, false},
	{evidence.ColDecision, Text, false},
	{evidence.ColNote, Text, true},
}

// exceptionsSheet is the Exceptions sheet: the run's exceptions, then
// those it resolved, with the columns an analyst fills in (Decision, a
// drop-down of explained and written-off; Assignee; Note) for
// `reconcile exceptions import`.
func exceptionsSheet(v *evidence.View) sheet {
	rows := func(yield func(Row, error) bool) {
		if v == nil {
			return
		}
		cells := make([]string, len(exceptionCols))
		for i := range v.Rows {
			r := &v.Rows[i]
			copy(cells, []string{r.ID, r.Kind, r.Key, r.Day, r.Amount, r.Detail, r.Status, r.Life,
				evidence.SeenIST(r.FirstSeen), strconv.Itoa(r.AgeDays), r.Assignee, r.Decision(), r.Note})
			if !yield(Row{Cells: cells, Mark: lifeMark(r)}, nil) {
				return
			}
		}
	}
	s := newSheet(evidence.SheetExceptions, exceptionCols, rows)
	s.Choices = map[int][]string{11: {evidence.StatusExplained, evidence.StatusWrittenOff}}
	s.Note = "Decide here: Decision, Assignee and Note; then reconcile exceptions import THIS-FILE --by NAME."
	return s
}

// lifeMark marks an exception's row: new red, open yellow, resolved green.
func lifeMark(r *evidence.Row) Mark {
	switch {
	case r.Life == evidence.LifeResolved:
		return MarkGood
	case r.Decision() != "":
		return MarkNone
	case r.Life == evidence.LifeNew:
		return MarkBreak
	}
	return MarkLook
}

// findingOf reads the identity of a row of a findings sheet from its
// cells; nil for a row that is no exception (matched, explained gap,
// linked reversal).
type findingOf func(c []string) *evidence.Finding

// lifeSheets are the sheets whose rows get an exception and a life, and
// how each row's identity is read (the sheets' columns: sheets.go).
var lifeSheets = map[string]findingOf{
	"Breaks": func(c []string) *evidence.Finding {
		if c[0] != recon.BreakArithmetic && c[0] != recon.BreakGap {
			return nil
		}
		return &evidence.Finding{Kind: c[0], PoolAccount: c[1], TS: c[2], Operation: c[3], ExternalRef: c[4], OrderID: c[5]}
	},
	"Matching": matchFinding, "Duplicates": matchFinding, "Pending": matchFinding,
	"Reversals": func(c []string) *evidence.Finding {
		if c[4] != "false" {
			return nil
		}
		return &evidence.Finding{Kind: evidence.KindReversalNotFound, SvcOrderID: c[0]}
	},
	"Unsettled": func(c []string) *evidence.Finding {
		return &evidence.Finding{Kind: evidence.KindUnsettled, SvcOrderID: c[0]}
	},
	"Fees": feeFinding, // fees.go
}

// lifeTails are how many of the last columns of a sheet of lifeSheets
// come after exception and life: the columns added after them, which go
// at the end of the file.
var lifeTails = map[string]int{"Matching": matchTail, "Duplicates": matchTail, "Pending": matchTail}

// matchFinding reads a row of Matching, Duplicates or Pending (matchCols).
func matchFinding(c []string) *evidence.Finding {
	if c[0] == recon.Matched || c[0] == recon.Reversed {
		return nil
	}
	return &evidence.Finding{Kind: c[0], TS: c[1], Operation: c[2], ExternalRef: c[3], OrderID: c[4], SvcOrderID: c[6]}
}

// withLives adds the columns exception (the EX- id) and life (new, open
// since DATE (N days)) to the sheets of lifeSheets, before the sheet's
// tail (lifeTails): the other columns, and their CSV bytes, stay as they
// are.
func withLives(v *evidence.View, sheets []sheet) []sheet {
	for i := range sheets {
		s := &sheets[i]
		find := lifeSheets[s.Sheet]
		if find == nil {
			continue
		}
		all := len(s.Columns)
		n := all - lifeTails[s.Sheet]
		s.Columns = slices.Concat(s.Columns[:n], []Column{{"exception", Text, false}, {"life", Text, false}}, s.Columns[n:])
		rows := s.rows
		s.rows = func(yield func(Row, error) bool) {
			cells := make([]string, all+2)
			for r, err := range rows {
				if err != nil {
					yield(r, err)
					return
				}
				copy(cells, r.Cells[:n])
				copy(cells[n+2:], r.Cells[n:])
				cells[n], cells[n+1] = "", ""
				if f := find(r.Cells); f != nil {
					cells[n], cells[n+1] = v.Lookup(f)
				}
				if !yield(Row{Cells: cells, Mark: r.Mark}, nil) {
					return
				}
			}
		}
	}
	return sheets
}

// evidencePairs are summary.csv's rows of the evidence, after the others:
// section evidence (runId, manifestDigest, complete, missing, exceptionsNew,
// exceptionsCarriedOver, exceptionsResolved) and one section "signoff N"
// per sign-off of the run and of runs of overlapping periods (run, period,
// role, by, at, state).
func evidencePairs(v *evidence.View) []pair {
	if v == nil {
		return nil
	}
	const sec = "evidence"
	complete, missing := "", ""
	if m := v.Manifest; m != nil {
		complete, missing = strconv.FormatBool(m.Completeness.Complete), m.Completeness.Describe()
	}
	n := strconv.Itoa
	p := []pair{{sec, "runId", strconv.FormatInt(v.RunID, 10)}, {sec, "manifestDigest", v.Digest()},
		{sec, "complete", complete}, {sec, "missing", missing}, {sec, "exceptionsNew", n(v.Counts.New)},
		{sec, "exceptionsCarriedOver", n(v.Counts.Carried)}, {sec, "exceptionsResolved", n(v.Counts.Resolved)}}
	for i, s := range v.SignOffs {
		sec := "signoff " + n(i+1)
		p = append(p, pair{sec, "run", strconv.FormatInt(s.RunID, 10)}, pair{sec, "period", s.From + ".." + s.To},
			pair{sec, "role", s.Role}, pair{sec, "by", s.By}, pair{sec, "at", evidence.SeenIST(s.At)},
			pair{sec, "state", s.State()})
	}
	return p
}

// summaryEvidence writes the Summary's evidence: the run id and the
// manifest digest in cells of their own (the round trip reads the run id
// beside its label), the exceptions new, carried over and resolved, and
// the sign-offs, stale ones marked.
func summaryEvidence(g *grid, v *evidence.View) {
	if v == nil {
		return
	}
	g.skip()
	g.put(roleSection, MarkNone, "Evidence", "")
	g.put(roleCell, MarkNone, evidence.LabelRunID, v.RunID)
	g.put(roleCell, MarkNone, evidence.LabelDigest, v.Digest())
	if m := v.Manifest; m != nil && !m.Completeness.Complete {
		g.put(roleCell, MarkBreak, "Incomplete", m.Completeness.Describe())
	}
	g.put(roleCell, markIf(v.Counts.New > 0, MarkBreak), "Exceptions new", v.Counts.New)
	g.put(roleCell, markIf(v.Counts.Carried > 0, MarkLook), "Exceptions carried over", v.Counts.Carried)
	g.put(roleCell, MarkNone, "Exceptions resolved since last run", v.Counts.Resolved)
	for _, s := range v.SignOffs {
		m := MarkGood
		if len(s.Stale) > 0 {
			m = MarkBreak
		}
		g.put(roleCell, m, fmt.Sprintf("Sign-off of run %d (%s..%s): %s %s", s.RunID, s.From, s.To, s.Role, s.By),
			s.State())
	}
}

func markIf(b bool, m Mark) Mark {
	if b {
		return m
	}
	return MarkNone
}

// dropDowns gives the columns of choices a drop-down list on sheet (rows 2
// to the last).
func (w *Writer) dropDowns(sheet string, choices map[int][]string) error {
	for col, values := range choices {
		name, err := excelize.ColumnNumberToName(col + 1)
		if err != nil {
			return err
		}
		dv := excelize.NewDataValidation(true)
		dv.Sqref = fmt.Sprintf("%s2:%s%d", name, name, ExcelMaxRows)
		if err := dv.SetDropList(values); err != nil {
			return err
		}
		if err := w.f.AddDataValidation(sheet, dv); err != nil {
			return err
		}
	}
	return nil
}
