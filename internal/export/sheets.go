package export

import (
	"database/sql"
	"fmt"
	"strings"
)

// kind says how a column's stored text is written to a workbook cell. CSV
// files always get the stored text (booleans as true/false).
type kind int

const (
	kText     kind = iota
	kAmount        // exact decimal text: a number, #,##0.00
	kDelta         // an amount whose negatives show red
	kDate          // YYYY-MM-DD: an Excel date
	kDateTime      // YYYY-MM-DD HH:MM:SS (IST): an Excel date-time
	kStamp         // svcrecon's RFC 3339 UTC time: an Excel date-time in IST
	kInt           // an integer
	kBool          // 0/1: TRUE/FALSE
)

// column is one column of a sheet: its header and kind. mask masks card and
// Aadhaar numbers in its text.
type column struct {
	name string
	kind kind
	mask bool
}

// mark is how a whole row is highlighted in the workbook.
type mark int

const (
	markNone  mark = iota
	markBreak      // red fill: a break, a mismatch, a missing reversal
	markLook       // yellow fill: pending, explained gaps, old unsettled orders
	markMuted      // grey text: removed billers
)

// sheet is one sheet (and CSV file): the rows of query, one column per
// selected value.
type sheet struct {
	name  string // sheet name; continuation sheets add " (2)" …
	file  string // CSV file name
	cols  []column
	query string
	args  []any
	// mark highlights a row from its values (nil: none).
	mark func(v []sql.NullString) mark
	// count, when set, counts the rows (with countArgs) for the progress bar.
	count     string
	countArgs []any
}

func (s *sheet) col(name string) int {
	for i, c := range s.cols {
		if c.name == name {
			return i
		}
	}
	panic(fmt.Sprintf("export: sheet %s has no column %s", s.name, name))
}

// matchCols are the columns of Matching, Duplicates and Pending.
var matchCols = []column{
	{"outcome", kText, false},
	{"timestamp", kDateTime, false},
	{"operation", kText, false},
	{"externalRef", kText, false},
	{"orderid", kText, false},
	{"statuscode", kText, false},
	{"svcOrderId", kText, false},
	{"callAmount", kAmount, false},
	{"statementAmount", kAmount, false},
	{"delta", kDelta, false},
	{"note", kText, false},
	{"callId", kInt, false},
}

const matchSelect = `SELECT m.outcome, m.ts, m.operation, m.external_ref,
	COALESCE(c.orderid, ''), COALESCE(c.statuscode, ''), m.svc_order_id,
	m.call_amount, m.statement_amount, m.delta, m.note, m.call_id
	FROM recon_matches m LEFT JOIN calls c ON c.id = m.call_id
	WHERE m.run_id = ?`

// recordCols are the columns of the records table shared by both kinds, in
// the order of the API's record, with the SQL expression of each.
var recordCols = []struct {
	column
	expr string
}{
	{column{"accountNumber", kText, false}, "account"},
	{column{"txnDateTime", kDateTime, false}, "txn_date_time"},
	{column{"txnDate", kDate, false}, "txn_date"},
	{column{"svcOrderId", kText, false}, "svc_order_id"},
	{column{"clientOrderId", kText, false}, "client_order_id"},
	{column{"status", kText, false}, "status"},
	{column{"transactionId", kText, false}, "transaction_id"},
	{column{"productCode", kText, false}, "product_code"},
	{column{"productName", kText, false}, "product_name"},
	{column{"subProductCode", kText, false}, "sub_product_code"},
	{column{"subProductName", kText, false}, "sub_product_name"},
	{column{"txnMode", kText, false}, "txn_mode"},
	{column{"txnChargedValue", kAmount, false}, "txn_charged_value"},
	{column{"orderValue", kAmount, false}, "order_value"},
	{column{"convenienceFee", kAmount, false}, "convenience_fee"},
	{column{"txnSurcharge", kAmount, false}, "txn_surcharge"},
	{column{"txnCashback", kAmount, false}, "txn_cashback"},
	{column{"txnTds", kAmount, false}, "txn_tds"},
	{column{"narrationValue0", kText, true}, "narration_value0"},
	{column{"narrationValue1", kText, true}, "narration_value1"},
	{column{"narrationValue2", kText, true}, "narration_value2"},
	{column{"narrationValue3", kText, true}, "narration_value3"},
	{column{"narrationValue4", kText, true}, "narration_value4"},
	{column{"narrationValue5", kText, true}, "narration_value5"},
	{column{"narrationValue6", kText, true}, "narration_value6"},
	{column{"narrationValue7", kText, true}, "narration_value7"},
	{column{"narrationValue8", kText, true}, "narration_value8"},
	{column{"narrationValue9", kText, true}, "narration_value9"},
	{column{"responseCode", kText, false}, "response_code"},
	{column{"responseMsg", kText, false}, "response_msg"},
}

