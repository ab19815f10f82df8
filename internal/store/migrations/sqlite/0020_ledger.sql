-- ledger: indexes the reconciliation check reads through.
-- Records by svcOrderId alone (reversal records, calls whose statement
-- record lies outside the checked period).
CREATE INDEX IF NOT EXISTS records_svc_order ON records (svc_order_id);
-- A period's statement records in time order, covering the columns the
-- check reads (it never touches the wide rows).
CREATE INDEX IF NOT EXISTS records_check ON records (kind, txn_date_time, svc_order_id, account,
    client_order_id, txn_mode, txn_charged_value, reversal_svc_order_id);
-- A period's calls in (ts, id) order, covering the columns the check reads
-- (request and response make the rows wide).
CREATE INDEX IF NOT EXISTS calls_check ON calls (ts, id, outcome, pool_shape, pool_account, external_ref,
    orderid, operation, pool_opening, pool_amount, pool_closing);
