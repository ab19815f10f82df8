package export

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jszwec/csvutil"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The fixed keys of the summary JSON, in the order they are shown.
var (
	outcomeKeys = []string{"matched", "amountMismatch", "callOnly", "statementOnly", "duplicateDebit", "pending", "reversed"}
	breakKeys   = []string{"arithmetic", "gap", "explainedGap"}
	bucketKeys  = []string{"0-1", "2-3", "4-7", "8-30", ">30"}
)

type countAmount struct {
	Count  svcapi.Int    `json:"count"`
	Amount svcapi.String `json:"amount"`
	Delta  svcapi.String `json:"delta"` // breaks
}

// summary is recon_runs.summary (the ledger's contract). Amounts stay the
// exact decimal text the ledger wrote.
type summary struct {
	From  string `json:"from"`
	To    string `json:"to"`
	AsOf  string `json:"asOf"`
	Pools []struct {
		Account string        `json:"account"`
		Opening svcapi.String `json:"opening"`
		Closing svcapi.String `json:"closing"`
		Calls   svcapi.Int    `json:"calls"`
		Debited svcapi.String `json:"debited"`
	} `json:"pools"`
	Calls          svcapi.Int             `json:"calls"`
	CallsWithDebit svcapi.Int             `json:"callsWithDebit"`
	CallsFailed    svcapi.Int             `json:"callsFailed"`
	CallsPending   svcapi.Int             `json:"callsPending"`
	Debited        svcapi.String          `json:"debited"`
	Credited       svcapi.String          `json:"credited"`
	Outcomes       map[string]countAmount `json:"outcomes"`
	Breaks         map[string]countAmount `json:"breaks"`
	Reversals      struct {
		Count    svcapi.Int    `json:"count"`
		Amount   svcapi.String `json:"amount"`
		Unlinked svcapi.Int    `json:"unlinked"`
	} `json:"reversals"`
	Unsettled map[string]countAmount `json:"unsettled"`
	Pending   countAmount            `json:"pending"`
}

func parseSummary(s string) (*summary, error) {
	var sum summary
	if err := json.Unmarshal([]byte(s), &sum); err != nil {
		return nil, fmt.Errorf("decode run summary: %w", err)
	}
	return &sum, nil
}

// day is one day's statement totals.
type day struct {
	date             string
	debits, credits  decimal.Decimal
	nDebit, nCredits int64
}