// recordSheet builds the Statement or Orders sheet: every records column of
// the kind plus extra (derived) columns.
// The query's parameters are ?1 = from, ?2 = to and ?3 = asOf (for extra
// expressions).
func recordSheet(name, recKind string, extra []column, extraExpr []string, from, to, asOf string) sheet {
	var cols []column
	var exprs []string
	for _, c := range recordCols {
		cols = append(cols, c.column)
		exprs = append(exprs, c.expr)
	}
	if recKind == "statement" {
		cols = append(cols, column{"reversalSvcOrderId", kText, false}, column{"closingBalance", kAmount, false})
		exprs = append(exprs, "reversal_svc_order_id", "closing_balance")
	} else {
		cols = append(cols, column{"settlementSvcOrderId", kText, false})
		exprs = append(exprs, "settlement_svc_order_id")
	}
	cols = append(cols, column{"firstSyncedAt", kStamp, false}, column{"lastSyncedAt", kStamp, false})
	exprs = append(exprs, "first_synced_at", "last_synced_at")
	cols = append(cols, extra...)
	exprs = append(exprs, extraExpr...)
	args := []any{from, to}
	if strings.Contains(strings.Join(extraExpr, " "), "?3") {
		args = append(args, asOf)
	}
	where := ` FROM records WHERE kind = '` + recKind + `' AND txn_date BETWEEN ?1 AND ?2`
	return sheet{
		name:      name,
		file:      strings.ToLower(name) + ".csv",
		cols:      cols,
		query:     `SELECT ` + strings.Join(exprs, ", ") + where + ` ORDER BY account, txn_date_time, svc_order_id`,
		args:      args,
		count:     `SELECT count(*)` + where,
		countArgs: []any{from, to},
	}
}

// ageBucketSQL is the aging bucket of an age in days (the ledger's buckets).
const ageBucketSQL = `CASE WHEN %[1]s <= 1 THEN '0-1' WHEN %[1]s <= 3 THEN '2-3'
	WHEN %[1]s <= 7 THEN '4-7' WHEN %[1]s <= 30 THEN '8-30' ELSE '>30' END`

