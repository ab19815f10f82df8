package statement

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// RecordError is a record the walker cannot store: a missing or unreadable
// field. It names the kind, the window, the page and the field.
type RecordError struct {
	Kind   string
	Day    string // window, YYYY-MM-DD
	Page   int
	Index  int    // 1-based position on the page
	Field  string // API field name
	Reason string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s window %s page %d record %d: %s %s", e.Kind, e.Day, e.Page, e.Index, e.Field, e.Reason)
}

// dataColumns are the records columns a record fills, in the order of
// row.vals. txn_date_time and txn_date come first.
var dataColumns = []string{
	"txn_date_time", "txn_date", "status", "client_order_id", "transaction_id",
	"product_code", "product_name", "sub_product_code", "sub_product_name", "txn_mode",
	"txn_charged_value", "order_value", "convenience_fee", "txn_surcharge", "txn_cashback", "txn_tds",
	"narration_value0", "narration_value1", "narration_value2", "narration_value3", "narration_value4",
	"narration_value5", "narration_value6", "narration_value7", "narration_value8", "narration_value9",
	"response_code", "response_msg", "reversal_svc_order_id", "closing_balance", "settlement_svc_order_id",
}

const nData = 31

// row is one record ready for the records table.
type row struct {
	id   string // svc_order_id
	vals [nData]string
}

// day returns the YYYY-MM-DD of the record.
func (r *row) day() string { return r.vals[1] }

// toRow validates and converts a record. kind, day and page only name the
// place in errors.
func toRow(rec *svcapi.StatementRecord, kind, day string, page, index int) (row, error) {
	fail := func(field, reason string) (row, error) {
		return row{}, &RecordError{Kind: kind, Day: day, Page: page, Index: index, Field: field, Reason: reason}
	}
	if strings.TrimSpace(string(rec.TxnDateTime)) == "" {
		return fail("txnDateTime", "missing")
	}
	t, err := rec.Time()
	if err != nil {
		return fail("txnDateTime", fmt.Sprintf("%q is not a timestamp YYYY-MM-DD HH:MM:SS", string(rec.TxnDateTime)))
	}
	if !rec.TxnChargedValue.Valid {
		if rec.TxnChargedValue.Raw != "" {
			return fail("txnChargedValue", fmt.Sprintf("%q is not an amount", rec.TxnChargedValue.Raw))
		}
		return fail("txnChargedValue", "missing")
	}
	ts := t.In(svcapi.IST).Format(svcapi.TimestampLayout)
	r := row{vals: [nData]string{
		ts, ts[:10], str(rec.Status), str(rec.ClientOrderID), str(rec.TransactionID),
		str(rec.ProductCode), str(rec.ProductName), str(rec.SubProductCode), str(rec.SubProductName), str(rec.TxnMode),
		rec.TxnChargedValue.String(), rec.OrderValue.String(), rec.ConvenienceFee.String(),
		rec.TxnSurcharge.String(), rec.TxnCashback.String(), rec.TxnTds.String(),
		str(rec.NarrationValue0), str(rec.NarrationValue1), str(rec.NarrationValue2), str(rec.NarrationValue3),
		str(rec.NarrationValue4), str(rec.NarrationValue5), str(rec.NarrationValue6), str(rec.NarrationValue7),
		str(rec.NarrationValue8), str(rec.NarrationValue9),
		str(rec.ResponseCode), str(rec.ResponseMsg), str(rec.ReversalSvcOrderID), rec.ClosingBalance.String(),
		str(rec.SettlementSvcOrderID),
	}}
	r.id = str(rec.SvcOrderID)
	if r.id == "" {
		r.id = hashID(&r)
	}
	return r, nil
}

func str(s svcapi.String) string { return strings.TrimSpace(string(s)) }

// hashID is the stable id of a record the service sent without svcOrderId:
// "hash:" and the SHA-256 of its canonical fields (the stored values, in
// column order, separated by a unit separator).
func hashID(r *row) string {
	h := sha256.New()
	for i, v := range r.vals {
		if i > 0 {
			h.Write([]byte{0x1f})
		}
		h.Write([]byte(v))
	}
	return "hash:" + hex.EncodeToString(h.Sum(nil))
}
