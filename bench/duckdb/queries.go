package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The call log's fields the import keeps, as read_json's columns and as
// json_transform's structure: what svcrecon's lean decoder reads.
const (
	lineColumns = `{'at': 'VARCHAR', 'operation': 'VARCHAR', 'externalRef': 'VARCHAR', 'httpStatus': 'BIGINT',
	'latencyMs': 'BIGINT', 'error': 'VARCHAR',
	'response': 'STRUCT(statuscode VARCHAR, "timestamp" VARCHAR, orderid VARCHAR,
		data STRUCT(externalRef VARCHAR, openingBalance VARCHAR, payableValue VARCHAR, closingBalance VARCHAR,
			pool STRUCT(account VARCHAR, openingBal VARCHAR, amount VARCHAR, closingBal VARCHAR,
				openingBalance VARCHAR, paymentAmount VARCHAR, closingBalance VARCHAR)))'}`
	lineStructure = `{"at": "VARCHAR", "operation": "VARCHAR", "externalRef": "VARCHAR", "httpStatus": "BIGINT",
	"latencyMs": "BIGINT", "error": "VARCHAR",
	"response": {"statuscode": "VARCHAR", "timestamp": "VARCHAR", "orderid": "VARCHAR",
		"data": {"externalRef": "VARCHAR", "openingBalance": "VARCHAR", "payableValue": "VARCHAR", "closingBalance": "VARCHAR",
			"pool": {"account": "VARCHAR", "openingBal": "VARCHAR", "amount": "VARCHAR", "closingBal": "VARCHAR",
				"openingBalance": "VARCHAR", "paymentAmount": "VARCHAR", "closingBalance": "VARCHAR"}}}}`
)

// callFields turns a decoded line (l) into a calls row as svcrecon stores
// it: the time, the outcome, the pool's shape and exact amounts.
const callFields = `
	coalesce(l.response.timestamp, '') AS ts, l.operation, coalesce(nullif(l.externalRef, ''), l.response.data.externalRef, '') AS external_ref,
	coalesce(l.response.statuscode, '') AS statuscode, coalesce(l.response.orderid, '') AS orderid,
	CASE WHEN l.response.statuscode = 'TXN' THEN 'success' WHEN l.response.statuscode = 'TUP' THEN 'pending'
		WHEN l.response IS NULL AND l.error <> '' THEN 'pending' ELSE 'failed' END AS outcome,
	coalesce(l.response.data.pool.account, '') AS pool_account,
	CASE WHEN l.response.data.pool.openingBal IS NOT NULL THEN 'A'
		WHEN l.response.data.pool.openingBalance IS NOT NULL THEN 'B'
		WHEN l.response.data.openingBalance IS NOT NULL THEN 'data' ELSE '' END AS pool_shape,
	CAST(coalesce(l.response.data.pool.openingBal, l.response.data.pool.openingBalance, l.response.data.openingBalance) AS DECIMAL(18,2)) AS opening,
	CAST(coalesce(l.response.data.pool.amount, l.response.data.pool.paymentAmount, l.response.data.payableValue) AS DECIMAL(18,2)) AS amount,
	CAST(coalesce(l.response.data.pool.closingBal, l.response.data.pool.closingBalance, l.response.data.closingBalance) AS DECIMAL(18,2)) AS closing`

// importTyped reads the log with read_json's typed columns (DuckDB's
// fastest path: no line kept, none hashed).
func importTyped(path string) []string {
	return []string{`CREATE TABLE calls AS SELECT row_number() OVER () AS id, ` + callFields + `
		FROM read_json(` + quote(path) + `, format = 'newline_delimited', records = true, columns = ` + lineColumns + `) AS l`}
}

