package export

import (
	"context"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// sheet is one table of an export with its rows.
type sheet struct {
	Table
	rows Rows
}

// rowsOf turns a store stream into table rows: fill writes one value's
// cells (reused from row to row) and returns its mark.
func rowsOf[T any](seq iter.Seq2[*T, error], n int, fill func(v *T, cells []string) Mark) Rows {
	return func(yield func(Row, error) bool) {
		cells := make([]string, n)
		for v, err := range seq {
			if err != nil {
				yield(Row{}, err)
				return
			}
			m := fill(v, cells)
			if !yield(Row{Cells: cells, Mark: m}, nil) {
				return
			}
		}
	}
}

// id is the text of a row id; 0 (none) is empty.
func id(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// newSheet names a table and its CSV file (the name in lower case).
func newSheet(name string, cols []Column, rows Rows) sheet {
	return sheet{Table{Sheet: name, File: strings.ToLower(name) + ".csv", Columns: cols}, rows}
}

// matchCols are the columns of Matching, Duplicates and Pending.
var matchCols = []Column{
	{"outcome", Text, false},
	{"timestamp", DateTime, false},
	{"operation", Text, false},
	{"externalRef", Text, false},
	{"orderid", Text, false},
	{"statuscode", Text, false},
	{"svcOrderId", Text, false},
	{"callAmount", Amount, false},
	{"statementAmount", Amount, false},
	{"delta", Delta, false},
	{"note", Text, false},
	{"callId", Int, false},
	{"suggestedPair", Text, false},
	{"group", Text, false}, // after exception and life (matchTail)
}

// matchTail is how many of matchCols come after exception and life
// (lifeTails).
const matchTail = 1

// matchSheet is Matching, Duplicates or Pending.
func matchSheet(name string, seq iter.Seq2[*ledger.Match, error]) sheet {
	return newSheet(name, matchCols, matchRows(seq))
}

func matchRows(seq iter.Seq2[*ledger.Match, error]) Rows {
	return rowsOf(seq, len(matchCols), func(m *ledger.Match, c []string) Mark {
		c[0], c[1], c[2], c[3], c[4], c[5] = m.Outcome, m.TS, m.Operation, m.ExternalRef, m.OrderID, m.StatusCode
		c[6], c[7], c[8], c[9], c[10], c[11] = m.SvcOrderID, m.CallAmount, m.StatementAmount, m.Delta, m.Note, id(m.CallID)
		c[12], c[13] = m.SuggestedPair, m.Group
		switch m.Outcome {
		case recon.Matched, recon.Reversed:
			return MarkNone
		case recon.Pending:
			return MarkLook
		}
		return MarkBreak
	})
}

// The key fields of a record (Record's own, not in recon.RecordFields).
const (
	colAccount    = "accountNumber"
	colSvcOrderID = "svcOrderId"
)

// keySlot stands for svcOrderId in recordOrder.
const keySlot = -1

// recordOrder lists the recon.RecordFields indexes (keySlot: svcOrderId) of
// the Statement or Orders sheet of kind k, after accountNumber: the
// record's time, date and ids first, then every other field kind k
// carries, in the API's order.
func recordOrder(k recon.Kind) []int {
	lead := []int{recon.FTxnDateTime, recon.FTxnDate, keySlot, recon.FClientOrderID}
	order := append([]int(nil), lead...)
	for i, f := range recon.RecordFields {
		if i == recon.FTxnDateTime || i == recon.FTxnDate || i == recon.FClientOrderID || !f.Carries(k) {
			continue
		}
		order = append(order, i)
	}
	return order
}

// recordSheet builds the Statement or Orders sheet: the key fields and every
// field of the kind (recon.RecordFields: header, cell kind, mask), the sync
// times, then extra (derived) columns that derive fills.
func recordSheet(name string, k recon.Kind, extra []Column, seq iter.Seq2[*store.ReportRecord, error],
	derive func(r *store.ReportRecord, cells []string)) sheet {
	order := recordOrder(k)
	cols := []Column{{colAccount, Text, false}}
	for _, i := range order {
		if i == keySlot {
			cols = append(cols, Column{colSvcOrderID, Text, false})
			continue
		}
		f := recon.RecordFields[i]
		cols = append(cols, Column{f.API, cellKinds[f.Type], f.Mask})
	}
	cols = append(cols, Column{"firstSyncedAt", Stamp, false}, Column{"lastSyncedAt", Stamp, false})
	base := len(cols)
	cols = append(cols, extra...)
	keys := 1 + slices.Index(order, keySlot) + 1 // accountNumber … svcOrderId
	rows := rowsOf(seq, len(cols), func(r *store.ReportRecord, c []string) Mark {
		c[0] = r.Account
		for j, i := range order {
			if i == keySlot {
				c[j+1] = r.SvcOrderID
			} else {
				c[j+1] = r.Values[i]
			}
		}
		c[base-2], c[base-1] = r.FirstSyncedAt, r.LastSyncedAt
		if derive != nil {
			derive(r, c[base:])
		}
		return MarkNone
	})
	s := newSheet(name, cols, rows)
	s.Keys = keys
	return s
}

// ageDays is the age in days of a record dated date (YYYY-MM-DD) on the
// day asOf; ok is false when a date does not parse.
func ageDays(asOf time.Time, date string) (int, bool) {
	d, err := time.Parse(recon.DateLayout, date)
	if err != nil {
		return 0, false
	}
	return int(asOf.Sub(d).Hours() / 24), true
}

func boolText(b bool) string { return strconv.FormatBool(b) }

// reconSheets are the sheets after Summary, in workbook order.
func reconSheets(ctx context.Context, db Reports, r *ledger.Run) []sheet {
	breaks := newSheet("Breaks", []Column{
		{"kind", Text, false},
		{"poolAccount", Text, false},
		{"timestamp", DateTime, false},
		{"operation", Text, false},
		{"externalRef", Text, false},
		{"orderid", Text, false},
		{"expected", Amount, false},
		{"actual", Amount, false},
		{"delta", Delta, false},
		{"explainedBy", Text, false},
		{"note", Text, false},
		{"callId", Int, false},
		{"prevCallId", Int, false},
	}, rowsOf(db.ReportBreaks(ctx, r.ID), 13, func(b *ledger.Break, c []string) Mark {
		c[0], c[1], c[2], c[3], c[4], c[5] = b.Kind, b.PoolAccount, b.TS, b.Operation, b.ExternalRef, b.OrderID
		c[6], c[7], c[8] = recon.Money(b.Expected), recon.Money(b.Actual), recon.Money(b.Delta)
		c[9], c[10], c[11], c[12] = strings.Join(b.ExplainedBy, ","), b.Note, id(b.CallID), id(b.PrevCallID)
		if b.Kind == recon.BreakExplainedGap {
			return MarkLook
		}
		return MarkBreak
	}))
	matching := matchSheet("Matching", db.ReportMatches(ctx, r.ID))
	differences := differencesSheet(ctx, db, r)
	duplicates := matchSheet("Duplicates", db.ReportDuplicates(ctx, r.ID))
	pending := matchSheet("Pending", db.ReportPending(ctx, r.ID))
	reversals := newSheet("Reversals", []Column{
		{"svcOrderId", Text, false},
		{"txnDateTime", DateTime, false},
		{"txnChargedValue", Amount, false},
		{"reversalSvcOrderId", Text, false},
		{"reversalFound", Bool, false},
		{"reversalTxnDateTime", DateTime, false},
		{"reversalAmount", Amount, false},
		{"note", Text, false},
	}, rowsOf(db.ReportReversals(ctx, r.ID), 8, func(v *ledger.Reversal, c []string) Mark {
		c[0], c[1], c[2], c[3] = v.SvcOrderID, v.TxnDateTime, v.Amount, v.ReversalSvcOrderID
		c[4], c[5], c[6], c[7] = boolText(v.Found), v.ReversalTxnDateTime, v.ReversalAmount, v.Note
		if !v.Found {
			return MarkBreak
		}
		return MarkNone
	}))
	unsettled := unsettledSheet(ctx, db, r)
	statement, orders := recordSheets(ctx, db, r)
	return []sheet{breaks, matching, differences, duplicates, reversals, unsettled, pending, feesSheet(ctx, db, r), statement, orders}
}

// differencesSheet is the Differences sheet: a row per field on which a
// call and the record it is linked to by key disagree.
func differencesSheet(ctx context.Context, db Reports, r *ledger.Run) sheet {
	return newSheet("Differences", []Column{
		{"timestamp", DateTime, false},
		{"operation", Text, false},
		{"externalRef", Text, false},
		{"svcOrderId", Text, false},
		{"field", Text, false},
		{"callValue", Text, false},
		{"statementValue", Text, false},
		{"difference", Text, false},
		{"note", Text, false},
		{"callId", Int, false},
	}, rowsOf(db.ReportDifferences(ctx, r.ID), 10, func(d *ledger.Difference, c []string) Mark {
		c[0], c[1], c[2], c[3], c[4] = d.TS, d.Operation, d.ExternalRef, d.SvcOrderID, d.Field
		c[5], c[6], c[7], c[8], c[9] = d.CallValue, d.StatementValue, d.Difference, d.Note, id(d.CallID)
		return MarkLook
	}))
}

// unsettledSheet is the Unsettled sheet: the run's unsettled orders, those
// dated before the period marked (beforePeriod, explained in its note).
func unsettledSheet(ctx context.Context, db Reports, r *ledger.Run) sheet {
	oldest := recon.Buckets[len(recon.Buckets)-1].Name
	unsettled := newSheet("Unsettled", []Column{
		{"svcOrderId", Text, false},
		{"clientOrderId", Text, false},
		{"txnDateTime", DateTime, false},
		{"txnChargedValue", Amount, false},
		{"ageDays", Int, false},
		{"ageBucket", Text, false},
		{"beforePeriod", Bool, false},
	}, rowsOf(db.ReportUnsettled(ctx, r.ID), 7, func(u *ledger.Unsettled, c []string) Mark {
		c[0], c[1], c[2], c[3] = u.SvcOrderID, u.ClientOrderID, u.TxnDateTime, u.Amount
		c[4], c[5] = strconv.Itoa(u.AgeDays), u.AgeBucket
		c[6] = boolText(len(u.TxnDateTime) >= len(recon.DateLayout) && u.TxnDateTime[:len(recon.DateLayout)] < r.From)
		if u.AgeBucket == oldest {
			return MarkLook
		}
		return MarkNone
	}))
	unsettled.Note = "beforePeriod TRUE: the order is dated before " + r.From +
		" and still unsettled on " + r.AsOf + "; the Orders sheet lists only the period's orders."
	return unsettled
}

// recordSheets are the Statement and Orders sheets: the period's records,
// with reversed (Statement) and unsettled, ageDays and ageBucket against
// the run's as-of date (Orders).
func recordSheets(ctx context.Context, db Reports, r *ledger.Run) (statement, orders sheet) {
	statement = recordSheet("Statement", recon.Statement, []Column{{"reversed", Bool, false}},
		db.ReportRecords(ctx, recon.Statement, r.From, r.To),
		func(rec *store.ReportRecord, c []string) {
			c[0] = boolText(rec.Values[recon.FReversalSvcOrderID] != "")
		})
	statement.Count = func() (int64, error) { return db.CountReportRecords(ctx, recon.Statement, r.From, r.To) }
	asOf, asOfErr := time.Parse(recon.DateLayout, r.AsOf)
	orders = recordSheet("Orders", recon.Orders,
		[]Column{{"unsettled", Bool, false}, {"ageDays", Int, false}, {"ageBucket", Text, false}},
		db.ReportRecords(ctx, recon.Orders, r.From, r.To),
		func(rec *store.ReportRecord, c []string) {
			open := rec.Values[recon.FSettlementSvcOrderID] == ""
			c[0], c[1], c[2] = boolText(open), "", ""
			if !open || asOfErr != nil {
				return
			}
			if days, ok := ageDays(asOf, rec.Values[recon.FTxnDate]); ok {
				c[1], c[2] = strconv.Itoa(days), recon.BucketOf(days)
			}
		})
	orders.Count = func() (int64, error) { return db.CountReportRecords(ctx, recon.Orders, r.From, r.To) }
	return statement, orders
}
