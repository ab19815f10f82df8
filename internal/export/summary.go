package export

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// amount is an exact amount of the summary JSON: a Summary cell shows it
// as a number ("" is 0).
type amount string

// signed is an amount whose sign matters (a bridge line): negatives red.
type signed decimal.Decimal

// dateTime is a time shown with its date, time and zone (IST).
type dateTime time.Time

// pair is one row of summary.csv.
type pair struct{ Section, Key, Value string }

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// maxPairs is how many suggested pairs the Summary lists.
const maxPairs = 10

// summaryData is what the Summary sheet and summary.csv show.
type summaryData struct {
	run     *ledger.Run
	days    []store.ReportDay
	bridges []bridge
	verdict verdict
	pairs   []ledger.Match // the first maxPairs suggested pairs
	nPairs  int            // how many there are
	skipped string         // why none were suggested (recon.Summary.PairingSkipped)
}

// loadSummary reads what the Summary shows besides the run's summary: the
// statement's daily totals, the break totals (for the bridges and the
// verdict) and the suggested pairs.
func loadSummary(ctx context.Context, db Reports, r *ledger.Run) (*summaryData, error) {
	sd := &summaryData{run: r}
	var err error
	if sd.days, err = db.ReportDays(ctx, r.From, r.To); err != nil {
		return nil, err
	}
	totals, err := db.ReportBreakTotals(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if sd.bridges, err = bridges(&r.Summary, totals); err != nil {
		return nil, fmt.Errorf("run %d: %w", r.ID, err)
	}
	sd.verdict = verdictOf(r, sd.days, sd.bridges, totals)
	n := 0
	for m, err := range db.ReportSuggestedPairs(ctx, r.ID) {
		if err != nil {
			return nil, err
		}
		if n++; len(sd.pairs) < maxPairs {
			sd.pairs = append(sd.pairs, *m)
		}
	}
	// The ledger counts the pairs in the summary; runs made before it did
	// are counted from their rows.
	sd.nPairs, sd.skipped = r.Summary.SuggestedPairs, r.Summary.PairingSkipped
	if sd.nPairs == 0 {
		sd.nPairs = n
	}
	return sd, nil
}

// finishedIST is the run's finish time in IST, RFC 3339 ("" when unknown
// or not a time).
func finishedIST(r *ledger.Run) (time.Time, bool) {
	if r.Finished.IsZero() {
		return time.Time{}, false
	}
	return r.Finished.In(recon.IST), true
}

// summaryPairs flattens the summary to the key/value rows of summary.csv,
// in the Summary sheet's order: section verdict (verdict, reconciled,
// unexplained, unexplainedBreaks, exceptions, unlinkedReversals); "bridge
// <account>" per pool (its lines, lastCallClosing and check); period
// (from, to, asOf, runId, finishedAt in IST with its offset); "pool
// <account>" per pool; calls; outcomes (<outcome>.count / .amount); breaks
// (<kind>.count / .delta); reversals; unsettled (<bucket>.count /
// .amount); pending; suggestedPairs (count) and daily (<date>.debits /
// .credits: the statement's Σ DR and Σ CR per day).
func summaryPairs(sd *summaryData) []pair {
	r, s, v := sd.run, &sd.run.Summary, &sd.verdict
	n := strconv.Itoa
	p := []pair{{"verdict", "verdict", v.Text}, {"verdict", "reconciled", strconv.FormatBool(v.Reconciled)},
		{"verdict", "unexplained", recon.Money(v.Unexplained)}, {"verdict", "unexplainedBreaks", n(v.Breaks)},
		{"verdict", "exceptions", n(v.Exceptions)}, {"verdict", "unlinkedReversals", n(v.Unlinked)}}
	for i := range sd.bridges {
		b := &sd.bridges[i]
		sec := "bridge " + b.Account
		for _, l := range b.Lines() {
			p = append(p, pair{sec, l.Key, recon.Money(l.Amount)})
		}
		p = append(p, pair{sec, "lastCallClosing", recon.Money(b.LastClosing)}, pair{sec, "check", b.Check()})
	}
	fin := ""
	if t, ok := finishedIST(r); ok {
		fin = t.Format(time.RFC3339)
	}
	p = append(p, pair{"period", "from", r.From}, pair{"period", "to", r.To}, pair{"period", "asOf", r.AsOf},
		pair{"period", "runId", strconv.FormatInt(r.ID, 10)}, pair{"period", "finishedAt", fin})
	for _, pl := range s.Pools {
		sec := "pool " + pl.Account
		p = append(p, pair{sec, "opening", orZero(pl.Opening)}, pair{sec, "closing", orZero(pl.Closing)},
			pair{sec, "calls", n(pl.Calls)}, pair{sec, "debited", orZero(pl.Debited)})
	}
	p = append(p, pair{"calls", "calls", n(s.Calls)}, pair{"calls", "callsWithDebit", n(s.CallsWithDebit)},
		pair{"calls", "callsFailed", n(s.CallsFailed)}, pair{"calls", "callsPending", n(s.CallsPending)},
		pair{"calls", "debited", orZero(s.Debited)}, pair{"calls", "credited", orZero(s.Credited)})
	for _, k := range recon.Outcomes {
		o := s.Outcomes[k]
		p = append(p, pair{"outcomes", k + ".count", n(o.Count)}, pair{"outcomes", k + ".amount", orZero(o.Amount)})
	}
	for _, k := range recon.BreakKinds {
		b := s.Breaks[k]
		p = append(p, pair{"breaks", k + ".count", n(b.Count)}, pair{"breaks", k + ".delta", orZero(b.Delta)})
	}
	p = append(p, pair{"reversals", "count", n(s.Reversals.Count)}, pair{"reversals", "amount", orZero(s.Reversals.Amount)},
		pair{"reversals", "unlinked", n(s.Reversals.Unlinked)})
	for _, k := range recon.BucketNames() {
		u := s.Unsettled[k]
		p = append(p, pair{"unsettled", k + ".count", n(u.Count)}, pair{"unsettled", k + ".amount", orZero(u.Amount)})
	}
	p = append(p, pair{"pending", "count", n(s.Pending.Count)}, pair{"pending", "amount", orZero(s.Pending.Amount)},
		pair{"suggestedPairs", "count", n(sd.nPairs)})
	for _, d := range sd.days {
		p = append(p, pair{"daily", d.Date + ".debits", recon.Money(d.Debits)}, pair{"daily", d.Date + ".credits", recon.Money(d.Credits)})
	}
	return p
}

// summary writes the Summary sheet and summary.csv.
func (w *Writer) summary(sd *summaryData) error {
	if w.o.Format.csv() {
		if err := w.summaryCSV(summaryPairs(sd)); err != nil {
			return err
		}
	}
	if w.f == nil {
		return nil
	}
	if err := w.summarySheet(sd); err != nil {
		return fmt.Errorf("export Summary: %w", err)
	}
	return nil
}

var summaryCols = []Column{{"section", Text, false}, {"key", Text, false}, {"value", Text, false}}

func (w *Writer) summaryCSV(pairs []pair) error {
	cf, err := w.openCSV("summary.csv", []string{"section", "key", "value"})
	if err != nil {
		return err
	}
	for _, p := range pairs {
		if err := cf.add(summaryCols, []string{p.Section, p.Key, p.Value}); err != nil {
			return fmt.Errorf("write summary.csv: %w", err)
		}
	}
	return cf.close()
}

// grid writes cells of the (small, not streamed) Summary sheet.
type grid struct {
	w     *Writer
	sheet string
	row   int
	err   error
}

// put writes one row from column A: each value is a string, a count
// (int / int64), an amount (amount / decimal.Decimal / signed), a date
// (time.Time) or a date-time (dateTime).
func (g *grid) put(role int, m Mark, vals ...any) {
	g.row++
	for i, v := range vals {
		if g.err != nil {
			return
		}
		cell, _ := excelize.CoordinatesToCellName(i+1, g.row)
		k := Text
		r := role
		if role == roleSection && i > 0 {
			k = Amount // right-aligned over the numbers
		}
		if role == roleCell && i == 0 {
			r = roleLabel
		}
		var val any = v
		switch x := v.(type) {
		case nil:
			if m == MarkNone && role == roleCell {
				continue
			}
		case amount:
			k, val = Amount, cellValue(Amount, orZero(string(x)))
		case decimal.Decimal:
			k, val = Amount, cellValue(Amount, x.String())
		case signed:
			k, val = Delta, cellValue(Amount, decimal.Decimal(x).String())
		case int:
			k, val = Int, int64(x)
		case int64:
			k = Int
		case time.Time:
			k = Date
		case dateTime:
			k, val = DateTime, time.Time(x)
		}
		if val != nil {
			g.err = g.w.f.SetCellValue(g.sheet, cell, val)
		}
		if g.err == nil {
			g.err = g.w.f.SetCellStyle(g.sheet, cell, cell, g.w.style(k, m, r))
		}
	}
}

func (g *grid) skip() { g.row++ }

func dateCell(s string) any { return cellValue(Date, s) }

// outcomeMark is how the Summary marks an outcome's row.
func outcomeMark(k string, n int) Mark {
	switch {
	case n == 0, k == recon.Matched, k == recon.Reversed:
		return MarkNone
	case k == recon.Pending:
		return MarkLook
	}
	return MarkBreak
}

// summarySheet writes the Summary: the verdict, the bridge per pool
// account, the period, then the counts and sums of every finding, the
// suggested pairs, the statement per day and its chart.
func (w *Writer) summarySheet(sd *summaryData) error {
	r, s, v := sd.run, &sd.run.Summary, &sd.verdict
	oldest := recon.Buckets[len(recon.Buckets)-1].Name
	const name = "Summary"
	if err := w.newSheet(name); err != nil {
		return err
	}
	g := &grid{w: w, sheet: name}
	vm := MarkBreak
	if v.Reconciled {
		vm = MarkGood
	}
	g.put(roleVerdict, vm, v.Text)
	g.put(roleTitle, MarkNone, fmt.Sprintf("Reconciliation %s to %s", r.From, r.To))
	g.put(roleNote, MarkNone, "Every time in this workbook is IST (UTC+05:30). The Legend sheet explains every outcome, break kind and age bucket.")
	for i := range sd.bridges {
		b := &sd.bridges[i]
		g.skip()
		g.put(roleSection, MarkNone, "Bridge of pool account "+poolName(b.Account), "Amount", "Items")
		for _, l := range b.Lines() {
			m, role := MarkNone, roleCell
			if l.Key == "unexplainedBreaks" && l.N > 0 {
				m = MarkBreak
			}
			if l.Key == "closing" {
				role = roleSection
			}
			var n any
			if l.N >= 0 {
				n = l.N
			}
			g.put(role, m, l.Label, signed(l.Amount), n)
		}
		cm := MarkGood
		if !b.Difference().IsZero() {
			cm = MarkBreak
		}
		g.put(roleCell, cm, "Last call's closing", signed(b.LastClosing), b.Check())
	}
	g.skip()
	g.put(roleCell, MarkNone, "Period from", dateCell(r.From))
	g.put(roleCell, MarkNone, "Period to", dateCell(r.To))
	g.put(roleCell, MarkNone, "As of", dateCell(r.AsOf))
	g.put(roleCell, MarkNone, "Reconciliation run", r.ID)
	if t, ok := finishedIST(r); ok {
		g.put(roleCell, MarkNone, "Finished", dateTime(t))
	}
	g.skip()
	g.put(roleSection, MarkNone, "Pool account", "Opening", "Closing", "Calls", "Debited")
	for _, p := range s.Pools {
		g.put(roleCell, MarkNone, poolName(p.Account), amount(p.Opening), amount(p.Closing), p.Calls, amount(p.Debited))
	}
	g.skip()
	g.put(roleSection, MarkNone, "Calls", "Count", "Amount")
	g.put(roleCell, MarkNone, "All calls", s.Calls)
	g.put(roleCell, MarkNone, "With a pool debit", s.CallsWithDebit, amount(s.Debited))
	g.put(roleCell, MarkNone, "Failed", s.CallsFailed)
	g.put(roleCell, outcomeMark(recon.Pending, s.CallsPending), "Pending", s.CallsPending)
	g.put(roleCell, MarkNone, "Statement credits (CR)", nil, amount(s.Credited))
	g.skip()
	g.put(roleSection, MarkNone, "Outcome", "Count", "Amount")
	for _, k := range recon.Outcomes {
		o := s.Outcomes[k]
		g.put(roleCell, outcomeMark(k, o.Count), k, o.Count, amount(o.Amount))
	}
	g.skip()
	g.put(roleSection, MarkNone, "Break", "Count", "Delta")
	for _, k := range recon.BreakKinds {
		b := s.Breaks[k]
		m := MarkNone
		if b.Count > 0 {
			m = MarkBreak
			if k == recon.BreakExplainedGap {
				m = MarkLook
			}
		}
		g.put(roleCell, m, k, b.Count, amount(b.Delta))
	}
	g.skip()
	g.put(roleSection, MarkNone, "Reversals", "Count", "Amount")
	g.put(roleCell, MarkNone, "Reversed records", s.Reversals.Count, amount(s.Reversals.Amount))
	um := MarkNone
	if s.Reversals.Unlinked > 0 {
		um = MarkBreak
	}
	g.put(roleCell, um, "Reversal record not synced (unlinked)", s.Reversals.Unlinked)
	g.skip()
	g.put(roleSection, MarkNone, "Unsettled orders, age in days", "Count", "Amount")
	for _, k := range recon.BucketNames() {
		u := s.Unsettled[k]
		m := MarkNone
		if k == oldest && u.Count > 0 {
			m = MarkLook
		}
		g.put(roleCell, m, k, u.Count, amount(u.Amount))
	}
	g.skip()
	g.put(roleSection, MarkNone, "Pending", "Count", "Amount")
	g.put(roleCell, MarkNone, "Pending calls", s.Pending.Count, amount(s.Pending.Amount))
	w.suggestedPairs(g, sd)
	g.skip()
	g.put(roleSection, MarkNone, "Statement per day (txnDate)", "Debits (DR)", "Credits (CR)", "DR records", "CR records")
	first := g.row + 1
	for _, d := range sd.days {
		g.put(roleCell, MarkNone, dateCell(d.Date), d.Debits, d.Credits, d.NDebits, d.NCredits)
	}
	last := g.row
	if g.err != nil {
		return g.err
	}
	for col, wd := range map[string]float64{"A": 46, "B": 18, "C": 18, "D": 12, "E": 16} {
		if err := w.f.SetColWidth(name, col, col, wd); err != nil {
			return err
		}
	}
	if err := w.printSetup(name, true, false); err != nil {
		return err
	}
	return w.dailyChart(name, first, last)
}

// suggestedPairs writes the Summary's block of suggested pairs: how many,
// and the first maxPairs of them (the callOnly call and why).
func (w *Writer) suggestedPairs(g *grid, sd *summaryData) {
	g.skip()
	g.put(roleSection, MarkNone, "Suggested pairs (never counted as matched)", "Count")
	m := MarkNone
	if sd.nPairs > 0 {
		m = MarkLook
	}
	g.put(roleCell, m, "callOnly calls with a likely statementOnly record", sd.nPairs)
	for i := range sd.pairs {
		p := &sd.pairs[i]
		g.put(roleCell, MarkNone, "callOnly "+p.ExternalRef+" at "+p.TS+" IST", amount(p.CallAmount), p.SuggestedPair)
	}
	if more := sd.nPairs - len(sd.pairs); more > 0 && len(sd.pairs) > 0 {
		g.put(roleNote, MarkNone, fmt.Sprintf("… and %d more: filter suggestedPair on the Matching sheet.", more))
	}
	if sd.skipped != "" {
		g.put(roleNote, MarkNone, "None suggested: "+sd.skipped+" (was the call log imported?).")
	}
}

// dailyChart adds the chart of the statement's debits and credits per day
// (rows first..last of the Summary): debits as columns on the left axis,
// credits as a line on a right axis of their own, so that credits a
// hundred times smaller than the debits stay readable.
func (w *Writer) dailyChart(sheet string, first, last int) error {
	if last < first { // a period always has a day; keep the ranges valid anyway
		last = first
	}
	ser := func(col, color string) excelize.ChartSeries {
		return excelize.ChartSeries{
			Name:       fmt.Sprintf("%s!$%s$%d", sheet, col, first-1),
			Categories: fmt.Sprintf("%s!$A$%d:$A$%d", sheet, first, last),
			Values:     fmt.Sprintf("%s!$%s$%d:$%s$%d", sheet, col, first, col, last),
			Fill:       excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}},
			Line:       excelize.LineOptions{Width: 2.25},
			Marker:     excelize.ChartMarker{Symbol: "circle", Size: 5},
		}
	}
	axisFont := excelize.Font{Color: "404040", Size: 9}
	title := func(s string) excelize.ChartTitle {
		return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s, Font: &excelize.Font{Size: 9, Color: "404040"}}}}
	}
	credits := ser("C", "4F81BD")
	return w.f.AddChart(sheet, "G2", &excelize.Chart{
		Type:      excelize.Col,
		Series:    []excelize.ChartSeries{ser("B", "C0504D")},
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Statement debits and credits per day"}}},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 760, Height: 380},
		XAxis: excelize.ChartAxis{NumFmt: excelize.ChartNumFmt{CustomNumFmt: "dd mmm"},
			Font: axisFont, Alignment: excelize.Alignment{TextRotation: -45}},
		YAxis: excelize.ChartAxis{MajorGridLines: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0"},
			Font: axisFont, Title: title("Debits (DR), columns")},
		Format: excelize.GraphicOptions{AltText: "Statement debits (columns, left axis) and credits (line, right axis) per day"},
	}, &excelize.Chart{
		Type:   excelize.Line,
		Series: []excelize.ChartSeries{credits},
		YAxis: excelize.ChartAxis{Secondary: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0"},
			Font: axisFont, Title: title("Credits (CR), line")},
	})
}