// importHashed reads the log as lines of text, hashes each (SHA-256, as
// svcrecon's line_hash) and decodes it with json_transform.
func importHashed(path string) []string {
	return []string{`CREATE TABLE calls AS SELECT row_number() OVER () AS id, t.line_hash, ` + callFields + `
		FROM (SELECT sha256(line) AS line_hash, json_transform(line, ` + quote(lineStructure) + `) AS l
			FROM read_csv(` + quote(path) + `, columns = {'line': 'VARCHAR'}, header = false, delim = E'\x01',
				quote = '', escape = '', auto_detect = false, max_line_size = 16777216)) AS t`}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// readOnlyOps are the operations the check leaves out (svcrecon's own
// sync and look-up calls: no transactions of the pool).
const readOnlyOps = `('aepsBanks', 'billers', 'collectOrders', 'statement', 'txnStatus', 'verifyBankAccountBanks')`

// checkQueries are the core of svcrecon's check of the period [from, to]
// (timestamps) as of the day asOf, each finding stored in a table: the
// arithmetic of every pool object and the chain of balances per pool
// account (window functions), calls matched to statement records by
// orderid = svcOrderId, else externalRef = clientOrderId, the statement
// records no call debited, duplicate debits, gaps explained by the records
// of their interval (a range join), reversals and unsettled orders.
func checkQueries(from, to, asOf string) []string {
	r := strings.NewReplacer("$from", quote(from), "$to", quote(to), "$asof", quote(asOf), "$ro", readOnlyOps)
	var out []string
	for _, q := range []string{
		`CREATE TEMP TABLE wc AS SELECT * FROM calls WHERE ts BETWEEN $from AND $to AND operation NOT IN $ro`,
		`CREATE TEMP TABLE wr AS SELECT * FROM records WHERE kind = 'statement' AND txn_date_time BETWEEN $from AND $to`,
		// The pool chain: each debit's opening is the closing of a debit of
		// the same account in its second or the one before (within a
		// second, svcrecon orders the debits so that the chain links).
		// A debit that names no pool account is the only named one's.
		`CREATE TEMP TABLE debits AS SELECT id, ts, CAST(ts AS TIMESTAMP) AS t, external_ref, orderid,
			CASE WHEN pool_account <> '' THEN pool_account
				WHEN (SELECT count(DISTINCT pool_account) FROM wc WHERE pool_account <> '') = 1
				THEN (SELECT any_value(pool_account) FROM wc WHERE pool_account <> '') ELSE '' END AS pool_account,
			opening, amount, closing FROM wc WHERE outcome = 'success' AND pool_shape <> ''`,
		`CREATE TEMP TABLE secs AS SELECT pool_account, t, lag(t) OVER (PARTITION BY pool_account ORDER BY t) AS prev_t
			FROM (SELECT DISTINCT pool_account, t FROM debits)`,
		`CREATE TEMP TABLE chain AS SELECT d.*, s.prev_t,
			lag(d.closing) OVER w AS prev_closing, lag(d.id) OVER w AS prev_id
			FROM debits d JOIN secs s USING (pool_account, t)
			WINDOW w AS (PARTITION BY d.pool_account ORDER BY d.ts, d.id)`,
		`CREATE TABLE chk_breaks AS
			SELECT 'arithmetic' AS kind, pool_account, id AS call_id, NULL AS prev_id, ts, NULL AS from_ts, external_ref,
				opening - amount AS expected, closing AS actual, opening - amount - closing AS delta
			FROM debits WHERE opening - amount <> closing
			UNION ALL
			SELECT 'gap', d.pool_account, d.id, d.prev_id, d.ts, strftime(d.prev_t, '%Y-%m-%d %H:%M:%S'), d.external_ref,
				d.prev_closing, d.opening, d.prev_closing - d.opening
			FROM chain d WHERE d.prev_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM debits p
				WHERE p.pool_account = d.pool_account AND p.closing = d.opening AND p.id <> d.id
					AND p.t >= coalesce(d.prev_t, d.t) AND p.t <= d.t)`,
		// Matching: a debit (or pending) call's record by orderid, else by externalRef.
		`CREATE TEMP TABLE dr AS SELECT * FROM wr WHERE upper(trim(txn_mode)) <> 'CR'`,
		`CREATE TEMP TABLE byorder AS SELECT c.id, r.svc_order_id, r.client_order_id, r.amount AS r_amount, r.reversal_svc_order_id
			FROM wc c JOIN dr r ON r.svc_order_id = c.orderid
			WHERE (c.outcome = 'success' AND c.pool_shape <> '' OR c.outcome = 'pending') AND c.orderid <> ''`,
		`CREATE TEMP TABLE byref AS SELECT c.id, arg_min(r.svc_order_id, r.txn_date_time) AS svc_order_id,
				arg_min(r.client_order_id, r.txn_date_time) AS client_order_id, arg_min(r.amount, r.txn_date_time) AS r_amount,
				arg_min(r.reversal_svc_order_id, r.txn_date_time) AS reversal_svc_order_id
			FROM wc c JOIN dr r ON r.client_order_id = c.external_ref
			WHERE (c.outcome = 'success' AND c.pool_shape <> '' OR c.outcome = 'pending') AND c.external_ref <> ''
				AND c.id NOT IN (SELECT id FROM byorder)
			GROUP BY c.id`,
		`CREATE TEMP TABLE linked AS SELECT * FROM byorder UNION ALL SELECT * FROM byref`,
		`CREATE TEMP TABLE dups AS
			SELECT external_ref AS ref FROM debits WHERE external_ref <> '' GROUP BY external_ref HAVING count(DISTINCT orderid) > 1
			UNION SELECT client_order_id FROM dr WHERE client_order_id <> '' GROUP BY client_order_id HAVING count(*) > 1`,
		`CREATE TABLE chk_matches AS
			SELECT c.id AS call_id, coalesce(l.svc_order_id, '') AS svc_order_id, c.external_ref, c.operation, c.ts,
				CASE WHEN c.outcome = 'pending' THEN 'pending'
					WHEN c.external_ref IN (SELECT ref FROM dups) THEN 'duplicateDebit'
					WHEN l.id IS NULL THEN 'callOnly'
					WHEN l.reversal_svc_order_id <> '' THEN 'reversed'
					WHEN c.amount = l.r_amount THEN 'matched' ELSE 'amountMismatch' END AS outcome,
				c.amount AS call_amount, l.r_amount AS statement_amount, c.amount - l.r_amount AS delta
			FROM wc c LEFT JOIN linked l ON l.id = c.id
			WHERE c.outcome = 'success' AND c.pool_shape <> '' OR c.outcome = 'pending'`,
		`INSERT INTO chk_matches SELECT NULL, r.svc_order_id, r.client_order_id, '', r.txn_date_time,
				CASE WHEN r.client_order_id IN (SELECT ref FROM dups) THEN 'duplicateDebit' ELSE 'statementOnly' END,
				NULL, r.amount, NULL
			FROM dr r WHERE r.svc_order_id NOT IN (SELECT svc_order_id FROM linked)`,
		// Gaps explained by the records of their interval that no call debited.
		`CREATE TEMP TABLE unlinked AS SELECT txn_date_time AS ts, svc_order_id,
				CASE WHEN upper(trim(txn_mode)) = 'CR' THEN -amount ELSE amount END AS amount
			FROM wr WHERE svc_order_id NOT IN (SELECT svc_order_id FROM linked)`,
		`CREATE TABLE chk_explained AS SELECT b.call_id, b.delta, sum(u.amount) AS explained,
				string_agg(u.svc_order_id, ',') AS explained_by
			FROM chk_breaks b JOIN unlinked u ON u.ts >= b.from_ts AND u.ts <= b.ts
			WHERE b.kind = 'gap' GROUP BY b.call_id, b.delta`,
		`CREATE TABLE chk_reversals AS SELECT r.svc_order_id, r.reversal_svc_order_id, r.txn_date_time, r.amount,
				v.svc_order_id IS NOT NULL AS found, v.txn_date_time AS reversal_txn_date_time, v.amount AS reversal_amount
			FROM wr r LEFT JOIN records v ON v.kind = 'statement' AND v.svc_order_id = r.reversal_svc_order_id
			WHERE r.reversal_svc_order_id <> ''`,
		`CREATE TABLE chk_unsettled AS SELECT svc_order_id, client_order_id, txn_date_time, amount,
				greatest(0, date_diff('day', CAST(txn_date AS DATE), DATE $asof)) AS age_days
			FROM records WHERE kind = 'orders' AND txn_date <= $asof AND settlement_svc_order_id = ''`,
	} {
		out = append(out, r.Replace(q))
	}
	return out
}

// report prints what the check found, to set beside svcrecon's report.
func report(ctx context.Context, db *sql.DB) error {
	for _, q := range []struct{ title, sql string }{
		{"calls (period, not read-only)", `SELECT count(*), NULL FROM wc`},
		{"with a pool debit", `SELECT count(*), sum(amount) FROM debits`},
		{"statement records", `SELECT count(*), NULL FROM wr`},
		{"matching", `SELECT outcome, count(*), sum(coalesce(call_amount, statement_amount)) FROM chk_matches GROUP BY 1 ORDER BY 1`},
		{"breaks", `SELECT kind, count(*), sum(delta) FROM chk_breaks GROUP BY 1 ORDER BY 1`},
		{"gaps explained", `SELECT count(*), sum(delta) FROM chk_explained WHERE explained = delta`},
		{"reversals", `SELECT count(*), sum(amount) FROM chk_reversals`},
		{"reversal record not found", `SELECT count(*), NULL FROM chk_reversals WHERE NOT found`},
		{"unsettled orders", `SELECT count(*), sum(amount) FROM chk_unsettled`},
	} {
		rows, err := db.QueryContext(ctx, q.sql)
		if err != nil {
			return fmt.Errorf("%s: %w", q.title, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			v := make([]any, len(cols))
			p := make([]any, len(cols))
			for i := range v {
				p[i] = &v[i]
			}
			if err := rows.Scan(p...); err != nil {
				rows.Close()
				return err
			}
			if len(v) == 3 {
				fmt.Printf("  %-32s %-16v %10v %v\n", q.title, v[0], v[1], nz(v[2]))
			} else {
				fmt.Printf("  %-32s %10v %v\n", q.title, v[0], nz(v[1]))
			}
		}
		rows.Close()
	}
	return nil
}

func nz(v any) any {
	if v == nil {
		return ""
	}
	return v
}
