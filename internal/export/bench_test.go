package export

// benchInsert inserts one record: kind, svc_order_id, txn_date_time,
// txn_date, client_order_id, txn_mode, txn_charged_value, narration_value0,
// closing_balance.
const benchInsert = `INSERT INTO records (kind, account, svc_order_id, txn_date_time, txn_date, status,
	client_order_id, transaction_id, product_code, product_name, txn_mode, txn_charged_value, order_value,
	convenience_fee, txn_surcharge, txn_cashback, txn_tds, narration_value0, response_code, response_msg,
	closing_balance, first_synced_at, last_synced_at)
	VALUES (?1, '0409000123456', ?2, ?3, ?4, 'SUCCESS', ?5, 'T' || ?2, 'PAN', 'PAN verification', ?6, ?7, ?7,
	'0.00', '0.00', '0.00', '0.00', ?8, '00', 'Success', ?9, '2026-11-21T01:00:00.000Z', '2026-11-21T01:00:00.000Z')`