// reconSheets are the sheets after Summary, in workbook order.
func reconSheets(r *run) []sheet {
	breaks := sheet{
		name: "Breaks", file: "breaks.csv",
		cols: []column{
			{"kind", kText, false},
			{"poolAccount", kText, false},
			{"timestamp", kDateTime, false},
			{"operation", kText, false},
			{"externalRef", kText, false},
			{"orderid", kText, false},
			{"expected", kAmount, false},
			{"actual", kAmount, false},
			{"delta", kDelta, false},
			{"explainedBy", kText, false},
			{"note", kText, false},
			{"callId", kInt, false},
			{"prevCallId", kInt, false},
		},
		query: `SELECT b.kind, b.pool_account, b.ts, COALESCE(c.operation, ''), b.external_ref,
			COALESCE(c.orderid, ''), b.expected, b.actual, b.delta, b.explained_by, b.note,
			b.call_id, b.prev_call_id
			FROM recon_breaks b LEFT JOIN calls c ON c.id = b.call_id
			WHERE b.run_id = ? ORDER BY b.pool_account, b.kind = 'explainedGap', b.ts, b.call_id`,
		args: []any{r.id},
		mark: func(v []sql.NullString) mark {
			if v[0].String == "explainedGap" {
				return markLook
			}
			return markBreak
		},
	}
	markOutcome := func(v []sql.NullString) mark {
		switch v[0].String {
		case "matched", "reversed":
			return markNone
		case "pending":
			return markLook
		}
		return markBreak
	}
	matching := sheet{name: "Matching", file: "matching.csv", cols: matchCols,
		query: matchSelect + ` ORDER BY m.ts, m.external_ref, m.svc_order_id, m.call_id`,
		args:  []any{r.id}, mark: markOutcome}
	duplicates := sheet{name: "Duplicates", file: "duplicates.csv", cols: matchCols,
		query: matchSelect + ` AND m.outcome = 'duplicateDebit' ORDER BY m.external_ref, m.ts, m.svc_order_id, m.call_id`,
		args:  []any{r.id}, mark: markOutcome}
	pending := sheet{name: "Pending", file: "pending.csv", cols: matchCols,
		query: matchSelect + ` AND m.outcome = 'pending' ORDER BY m.ts, m.external_ref, m.call_id`,
		args:  []any{r.id}, mark: markOutcome}
	reversals := sheet{
		name: "Reversals", file: "reversals.csv",
		cols: []column{
			{"svcOrderId", kText, false},
			{"txnDateTime", kDateTime, false},
			{"txnChargedValue", kAmount, false},
			{"reversalSvcOrderId", kText, false},
			{"reversalFound", kBool, false},
			{"reversalTxnDateTime", kDateTime, false},
			{"reversalAmount", kAmount, false},
			{"note", kText, false},
		},
		query: `SELECT svc_order_id, txn_date_time, amount, reversal_svc_order_id, reversal_found,
			reversal_txn_date_time, reversal_amount, note
			FROM recon_reversals WHERE run_id = ? ORDER BY txn_date_time, svc_order_id`,
		args: []any{r.id},
		mark: func(v []sql.NullString) mark {
			if v[4].String == "0" {
				return markBreak
			}
			return markNone
		},
	}
	unsettled := sheet{
		name: "Unsettled", file: "unsettled.csv",
		cols: []column{
			{"svcOrderId", kText, false},
			{"clientOrderId", kText, false},
			{"txnDateTime", kDateTime, false},
			{"txnChargedValue", kAmount, false},
			{"ageDays", kInt, false},
			{"ageBucket", kText, false},
		},
		query: `SELECT svc_order_id, client_order_id, txn_date_time, amount, age_days, age_bucket
			FROM recon_unsettled WHERE run_id = ? ORDER BY age_days DESC, txn_date_time, svc_order_id`,
		args: []any{r.id},
		mark: func(v []sql.NullString) mark {
			if v[5].String == ">30" {
				return markLook
			}
			return markNone
		},
	}
	statement := recordSheet("Statement", "statement",
		[]column{{"reversed", kBool, false}},
		[]string{"reversal_svc_order_id <> ''"}, r.from, r.to, r.asOf)
	age := `CAST(julianday(?3) - julianday(txn_date) AS INTEGER)`
	orders := recordSheet("Orders", "orders",
		[]column{{"unsettled", kBool, false}, {"ageDays", kInt, false}, {"ageBucket", kText, false}},
		[]string{
			"settlement_svc_order_id = ''",
			"CASE WHEN settlement_svc_order_id = '' THEN " + age + " END",
			"CASE WHEN settlement_svc_order_id = '' THEN " + fmt.Sprintf(ageBucketSQL, age) + " END",
		}, r.from, r.to, r.asOf)
	return []sheet{breaks, matching, duplicates, reversals, unsettled, pending, statement, orders}
}
