package ledger

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The groups stage (design: one to many): a call posted as several
// records (the charge, then a surcharge, each with its svcOrderId and the
// call's clientOrderId), or several calls settled in one record, is
// matched as one group when its parts sum to the whole exactly. The calls
// whose record's amount differs from theirs are held to the end (the
// amountMismatch and duplicateDebit rows that may be parts); there each
// held call with the debit records no call links of its externalRef
// (the suggested-pairs stage's statementOnly records) forms a group when
// the call's amount is its record's plus theirs; the held calls linked to
// one record form one when their amounts sum to the record's. A group's
// rows are matched, each with the group's id and a note naming its parts
// (the summary stage counts the groups: a call's row counts its amount, a
// record's row in a group none, so that the whole counts once); the other
// rows held are written as they would have been. The pool
// arithmetic is not touched: each call is chained on its own.

// groupedRow is a call's row held for the groups: its row as the matching
// stage made it (before any duplicate verdict), and what it counts for.
type groupedRow struct {
	k      kcall
	m      Match
	amount decimal.Decimal
}

// groups is the groups stage.
type groups struct {
	max     int // MaxOrphans unless set
	isDup   func(ref string) bool
	emit    func(m Match, amount decimal.Decimal, ts int64, rec *wrec) // where the rows go (the tally)
	compare func(k *kcall, m *Match)                                   // a call's row, before it goes (the differences stage)

	held    []groupedRow
	skipped bool // more than max held: the grouping was given up
}

// hold holds a call's row that may be part of a group: a debit linked to
// a record of the period (not reversed) whose amount differs from its own.
// It reports whether it took the row; the caller writes those it did not.
func (g *groups) hold(k *kcall, m Match, amount decimal.Decimal) bool {
	r := k.rec
	if g.skipped || k.pending || r == nil || r.far == farOutside || r.reversal != "" || k.money == r.money {
		return false
	}
	limit := g.max
	if limit <= 0 {
		limit = MaxOrphans
	}
	if len(g.held) >= limit {
		g.skipped = true // hold no more: write those held, as they are now
		g.release(g.held)
		g.held = nil
		return false
	}
	g.held = append(g.held, groupedRow{k: *k, m: m, amount: amount})
	return true
}

// end forms the groups of the rows held and of recs (the records no call
// links: the suggested-pairs stage's), writes their rows and the other
// rows held, and returns the records left to the suggested pairs.
func (g *groups) end(recs []*wrec) []*wrec {
	byClient := map[string][]*wrec{}
	for _, r := range recs {
		if r.client != "" {
			byClient[r.client] = append(byClient[r.client], r)
		}
	}
	keyOf := func(h *groupedRow) string { return cmp.Or(h.k.ref, h.k.rec.client) }
	perKey := map[string]int{}
	for i := range g.held {
		perKey[keyOf(&g.held[i])]++
	}
	taken := map[*wrec]bool{}
	var rest []groupedRow
	for i := range g.held {
		h := &g.held[i]
		key := keyOf(h)
		parts := byClient[key]
		if key == "" || perKey[key] > 1 || len(parts) == 0 || !h.k.amount.Equal(sumRecs(h.k.rec, parts)) {
			rest = append(rest, *h)
			continue
		}
		g.oneToMany(h, parts)
		for _, r := range parts {
			taken[r] = true
		}
	}
	g.release(g.manyToOne(rest))
	g.held = nil
	return slices.DeleteFunc(recs, func(r *wrec) bool { return taken[r] })
}

// oneToMany writes the group of a call and the records it was posted as:
// its own record and parts, which sum to its amount.
func (g *groups) oneToMany(h *groupedRow, parts []*wrec) {
	id := "G-" + cmp.Or(h.k.ref, h.k.rec.client)
	all := append([]*wrec{h.k.rec}, parts...)
	amounts, names := make([]string, len(all)), make([]string, len(all))
	for i, r := range all {
		amounts[i], names[i] = r.money, r.svc
	}
	m := h.m
	m.Outcome, m.Delta, m.Group = recon.Matched, "", id
	m.Note = fmt.Sprintf("group %s: call %s = %d records %s (%s)", id, h.k.money, len(all),
		strings.Join(amounts, " + "), strings.Join(names, ", "))
	g.compare(&h.k, &m)
	g.emit(m, h.amount, h.k.ts, nil)
	for _, r := range parts {
		g.emit(Match{Outcome: recon.Matched, TS: fmtTS(r.ts), SvcOrderID: r.svc, ExternalRef: r.client, StatementAmount: r.money,
			Group: id, Note: fmt.Sprintf("group %s: part of call %d's %s (%d records)", id, h.k.id, h.k.money, len(all))},
			decimal.Zero, r.ts, r)
	}
}

// manyToOne writes the groups of several calls linked to one record whose
// amounts sum to the record's, and returns the rows that form none.
func (g *groups) manyToOne(held []groupedRow) (rest []groupedRow) {
	byRec := map[*wrec][]int{}
	var order []*wrec
	for i := range held {
		r := held[i].k.rec
		if byRec[r] == nil {
			order = append(order, r)
		}
		byRec[r] = append(byRec[r], i)
	}
	grouped := make([]bool, len(held))
	for _, r := range order {
		is := byRec[r]
		sum := decimal.Zero
		for _, i := range is {
			sum = sum.Add(held[i].k.amount)
		}
		if len(is) < 2 || !sum.Equal(r.amount) {
			continue
		}
		id := "G-" + r.svc
		amounts := make([]string, len(is))
		for n, i := range is {
			amounts[n] = held[i].k.money
		}
		note := fmt.Sprintf("group %s: %d calls %s = record %s %s", id, len(is), strings.Join(amounts, " + "), r.svc, r.money)
		for _, i := range is {
			h := &held[i]
			m := h.m
			m.Outcome, m.Delta, m.Group, m.Note = recon.Matched, "", id, note
			g.compare(&h.k, &m)
			g.emit(m, h.amount, h.k.ts, nil)
			grouped[i] = true
		}
	}
	for i := range held {
		if !grouped[i] {
			rest = append(rest, held[i])
		}
	}
	return rest
}

// release writes rows held that form no group, as they would have been
// written: a duplicateDebit row when their externalRef is known to be
// debited twice.
func (g *groups) release(rows []groupedRow) {
	for i := range rows {
		h := &rows[i]
		m := h.m
		if g.isDup(h.k.ref) {
			asDuplicate(&m, h.k.delta())
		}
		g.compare(&h.k, &m)
		g.emit(m, h.amount, h.k.ts, nil)
	}
}

// sumRecs is the sum of rec's amount and the parts'.
func sumRecs(rec *wrec, parts []*wrec) decimal.Decimal {
	sum := rec.amount
	for _, r := range parts {
		sum = sum.Add(r.amount)
	}
	return sum
}