// dailyTotals sums the statement's DR and CR records per txn_date, exactly,
// for every day of the period (zero on days without records).
func dailyTotals(ctx context.Context, db *sql.DB, from, to string) ([]day, error) {
	f, err := time.Parse(time.DateOnly, from)
	if err != nil {
		return nil, fmt.Errorf("daily totals: from %q: %w", from, err)
	}
	t, err := time.Parse(time.DateOnly, to)
	if err != nil {
		return nil, fmt.Errorf("daily totals: to %q: %w", to, err)
	}
	var days []day
	idx := map[string]int{}
	for d := f; !d.After(t); d = d.AddDate(0, 0, 1) {
		idx[d.Format(time.DateOnly)] = len(days)
		days = append(days, day{date: d.Format(time.DateOnly)})
	}
	rows, err := db.QueryContext(ctx, `SELECT txn_date, txn_mode, txn_charged_value, svc_order_id
		FROM records WHERE kind = 'statement' AND txn_date BETWEEN ? AND ? AND txn_mode IN ('DR', 'CR')`, from, to)
	if err != nil {
		return nil, fmt.Errorf("daily totals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var date, mode, amount, id string
		if err := rows.Scan(&date, &mode, &amount, &id); err != nil {
			return nil, fmt.Errorf("daily totals: %w", err)
		}
		a, err := decimal.NewFromString(amount)
		if err != nil {
			return nil, fmt.Errorf("daily totals: record %s: txnChargedValue %q: %w", id, amount, err)
		}
		i, ok := idx[date]
		if !ok {
			continue
		}
		if mode == "DR" {
			days[i].debits = days[i].debits.Add(a)
			days[i].nDebit++
		} else {
			days[i].credits = days[i].credits.Add(a)
			days[i].nCredits++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("daily totals: %w", err)
	}
	return days, nil
}

// money is the exact text of a sum, with at least two decimals.
func money(d decimal.Decimal) string {
	if d.Exponent() >= -2 {
		return d.StringFixed(2)
	}
	return d.String()
}

// pair is one row of summary.csv.
type pair struct {
	Section string `csv:"section"`
	Key     string `csv:"key"`
	Value   string `csv:"value"`
}

func orZero(s svcapi.String) string {
	if s == "" {
		return "0"
	}
	return string(s)
}

// summaryPairs flattens the summary to the key/value rows of summary.csv:
// section period (from, to, asOf, runId, finishedAt), "pool <account>" per
// pool, calls, outcomes (<outcome>.count / .amount), breaks (<kind>.count /
// .delta), reversals, unsettled (<bucket>.count / .amount), pending and
// daily (<date>.debits / .credits: the statement's Σ DR and Σ CR per day).
func summaryPairs(r *run, s *summary, days []day) []pair {
	n := func(i svcapi.Int) string { return fmt.Sprint(int64(i)) }
	p := []pair{
		{"period", "from", r.from}, {"period", "to", r.to}, {"period", "asOf", r.asOf},
		{"period", "runId", fmt.Sprint(r.id)}, {"period", "finishedAt", r.finishedAt},
	}
	for _, pl := range s.Pools {
		sec := "pool " + pl.Account
		p = append(p, pair{sec, "opening", orZero(pl.Opening)}, pair{sec, "closing", orZero(pl.Closing)},
			pair{sec, "calls", n(pl.Calls)}, pair{sec, "debited", orZero(pl.Debited)})
	}
	p = append(p, pair{"calls", "calls", n(s.Calls)}, pair{"calls", "callsWithDebit", n(s.CallsWithDebit)},
		pair{"calls", "callsFailed", n(s.CallsFailed)}, pair{"calls", "callsPending", n(s.CallsPending)},
		pair{"calls", "debited", orZero(s.Debited)}, pair{"calls", "credited", orZero(s.Credited)})
	for _, k := range outcomeKeys {
		o := s.Outcomes[k]
		p = append(p, pair{"outcomes", k + ".count", n(o.Count)}, pair{"outcomes", k + ".amount", orZero(o.Amount)})
	}
	for _, k := range breakKeys {
		b := s.Breaks[k]
		p = append(p, pair{"breaks", k + ".count", n(b.Count)}, pair{"breaks", k + ".delta", orZero(b.Delta)})
	}
	p = append(p, pair{"reversals", "count", n(s.Reversals.Count)}, pair{"reversals", "amount", orZero(s.Reversals.Amount)},
		pair{"reversals", "unlinked", n(s.Reversals.Unlinked)})
	for _, k := range bucketKeys {
		u := s.Unsettled[k]
		p = append(p, pair{"unsettled", k + ".count", n(u.Count)}, pair{"unsettled", k + ".amount", orZero(u.Amount)})
	}
	p = append(p, pair{"pending", "count", n(s.Pending.Count)}, pair{"pending", "amount", orZero(s.Pending.Amount)})
	for _, d := range days {
		p = append(p, pair{"daily", d.date + ".debits", money(d.debits)}, pair{"daily", d.date + ".credits", money(d.credits)})
	}
	return p
}

// summary writes the Summary sheet and summary.csv.
func (w *writer) summary(r *run, s *summary, days []day) error {
	if w.o.Format.csv() {
		if err := w.summaryCSV(summaryPairs(r, s, days)); err != nil {
			return err
		}
	}
	if w.f == nil {
		return nil
	}
	if err := w.summarySheet(r, s, days); err != nil {
		return fmt.Errorf("export Summary: %w", err)
	}
	return nil
}

func (w *writer) summaryCSV(pairs []pair) error {
	out, err := create(w.o.Dir, "summary.csv")
	if err != nil {
		return err
	}
	w.outs = append(w.outs, out)
	if w.o.BOM {
		if _, err := out.f.WriteString("\uFEFF"); err != nil {
			return fmt.Errorf("write summary.csv: %w", err)
		}
	}
	cw := csv.NewWriter(out.f)
	cw.UseCRLF = true
	enc := csvutil.NewEncoder(cw)
	if err := enc.Encode(pairs); err != nil {
		return fmt.Errorf("write summary.csv: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write summary.csv: %w", err)
	}
	return nil
}

// grid writes cells of the (small, not streamed) Summary sheet.
type grid struct {
	w     *writer
	sheet string
	row   int
	err   error
}

// put writes one row from column A: each value is a string, a count
// (int64), an amount (svcapi.String / decimal.Decimal), or a date/time.
func (g *grid) put(role int, m mark, vals ...any) {
	g.row++
	for i, v := range vals {
		if g.err != nil {
			return
		}
		cell, _ := excelize.CoordinatesToCellName(i+1, g.row)
		k := kText
		r := role
		if role == roleSection && i > 0 {
			k = kAmount // right-aligned over the numbers
		}
		if role == roleCell && i == 0 {
			r = roleLabel
		}
		var val any = v
		switch x := v.(type) {
		case nil:
			if m == markNone && role == roleCell {
				continue
			}
		case svcapi.String:
			k, val = kAmount, cellValue(kAmount, orZero(x))
		case decimal.Decimal:
			k, val = kAmount, x.InexactFloat64()
		case svcapi.Int:
			k, val = kInt, int64(x)
		case int64:
			k = kInt
		case time.Time:
			k = kDateTime
			if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 {
				k = kDate
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

func dateCell(s string) any { return cellValue(kDate, s) }

func (w *writer) summarySheet(r *run, s *summary, days []day) error {
	const name = "Summary"
	if err := w.newSheet(name); err != nil {
		return err
	}
	g := &grid{w: w, sheet: name}
	g.put(roleTitle, markNone, fmt.Sprintf("Reconciliation %s to %s", r.from, r.to))
	g.skip()
	g.put(roleCell, markNone, "Period from", dateCell(r.from))
	g.put(roleCell, markNone, "Period to", dateCell(r.to))
	g.put(roleCell, markNone, "As of", dateCell(r.asOf))
	g.put(roleCell, markNone, "Reconciliation run", r.id)
	if r.finishedAt != "" {
		g.put(roleCell, markNone, "Finished", cellValue(kStamp, r.finishedAt))
	}
	g.skip()
	g.put(roleSection, markNone, "Pool account", "Opening", "Closing", "Calls", "Debited")
	for _, p := range s.Pools {
		acct := p.Account
		if acct == "" {
			acct = "(unnamed)"
		}
		g.put(roleCell, markNone, acct, p.Opening, p.Closing, p.Calls, p.Debited)
	}
	g.skip()
	g.put(roleSection, markNone, "Calls", "Count", "Amount")
	g.put(roleCell, markNone, "All calls", s.Calls)
	g.put(roleCell, markNone, "With a pool debit", s.CallsWithDebit, s.Debited)
	g.put(roleCell, markNone, "Failed", s.CallsFailed)
	pm := markNone
	if s.CallsPending > 0 {
		pm = markLook
	}
	g.put(roleCell, pm, "Pending", s.CallsPending)
	g.put(roleCell, markNone, "Statement credits (CR)", nil, s.Credited)
	g.skip()
	g.put(roleSection, markNone, "Outcome", "Count", "Amount")
	for _, k := range outcomeKeys {
		o := s.Outcomes[k]
		m := markNone
		if o.Count > 0 {
			switch k {
			case "matched", "reversed":
			case "pending":
				m = markLook
			default:
				m = markBreak
			}
		}
		g.put(roleCell, m, k, o.Count, o.Amount)
	}
	g.skip()
	g.put(roleSection, markNone, "Break", "Count", "Delta")
	for _, k := range breakKeys {
		b := s.Breaks[k]
		m := markNone
		if b.Count > 0 {
			m = markBreak
			if k == "explainedGap" {
				m = markLook
			}
		}
		g.put(roleCell, m, k, b.Count, b.Delta)
	}
	g.skip()
	g.put(roleSection, markNone, "Reversals", "Count", "Amount", "Unlinked")
	rm := markNone
	if s.Reversals.Unlinked > 0 {
		rm = markBreak
	}
	g.put(roleCell, rm, "Reversed records", s.Reversals.Count, s.Reversals.Amount, s.Reversals.Unlinked)
	g.skip()
	g.put(roleSection, markNone, "Unsettled orders, age in days", "Count", "Amount")
	for _, k := range bucketKeys {
		u := s.Unsettled[k]
		m := markNone
		if k == ">30" && u.Count > 0 {
			m = markLook
		}
		g.put(roleCell, m, k, u.Count, u.Amount)
	}
	g.skip()
	g.put(roleSection, markNone, "Pending", "Count", "Amount")
	g.put(roleCell, markNone, "Pending calls", s.Pending.Count, s.Pending.Amount)
	g.skip()
	g.put(roleSection, markNone, "Statement per day (txnDate)", "Debits (DR)", "Credits (CR)", "DR records", "CR records")
	first := g.row + 1
	for _, d := range days {
		g.put(roleCell, markNone, dateCell(d.date), d.debits, d.credits, d.nDebit, d.nCredits)
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
