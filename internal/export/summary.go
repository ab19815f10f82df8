package export

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
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

// anyRecord reports whether days hold a debit or credit record.
func anyRecord(days []store.ReportDay) bool {
	for _, d := range days {
		if d.NDebits > 0 || d.NCredits > 0 {
			return true
		}
	}
	return false
}

// loadVerdict reads run r's break totals and gives its bridges and its
// verdict; records says whether the statement has a record of the period
// (asked only when nothing else was seen: verdictOf).
func loadVerdict(ctx context.Context, db Reports, r *ledger.Run, records func() (bool, error)) (verdict, []bridge, error) {
	totals, err := db.ReportBreakTotals(ctx, r.ID)
	if err != nil {
		return verdict{}, nil, err
	}
	br, err := bridges(&r.Summary, totals)
	if err != nil {
		return verdict{}, nil, fmt.Errorf("run %d: %w", r.ID, err)
	}
	v, err := verdictOf(r, records, br, totals)
	return v, br, err
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
	if sd.verdict, sd.bridges, err = loadVerdict(ctx, db, r, func() (bool, error) { return anyRecord(sd.days), nil }); err != nil {
		return nil, err
	}
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
// .amount); pending; fees (feesPairs); suggestedPairs (count, and the pairs the Summary
// lists: pairsCSV) and daily (the statement per day: dailyCSV). It holds
// what the Summary sheet shows.
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
	for _, k := range csvOutcomes {
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
	p = append(p, pair{"pending", "count", n(s.Pending.Count)}, pair{"pending", "amount", orZero(s.Pending.Amount)})
	p = append(p, feesPairs(s.Fees)...)
	return append(append(p, pairsCSV(sd)...), dailyCSV(sd.days)...)
}

// pairsCSV are summary.csv's suggested pairs: how many, then, for each the
// Summary lists (the first maxPairs), <n>.callId, .externalRef, .timestamp,
// .callAmount and .suggestedPair (the statement record and the rule).
func pairsCSV(sd *summaryData) []pair {
	const sec = "suggestedPairs"
	p := []pair{{sec, "count", strconv.Itoa(sd.nPairs)}}
	for i := range sd.pairs {
		m, k := &sd.pairs[i], strconv.Itoa(i+1)+"."
		p = append(p, pair{sec, k + "callId", id(m.CallID)}, pair{sec, k + "externalRef", m.ExternalRef},
			pair{sec, k + "timestamp", m.TS}, pair{sec, k + "callAmount", m.CallAmount},
			pair{sec, k + "suggestedPair", m.SuggestedPair})
	}
	return p
}

// dailyCSV are summary.csv's statement per day: <date>.debits, .credits
// (Σ DR and Σ CR), .debitRecords and .creditRecords (how many).
func dailyCSV(days []store.ReportDay) []pair {
	var p []pair
	for _, d := range days {
		p = append(p, pair{"daily", d.Date + ".debits", recon.Money(d.Debits)}, pair{"daily", d.Date + ".credits", recon.Money(d.Credits)},
			pair{"daily", d.Date + ".debitRecords", strconv.FormatInt(d.NDebits, 10)}, pair{"daily", d.Date + ".creditRecords", strconv.FormatInt(d.NCredits, 10)})
	}
	return p
}

// summary writes the Summary sheet and summary.csv.
func (w *Writer) summary(sd *summaryData) error {
	if w.o.Format.csv() {
		if err := w.summaryCSV(slices.Concat(summaryPairs(sd), evidencePairs(w.ev), matchingPairs(&sd.run.Summary))); err != nil {
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
	w.tables = append(w.tables, TableRows{Sheet: "Summary", File: "summary.csv", Rows: int64(len(pairs))})
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

// span writes text in a row of its own, across the Summary's columns
// (merged), wrapped, the row as high as the text needs.
func (g *grid) span(role int, m Mark, text string) {
	g.row++
	size := float64(fontSize)
	if role == roleVerdict {
		size = verdictSize
	}
	var width float64
	for _, wd := range summaryWidths {
		width += wd
	}
	g.merged(1, len(summaryWidths), text, g.w.style(Text, m, role), lines(text, width*fontSize/size), size)
}

// wrapped writes text, wrapped, in the current row from column col to the
// Summary's last column (merged), and makes the row as high as it needs.
func (g *grid) wrapped(col int, text string) {
	var width float64
	for _, wd := range summaryWidths[col-1:] {
		width += wd
	}
	g.merged(col, len(summaryWidths), text, g.w.style(Prose, MarkNone, roleCell), lines(text, width), fontSize)
}

// merged writes text to the cells from to of the current row, merged,
// with style st, and sets the row's height for n lines of type size pt.
func (g *grid) merged(from, to int, text string, st, n int, size float64) {
	if g.err != nil {
		return
	}
	a, _ := excelize.CoordinatesToCellName(from, g.row)
	b, _ := excelize.CoordinatesToCellName(to, g.row)
	f := g.w.f
	if g.err = f.SetCellValue(g.sheet, a, text); g.err != nil {
		return
	}
	if g.err = f.SetCellStyle(g.sheet, a, b, st); g.err != nil { // the fill across the row
		return
	}
	if g.err = f.MergeCell(g.sheet, a, b); g.err != nil {
		return
	}
	g.err = f.SetRowHeight(g.sheet, g.row, rowHeight(math.Ceil(float64(n)*size*lineHeight/fontSize)))
}

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

// summaryWidths are the widths of the Summary's columns A to E, in
// characters: the longest label, a date-time with its zone, amounts and
// counts.
var summaryWidths = []float64{50, 26, 18, 12, 16}

// summarySheet writes the Summary: the verdict, the bridge per pool
// account, the period, then the counts and sums of every finding, the
// suggested pairs, the statement per day and its chart below it.
func (w *Writer) summarySheet(sd *summaryData) error {
	const name = "Summary"
	if err := w.newSheet(name); err != nil {
		return err
	}
	g := &grid{w: w, sheet: name}
	summaryTop(g, sd)
	summaryPeriod(g, sd.run)
	summaryEvidence(g, w.ev)
	summaryFindings(g, &sd.run.Summary)
	summaryMatching(g, &sd.run.Summary)
	summaryFees(g, sd.run.Summary.Fees)
	suggestedPairs(g, sd)
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
	for i, wd := range summaryWidths {
		col, _ := excelize.ColumnNumberToName(i + 1)
		if err := w.f.SetColWidth(name, col, col, wd); err != nil {
			return err
		}
	}
	if err := w.printSetup(name, page{portrait: true, widths: summaryWidths}); err != nil {
		return err
	}
	return w.dailyChart(name, first, last)
}

// summaryTop writes the verdict, the title, the note on times and the
// bridge of every pool account.
func summaryTop(g *grid, sd *summaryData) {
	r, v := sd.run, &sd.verdict
	vm := MarkBreak
	if v.Reconciled {
		vm = MarkGood
	}
	g.span(roleVerdict, vm, v.Text)
	g.put(roleTitle, MarkNone, fmt.Sprintf("Reconciliation %s to %s", r.From, r.To))
	g.span(roleSpan, MarkNone, "Every time in this workbook is IST (UTC+05:30). The Legend sheet explains every outcome, break kind and age bucket.")
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
}

// summaryPeriod writes the period and the run, the pool accounts and the
// calls.
func summaryPeriod(g *grid, r *ledger.Run) {
	s := &r.Summary
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
}

// summaryFindings writes the counts and sums of the outcomes, breaks,
// reversals, unsettled orders by age and pending calls.
func summaryFindings(g *grid, s *recon.Summary) {
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
	oldest := recon.Buckets[len(recon.Buckets)-1].Name
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
}

// suggestedPairs writes the Summary's block of suggested pairs: how many,
// and the first maxPairs of them: the callOnly call (its id, time and
// amount) and the statement record suggested for it (its svcOrderId and
// the rule, as the Matching sheet's suggestedPair says).
func suggestedPairs(g *grid, sd *summaryData) {
	g.skip()
	g.put(roleSection, MarkNone, "Suggested pairs (never counted as matched)", "Count")
	m := MarkNone
	if sd.nPairs > 0 {
		m = MarkLook
	}
	g.put(roleCell, m, "callOnly calls with a likely statementOnly record", sd.nPairs)
	for i := range sd.pairs {
		p := &sd.pairs[i]
		g.put(roleCell, MarkNone, pairCall(p), amount(p.CallAmount))
		g.wrapped(3, pairText(p))
	}
	if more := sd.nPairs - len(sd.pairs); more > 0 && len(sd.pairs) > 0 {
		g.span(roleSpan, MarkNone, fmt.Sprintf("… and %d more: filter suggestedPair on the Matching sheet.", more))
	}
	if sd.skipped != "" {
		g.span(roleSpan, MarkNone, "None suggested: "+sd.skipped+" (was the call log imported?).")
	}
}

// pairCall names the call of a suggested pair: "call 17 at 2026-11-22
// 13:33:56 IST" (callId, as on the Matching sheet).
func pairCall(p *ledger.Match) string {
	parts := []string{"call"}
	if p.CallID != 0 {
		parts = append(parts, strconv.FormatInt(p.CallID, 10))
	}
	if p.TS != "" {
		parts = append(parts, "at", p.TS, "IST")
	}
	return strings.Join(parts, " ")
}

// pairText is what a suggested pair says beside its call: the call's
// externalRef, when it has one, and the suggestion (the statement record's
// svcOrderId and the rule).
func pairText(p *ledger.Match) string {
	if p.ExternalRef == "" {
		return p.SuggestedPair
	}
	return "externalRef " + p.ExternalRef + "; " + p.SuggestedPair
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
	axisFont := excelize.Font{Color: "404040", Size: fontSize}
	title := func(s string) excelize.ChartTitle {
		return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s, Font: &excelize.Font{Size: fontSize, Color: "404040"}}}}
	}
	credits := ser("C", "4F81BD")
	// Below the table, as wide as the Summary's columns: it prints on the
	// Summary's pages at the Summary's scale.
	var px float64
	for _, wd := range summaryWidths {
		px += wd*7 + 5
	}
	return w.f.AddChart(sheet, fmt.Sprintf("A%d", last+2), &excelize.Chart{
		Type:   excelize.Col,
		Series: []excelize.ChartSeries{ser("B", "C0504D")},
		Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Statement debits and credits per day",
			Font: &excelize.Font{Size: 14, Bold: true}}}},
		Legend:    excelize.ChartLegend{Position: "bottom", Font: &excelize.Font{Size: fontSize}},
		Dimension: excelize.ChartDimension{Width: uint(px) - 10, Height: 400},
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
