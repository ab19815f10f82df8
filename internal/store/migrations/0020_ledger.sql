-- ledger: look records up by svcOrderId alone (reversal records, calls
-- whose statement record lies outside the checked period).
CREATE INDEX IF NOT EXISTS records_svc_order ON records (svc_order_id);
