package export

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// amount is an exact amount of the summary JSON: a Summary cell shows it
// as a number ("" is 0).
type amount string

// pair is one row of summary.csv.
type pair struct{ Section, Key, Value string }

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// summaryPairs flattens the summary to the key/value rows of summary.csv:
// section period (from, to, asOf, runId, finishedAt), "pool <account>" per
// pool, calls, outcomes (<outcome>.count / .amount), breaks (<kind>.count /
// .delta), reversals, unsettled (<bucket>.count / .amount), pending and
// daily (<date>.debits / .credits: the statement's Σ DR and Σ CR per day).
func summaryPairs(r *store.ReportRun, days []store.ReportDay) []pair {
	s := &r.Summary
	n := strconv.Itoa
	p := []pair{
		{"period", "from", r.From}, {"period", "to", r.To}, {"period", "asOf", r.AsOf},
		{"period", "runId", strconv.FormatInt(r.ID, 10)}, {"period", "finishedAt", r.FinishedAt},
	}
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
	p = append(p, pair{"pending", "count", n(s.Pending.Count)}, pair{"pending", "amount", orZero(s.Pending.Amount)})
	for _, d := range days {
		p = append(p, pair{"daily", d.Date + ".debits", recon.Money(d.Debits)}, pair{"daily", d.Date + ".credits", recon.Money(d.Credits)})
	}
	return p
}

// summary writes the Summary sheet and summary.csv.
func (w *Writer) summary(r *store.ReportRun, days []store.ReportDay) error {
	if w.o.Format.csv() {
		if err := w.summaryCSV(summaryPairs(r, days)); err != nil {
			return err
		}
	}
	if w.f == nil {
		return nil
	}
	if err := w.summarySheet(r, days); err != nil {
		return fmt.Errorf("export Summary: %w", err)
	}
	return nil
}

func (w *Writer) summaryCSV(pairs []pair) error {
	cf, err := w.openCSV("summary.csv", []string{"section", "key", "value"})
	if err != nil {
		return err
	}
	for _, p := range pairs {
		if err := cf.cw.Write([]string{p.Section, p.Key, p.Value}); err != nil {
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
// (int / int64), an amount (amount / decimal.Decimal), or a date/time.
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
			k, val = Amount, x.InexactFloat64()
		case int:
			k, val = Int, int64(x)
		case int64:
			k = Int
		case time.Time:
			k = DateTime
			if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 {
				k = Date
			}
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

func (w *Writer) summarySheet(r *store.ReportRun, days []store.ReportDay) error {
	s := &r.Summary
	oldest := recon.Buckets[len(recon.Buckets)-1].Name
	const name = "Summary"
	if err := w.newSheet(name); err != nil {
		return err
	}
	g := &grid{w: w, sheet: name}
	g.put(roleTitle, MarkNone, fmt.Sprintf("Reconciliation %s to %s", r.From, r.To))
	g.skip()
	g.put(roleCell, MarkNone, "Period from", dateCell(r.From))
	g.put(roleCell, MarkNone, "Period to", dateCell(r.To))
	g.put(roleCell, MarkNone, "As of", dateCell(r.AsOf))
	g.put(roleCell, MarkNone, "Reconciliation run", r.ID)
	if r.FinishedAt != "" {
		g.put(roleCell, MarkNone, "Finished", cellValue(Stamp, r.FinishedAt))
	}
	g.skip()
	g.put(roleSection, MarkNone, "Pool account", "Opening", "Closing", "Calls", "Debited")
	for _, p := range s.Pools {
		acct := p.Account
		if acct == "" {
			acct = "(unnamed)"
		}
		g.put(roleCell, MarkNone, acct, amount(p.Opening), amount(p.Closing), p.Calls, amount(p.Debited))
	}
	g.skip()
	g.put(roleSection, MarkNone, "Calls", "Count", "Amount")
	g.put(roleCell, MarkNone, "All calls", s.Calls)
	g.put(roleCell, MarkNone, "With a pool debit", s.CallsWithDebit, amount(s.Debited))
	g.put(roleCell, MarkNone, "Failed", s.CallsFailed)
	pm := MarkNone
	if s.CallsPending > 0 {
		pm = MarkLook
	}
	g.put(roleCell, pm, "Pending", s.CallsPending)
	g.put(roleCell, MarkNone, "Statement credits (CR)", nil, amount(s.Credited))
	g.skip()
	g.put(roleSection, MarkNone, "Outcome", "Count", "Amount")
	for _, k := range recon.Outcomes {
		o := s.Outcomes[k]
		m := MarkNone
		if o.Count > 0 {
			switch k {
			case recon.Matched, recon.Reversed:
			case recon.Pending:
				m = MarkLook
			default:
				m = MarkBreak
			}
		}
		g.put(roleCell, m, k, o.Count, amount(o.Amount))
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
	g.put(roleSection, MarkNone, "Reversals", "Count", "Amount", "Unlinked")
	rm := MarkNone
	if s.Reversals.Unlinked > 0 {
		rm = MarkBreak
	}
	g.put(roleCell, rm, "Reversed records", s.Reversals.Count, amount(s.Reversals.Amount), s.Reversals.Unlinked)
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
	g.skip()
	g.put(roleSection, MarkNone, "Statement per day (txnDate)", "Debits (DR)", "Credits (CR)", "DR records", "CR records")
	first := g.row + 1
	for _, d := range days {
		g.put(roleCell, MarkNone, dateCell(d.Date), d.Debits, d.Credits, d.NDebits, d.NCredits)
	}
	last := g.row
	if g.err != nil {
		return g.err
	}
	for col, wd := range map[string]float64{"A": 30, "B": 20, "C": 18, "D": 12, "E": 16} {
		if err := w.f.SetColWidth(name, col, col, wd); err != nil {
			return err
		}
	}
	if err := w.printLandscape(name, true); err != nil {
		return err
	}
	if last < first { // a period always has a day; keep the ranges valid anyway
		last = first
	}
	ser := func(col, color string) excelize.ChartSeries {
		return excelize.ChartSeries{
			Name:       fmt.Sprintf("%s!$%s$%d", name, col, first-1),
			Categories: fmt.Sprintf("%s!$A$%d:$A$%d", name, first, last),
			Values:     fmt.Sprintf("%s!$%s$%d:$%s$%d", name, col, first, col, last),
			Fill:       excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}},
		}
	}
	axisFont := excelize.Font{Color: "404040", Size: 9}
	return w.f.AddChart(name, "G2", &excelize.Chart{
		Type:      excelize.Col,
		Series:    []excelize.ChartSeries{ser("B", "C0504D"), ser("C", "4F81BD")},
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Statement debits and credits per day"}}},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 760, Height: 380},
		XAxis: excelize.ChartAxis{NumFmt: excelize.ChartNumFmt{CustomNumFmt: "dd mmm"},
			Font: axisFont, Alignment: excelize.Alignment{TextRotation: -45}},
		YAxis:  excelize.ChartAxis{MajorGridLines: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0"}, Font: axisFont},
		Format: excelize.GraphicOptions{AltText: "Statement debits and credits per day"},
	})
}
