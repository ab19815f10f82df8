-- Issue 27: the fees of a run, checked against a rate card (ledger's fees
-- stage): each debit charged other than its price (overcharged,
-- undercharged; one row per amount field that differs), and each product
-- without a price once (unpriced: its debits and their total). A run
-- checked without a rate card has none. Amounts are exact decimal text.
CREATE TABLE recon_fees (
    run_id           BIGINT NOT NULL REFERENCES recon_runs(id) ON DELETE CASCADE,
    kind             TEXT COLLATE "C" NOT NULL,             -- 'overcharged', 'undercharged', 'unpriced'
    svc_order_id     TEXT COLLATE "C" NOT NULL DEFAULT '',  -- the debit's; '' for unpriced
    txn_date_time    TEXT COLLATE "C" NOT NULL,             -- the debit's (unpriced: the first one's), IST
    product_code     TEXT COLLATE "C" NOT NULL,
    sub_product_code TEXT COLLATE "C" NOT NULL DEFAULT '',
    field            TEXT COLLATE "C" NOT NULL DEFAULT '',  -- txnChargedValue, txnSurcharge, txnCashback, txnTds; '' for unpriced
    expected         TEXT COLLATE "C" NOT NULL DEFAULT '',  -- the price's ('' for unpriced)
    charged          TEXT COLLATE "C" NOT NULL,             -- the record's (unpriced: the debits' total)
    difference       TEXT COLLATE "C" NOT NULL DEFAULT '',  -- charged - expected ('' for unpriced)
    rule             TEXT COLLATE "C" NOT NULL DEFAULT '',  -- the price applied and how, or why there is none
    debits           BIGINT NOT NULL,                       -- unpriced: the product's debits; else 1
    reversed         BIGINT NOT NULL                        -- 1 when the debit was reversed (priced all the same)
);
CREATE INDEX recon_fees_run ON recon_fees (run_id, txn_date_time);
