package evidence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/budget"
)

// What the workbook holds for the round trip: the Summary names the run
// in a cell of its own (LabelRunID in column A, the id beside it), and the
// Exceptions sheet has the columns ColID, ColDecision (a drop-down of
// StatusExplained and StatusWrittenOff), ColAssignee and ColNote. They are
// read by their names, wherever a spreadsheet program moved them.
const (
	SheetExceptions = "Exceptions"
	SheetSummary    = "Summary"
	LabelRunID      = "Run id"
	LabelDigest     = "Manifest digest"
	ColID           = "ID"
	ColDecision     = "Decision"
	ColAssignee     = "Assignee"
	ColNote         = "Note"
)

// ImportLine is what the import did with one row of the Exceptions sheet.
type ImportLine struct {
	Row     int // the sheet's row number
	ID      string
	Applied []Event
	Refused string // why it was not applied
}

// ImportReport is what an import of a reviewed workbook did.
type ImportReport struct {
	RunID     int64
	Lines     []ImportLine // rows applied or refused
	Unchanged int          // rows that asked for nothing new
}

// ImportWorkbook applies what an analyst filled in on the Exceptions sheet
// of a run's workbook (Decision, Assignee, Note) as events by by. The
// workbook must name a run this database knows. A row is refused when its
// exception changed since that run (an event after the run's evidence)
// and it asks for something else than the exception now says; a row that
// asks for nothing new is passed over, so importing the same workbook
// twice adds nothing.
func ImportWorkbook(ctx context.Context, db Store, path, by string, at time.Time) (*ImportReport, error) {
	if by == "" {
		return nil, refused("who decided? (--by)")
	}
	if err := budget.Workbook(path, "a reviewed workbook"); err != nil {
		return nil, refused("%v", err)
	}
	f, err := excelize.OpenFile(path, excelize.Options{UnzipSizeLimit: budget.WorkbookUnzipped, UnzipXMLSizeLimit: budget.WorkbookPart})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	runID, err := workbookRun(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sm, ok, err := db.Manifest(ctx, runID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, refused("%s is the workbook of run %d, which this database does not know (another database?)", path, runID)
	}
	rows, err := reviewRows(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var rep *ImportReport
	var counts []int // events of each line of rep.Lines
	c, err := guarded(ctx, db, func() (Changes, bool, error) {
		c := Changes{Read: map[string]LastSighting{}}
		rep, counts = &ImportReport{RunID: runID}, make([]int, 0, len(rows))
		for _, r := range rows {
			d := Decision{ID: r.id, Status: r.decision, Assignee: &r.assignee, Note: r.note, By: by, At: at.Truncate(time.Millisecond), RunID: runID}
			line, e, evs := reviewRow(ctx, db, &sm, r, &d)
			if line.Refused == "" && len(evs) == 0 {
				rep.Unchanged++
				continue
			}
			if e != nil {
				c.Update, c.Read[e.ID] = append(c.Update, *e), lastSighting(e)
				c.Events = append(c.Events, evs...)
			}
			rep.Lines, counts = append(rep.Lines, line), append(counts, len(evs))
		}
		return c, len(c.Events) == 0, nil
	})
	if err != nil {
		return nil, err
	}
	next := 0
	for i, n := range counts { // the events as appended, with their seq
		rep.Lines[i].Applied = c.Events[next : next+n]
		next += n
	}
	return rep, nil
}

// reviewRow works out one row: the exception as the row leaves it and the
// events, or why the row is refused.
func reviewRow(ctx context.Context, db Store, sm *StoredManifest, r reviewed, d *Decision) (ImportLine, *Exception, []Event) {
	line := ImportLine{Row: r.row, ID: r.id}
	e, ok, err := db.Exception(ctx, r.id)
	if err != nil || !ok {
		line.Refused = fmt.Sprintf("no exception %s in this database", r.id)
		if err != nil {
			line.Refused = err.Error()
		}
		return line, nil, nil
	}
	evs, err := plan(&e, d)
	if err != nil {
		line.Refused = err.Error()
		return line, nil, nil
	}
	if len(evs) == 0 {
		return line, nil, nil
	}
	if ev, changed, err := changedSince(ctx, db, r.id, sm.HeadSeq); err != nil {
		line.Refused = err.Error()
		return line, nil, nil
	} else if changed {
		line.Refused = fmt.Sprintf("%s changed since run %d (%s by %s at %s): look at it again (reconcile exceptions show %s)",
			r.id, sm.RunID, ev.Action, ev.By, SeenIST(ev.At), r.id)
		return line, nil, nil
	}
	return line, &e, evs
}

// changedSince returns the newest event of exception id after event seq.
func changedSince(ctx context.Context, db Store, id string, seq int64) (Event, bool, error) {
	var last Event
	found := false
	for ev, err := range db.Events(ctx, EventFilter{ExceptionID: id}) {
		if err != nil {
			return last, false, err
		}
		if ev.Seq > seq {
			last, found = ev, true
		}
	}
	return last, found, nil
}

// eachRow calls fn with each row of a sheet, numbered from 1, read one at
// a time (a sheet of a month's workbook may be larger than the memory it
// is given), until fn says it has seen enough or fails.
func eachRow(f *excelize.File, sheet string, fn func(n int, cells []string) (more bool, err error)) error {
	if i, err := f.GetSheetIndex(sheet); err != nil || i < 0 {
		return errNoSheet
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		return fmt.Errorf("the %s sheet: %w", sheet, err)
	}
	defer rows.Close()
	for n := 1; rows.Next(); n++ {
		cells, err := rows.Columns()
		if err != nil {
			return fmt.Errorf("the %s sheet, row %d: %w", sheet, n, err)
		}
		if more, err := fn(n, cells); err != nil || !more {
			return err
		}
	}
	return rows.Error()
}

// errNoSheet is a workbook without the sheet looked for.
var errNoSheet = errors.New("no such sheet")

// workbookRun reads the run id off the Summary sheet (the cell beside
// LabelRunID).
func workbookRun(f *excelize.File) (int64, error) {
	var id int64
	var bad error
	err := eachRow(f, SheetSummary, func(_ int, r []string) (bool, error) {
		if len(r) < 2 || strings.TrimSpace(r[0]) != LabelRunID {
			return true, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(r[1]), 10, 64)
		if err != nil || n <= 0 {
			bad = fmt.Errorf("the %s sheet's %s is %q, not a run id", SheetSummary, LabelRunID, r[1])
		}
		id = n
		return false, nil
	})
	switch {
	case errors.Is(err, errNoSheet):
		return 0, fmt.Errorf("no %s sheet: not a reconciliation workbook", SheetSummary)
	case err != nil:
		return 0, err
	case bad != nil:
		return 0, bad
	case id == 0:
		return 0, fmt.Errorf("the %s sheet names no run (no %q cell): a workbook exported before exceptions were kept?", SheetSummary, LabelRunID)
	}
	return id, nil
}

// reviewed is one row of the Exceptions sheet as the analyst left it.
type reviewed struct {
	row                          int
	id, decision, assignee, note string
}

// reviewRows reads the Exceptions sheet by its column names, keeping only
// the rows that name an exception.
func reviewRows(f *excelize.File) ([]reviewed, error) {
	var col map[string]int
	cell := func(r []string, name string) string {
		if j := col[name]; j < len(r) {
			return strings.TrimSpace(r[j])
		}
		return ""
	}
	var out []reviewed
	err := eachRow(f, SheetExceptions, func(n int, r []string) (bool, error) {
		if col == nil { // the header: the first row with an ID column
			head := map[string]int{}
			for j, c := range r {
				head[strings.TrimSpace(c)] = j
			}
			if _, ok := head[ColID]; ok {
				col = head
			}
			return true, nil
		}
		if id := cell(r, ColID); id != "" {
			out = append(out, reviewed{row: n, id: id, decision: cell(r, ColDecision), assignee: cell(r, ColAssignee), note: cell(r, ColNote)})
		}
		return true, nil
	})
	if errors.Is(err, errNoSheet) {
		return nil, fmt.Errorf("no %s sheet", SheetExceptions)
	}
	if err != nil {
		return nil, err
	}
	for _, name := range []string{ColID, ColDecision, ColAssignee, ColNote} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("the %s sheet has no %q column", SheetExceptions, name)
		}
	}
	return out, nil
}
