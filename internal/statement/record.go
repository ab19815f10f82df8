package statement

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// RecordError is a record the walker cannot store: a missing or unreadable
// field. It names the kind, the window, the page and the field.
type RecordError struct {
	Kind   recon.Kind
	Day    string // window, YYYY-MM-DD
	Page   int
	Index  int    // 1-based position on the page
	Field  string // API field name
	Reason string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s window %s page %d record %d: %s %s", e.Kind, e.Day, e.Page, e.Index, e.Field, e.Reason)
}

// toRecord validates and converts a record of the account's statement of
// kind: a timestamp, a txnChargedValue, and every amount within the bound
// of an amount (recon.CheckAmount). day, page and index only name the
// place in errors.
func toRecord(rec *svcapi.StatementRecord, kind recon.Kind, account, day string, page, index int) (recon.Record, error) {
	fail := func(field int, reason string) (recon.Record, error) {
		return recon.Record{}, &RecordError{Kind: kind, Day: day, Page: page, Index: index,
			Field: recon.RecordFields[field].API, Reason: reason}
	}
	if strings.TrimSpace(string(rec.TxnDateTime)) == "" {
		return fail(recon.FTxnDateTime, "missing")
	}
	t, err := rec.Time()
	if err != nil {
		return fail(recon.FTxnDateTime, fmt.Sprintf("%q is not a timestamp YYYY-MM-DD HH:MM:SS", string(rec.TxnDateTime)))
	}
	if !rec.TxnChargedValue.Valid {
		if rec.TxnChargedValue.Raw != "" {
			return fail(recon.FTxnChargedValue, fmt.Sprintf("%q is not an amount", rec.TxnChargedValue.Raw))
		}
		return fail(recon.FTxnChargedValue, "missing")
	}
	for _, a := range []struct {
		field int
		v     svcapi.Amount
	}{{recon.FTxnChargedValue, rec.TxnChargedValue}, {recon.FOrderValue, rec.OrderValue}, {recon.FConvenienceFee, rec.ConvenienceFee},
		{recon.FTxnSurcharge, rec.TxnSurcharge}, {recon.FTxnCashback, rec.TxnCashback}, {recon.FTxnTds, rec.TxnTds},
		{recon.FClosingBalance, rec.ClosingBalance}} {
		if err := a.v.Check(); err != nil { // never stored: a fault of the page
			return fail(a.field, err.Error())
		}
	}
	r := recon.Record{Kind: kind, Account: account}
	v := &r.Values
	ts := t.In(recon.IST).Format(recon.TimestampLayout)
	v[recon.FTxnDateTime], v[recon.FTxnDate] = ts, ts[:len(recon.DateLayout)]
	v[recon.FStatus] = str(rec.Status)
	v[recon.FClientOrderID] = str(rec.ClientOrderID)
	v[recon.FTransactionID] = str(rec.TransactionID)
	v[recon.FProductCode] = str(rec.ProductCode)
	v[recon.FProductName] = str(rec.ProductName)
	v[recon.FSubProductCode] = str(rec.SubProductCode)
	v[recon.FSubProductName] = str(rec.SubProductName)
	v[recon.FTxnMode] = str(rec.TxnMode)
	v[recon.FTxnChargedValue] = rec.TxnChargedValue.String()
	v[recon.FOrderValue] = rec.OrderValue.String()
	v[recon.FConvenienceFee] = rec.ConvenienceFee.String()
	v[recon.FTxnSurcharge] = rec.TxnSurcharge.String()
	v[recon.FTxnCashback] = rec.TxnCashback.String()
	v[recon.FTxnTds] = rec.TxnTds.String()
	for i, n := range [...]svcapi.String{rec.NarrationValue0, rec.NarrationValue1, rec.NarrationValue2, rec.NarrationValue3,
		rec.NarrationValue4, rec.NarrationValue5, rec.NarrationValue6, rec.NarrationValue7, rec.NarrationValue8,
		rec.NarrationValue9} {
		v[recon.FNarrationValue0+i] = str(n)
	}
	v[recon.FResponseCode] = str(rec.ResponseCode)
	v[recon.FResponseMsg] = str(rec.ResponseMsg)
	v[recon.FReversalSvcOrderID] = str(rec.ReversalSvcOrderID)
	v[recon.FClosingBalance] = rec.ClosingBalance.String()
	v[recon.FSettlementSvcOrderID] = str(rec.SettlementSvcOrderID)
	r.SvcOrderID = str(rec.SvcOrderID)
	if r.SvcOrderID == "" {
		r.SvcOrderID = hashID(&r)
	}
	return r, nil
}

func str(s svcapi.String) string { return strings.TrimSpace(string(s)) }

// hashID is the stable id of a record the service sent without svcOrderId:
// "hash:" and the SHA-256 of its canonical fields (the stored values, in
// recon.RecordFields order, separated by a unit separator).
func hashID(r *recon.Record) string {
	h := sha256.New()
	for i, v := range r.Values {
		if i > 0 {
			h.Write([]byte{0x1f})
		}
		h.Write([]byte(v))
	}
	return "hash:" + hex.EncodeToString(h.Sum(nil))
}
