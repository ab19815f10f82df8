package store

import (
	"context"
	"database/sql"
	"iter"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// This file is the store of the fees stage (issue 27): the period's debit
// records it prices, its findings written with the run (recon_fees, one
// of the check tables of checks_run.go) and read back for the exports
// and the exceptions.

// feesCols are the columns of recon_fees' rows' values (checkTables).
var feesCols = []string{"kind", "svc_order_id", "txn_date_time", "product_code", "sub_product_code",
	"field", "expected", "charged", "difference", "rule", "debits", "reversed"}

// Fee adds a fee finding.
func (w *CheckRunWriter) Fee(f ledger.Fee) {
	w.add(tFees, f.Kind, f.SvcOrderID, f.TxnDateTime, f.ProductCode, f.SubProductCode, f.Field, f.Expected,
		f.Charged, f.Difference, f.Rule, f.Debits, boolInt(f.Reversed))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CheckDebits yields the window's statement debit (DR) records, in time
// order (then svcOrderId), with the fields the rate card prices.
func (db *DB) CheckDebits(ctx context.Context, w ledger.Window) iter.Seq2[ledger.Debit, error] {
	return checkSeq(ctx, db, func(rows *sql.Rows) (ledger.Debit, error) {
		var d ledger.Debit
		err := rows.Scan(&d.SvcOrderID, &d.TxnDateTime, &d.ProductCode, &d.SubProductCode, &d.Charged, &d.OrderValue,
			&d.Surcharge, &d.Cashback, &d.TDS, &d.Reversed)
		return d, err
	}, `SELECT svc_order_id, txn_date_time, product_code, sub_product_code, txn_charged_value, order_value,
		txn_surcharge, txn_cashback, txn_tds, reversal_svc_order_id <> ''
		FROM records WHERE kind = ? AND txn_mode = 'DR' AND txn_date_time BETWEEN ? AND ?
		ORDER BY txn_date_time, svc_order_id`, recon.Statement, w.From, w.To)
}

// ReportFees yields a run's fee findings: the debits by time (then
// svcOrderId and field), then the unpriced products by their first debit.
func (db *DB) ReportFees(ctx context.Context, runID int64) iter.Seq2[*ledger.Fee, error] {
	return reportRows(ctx, db, "fees", `SELECT kind, svc_order_id, txn_date_time, product_code, sub_product_code,
		field, expected, charged, difference, rule, debits, reversed
		FROM recon_fees WHERE run_id = ?
		ORDER BY kind = 'unpriced', txn_date_time, svc_order_id, field, product_code, sub_product_code`, []any{runID},
		func(rows *sql.Rows, f *ledger.Fee) error {
			return rows.Scan(&f.Kind, &f.SvcOrderID, &f.TxnDateTime, &f.ProductCode, &f.SubProductCode, &f.Field,
				&f.Expected, &f.Charged, &f.Difference, &f.Rule, &f.Debits, &f.Reversed)
		})
}

// feeFindings is EvidenceFindings' query of the run's fee findings.
const feeFindings = `SELECT kind, svc_order_id, txn_date_time, product_code, sub_product_code, field,
	difference, charged, rule FROM recon_fees WHERE run_id = ? ORDER BY txn_date_time, svc_order_id, field, product_code`

// scanFeeFinding reads a fee finding for evidence: an over- or
// undercharged debit counts its difference, an unpriced product its total.
func scanFeeFinding(rows *sql.Rows, f *evidence.Finding) error {
	var code, sub, diff, charged string
	if err := rows.Scan(&f.Kind, &f.SvcOrderID, &f.TS, &code, &sub, &f.Field, &diff, &charged, &f.Text); err != nil {
		return err
	}
	f.Product = code
	if sub != "" {
		f.Product += "/" + sub
	}
	if f.Kind == recon.Unpriced {
		return amountInto(&f.Amount, charged)
	}
	return amountInto(&f.Amount, diff)
}
