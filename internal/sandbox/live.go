package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// liveTxn is a live billable call's outcome, for txnStatus and DTX.
type liveTxn struct {
	dn      int
	code    string
	status  string
	orderID string
	amount  int64
	pool    map[string]any
}

const liveSeqBase = 90_000_000

// serveBillable executes a billable operation.
func (s *Sandbox) serveBillable(w http.ResponseWriter, req *request, pending bool) {
	idx, debits := productIndex[req.op.Name]
	if !debits {
		s.serveNonPool(w, req, pending)
		return
	}
	prod := &products[idx]
	t := &txn{prod: idx, ref: req.ref, req: req.fields, amount: prod.charge}
	switch req.op.Name {
	case svcapi.OpFundTransfer:
		d, _ := decimal.NewFromString(reqText(req.fields, "transferAmount", ""))
		p, ok := paise(d)
		if !ok || p <= 0 {
			s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: transferAmount: at most two decimals")
			return
		}
		mode := reqText(req.fields, "transferMode", "IMPS")
		t.extra = p
		t.amount = p + transferFee(mode)
		for i, m := range transferModes {
			if m == mode {
				t.sub = uint8(i)
			}
		}
	case svcapi.OpBrandOrder:
		n, err := strconv.ParseInt(reqText(req.fields, "denomination", ""), 10, 64)
		if err != nil || n <= 0 || n > 100_000 {
			s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: denomination: a whole number of rupees, 1 to 100000")
			return
		}
		t.extra = n * 100
		t.amount = t.extra
	}
	s.mu.Lock()
	now := s.now()
	dn := dayNumber(now)
	if s.executed(req.ref) {
		s.mu.Unlock()
		s.fail(w, http.StatusOK, codeDuplicate, "Duplicate transaction: externalRef "+req.ref+" was already used")
		return
	}
	if bal := s.bal; t.amount > bal {
		s.txns[req.ref] = &liveTxn{dn: dn, code: codeBalance, status: "Insufficient pool balance"}
		s.mu.Unlock()
		s.fail(w, http.StatusOK, codeBalance, fmt.Sprintf("Insufficient pool balance: %s needed, %s available", money(t.amount), money(bal)))
		return
	}
	s.seq++
	seq := s.seq
	t.open = s.bal
	s.bal -= t.amount
	t.close = s.bal
	ds := newDayStrings(dn)
	t.orderID = string(appendPad(append([]byte("SO"), ds.short...), int64(liveSeqBase+seq), 8))
	t.h = mix(uint64(s.opts.Seed), uint64(seq), 0x11fe)
	t.noAccount = t.h%5 == 0
	t.number = t.h%7 == 0
	t.at = now
	sec := int32(now.In(recon.IST).Sub(dayTime(dn)) / time.Second)
	rec := liveRec{seq: seq, stmtRec: stmtRec{date: ds.date, sec: sec, orderID: t.orderID, ref: req.ref,
		txnID: fmt.Sprintf("TX%012d", t.h%1_000_000_000_000), prod: idx, charged: t.amount, orderValue: t.amount,
		closing: t.close, number: t.number, narration: prod.subCode}}
	switch idx {
	case prodFundTransfer:
		rec.orderValue, rec.fee, rec.subCode = t.extra, t.amount-t.extra, transferModes[t.sub]
	case prodBrandOrder:
		rec.orderValue = t.extra
	}
	s.live[dn] = append(s.live[dn], rec)
	s.txns[req.ref] = &liveTxn{dn: dn, code: svcapi.StatusSuccess, status: "Transaction Successful", orderID: t.orderID,
		amount: t.amount, pool: map[string]any{"openingBal": money(t.open), "amount": money(t.amount),
			"closingBal": money(t.close), "mode": "DR", "account": s.creds.Account}}
	s.mu.Unlock()
	if pending {
		writeJSON(w, http.StatusOK, s.envelope(svcapi.StatusPending, "Transaction under process", nil, ""))
		return
	}
	s.ok(w, "Transaction Successful", mustJSON(payload(t, s.creds.Account)), t.orderID)
}

// executed says whether ref was used by a successful transaction, live or
// in the history; s.mu is held.
func (s *Sandbox) executed(ref string) bool {
	if t, ok := s.txns[ref]; ok && t.code == svcapi.StatusSuccess {
		return true
	}
	if _, _, ok := s.w.historyCall(ref); ok {
		return true
	}
	return false
}

// serveNonPool executes a billable operation that debits no pool.
func (s *Sandbox) serveNonPool(w http.ResponseWriter, req *request, pending bool) {
	now := s.now()
	dn := dayNumber(now)
	s.mu.Lock()
	if req.ref != "" && s.executed(req.ref) {
		s.mu.Unlock()
		s.fail(w, http.StatusOK, codeDuplicate, "Duplicate transaction: externalRef "+req.ref+" was already used")
		return
	}
	s.seq++
	h := mix(uint64(s.opts.Seed), uint64(s.seq), 0x90b0)
	if req.ref != "" {
		s.txns[req.ref] = &liveTxn{dn: dn, code: svcapi.StatusSuccess, status: "Transaction Successful"}
	}
	s.mu.Unlock()
	if pending {
		writeJSON(w, http.StatusOK, s.envelope(svcapi.StatusPending, "Transaction under process", nil, ""))
		return
	}
	f := req.fields
	p := newPersona(h)
	var data map[string]any
	orderID := ""
	switch req.op.Name {
	case svcapi.OpAddPaymentMethod:
		typ := reqText(f, "accountType", "VPA")
		acct := reqText(f, "upiId", "")
		switch typ {
		case "ACCOUNT":
			acct = reqText(f, "accountNumber", "")
		case "WALLET":
			acct = reqText(f, "phoneNumber", "")
		}
		stamp := now.UTC().Format("2006-01-02T15:04:05.000000Z")
		data = map[string]any{"gcId": reqText(f, "gcId", ""), "accountType": typ, "isPrimary": h%2 == 0,
			"isVerified": reqText(f, "isVerificationOn", "false") == "true", "accountNumber": acct,
			"accountIfsc": reqText(f, "accountIfsc", ""), "beneficiaryName": reqText(f, "beneficiaryName", p.full()),
			"created_at": stamp, "updated_at": stamp, "_id": fmt.Sprintf("%024x", h)[:24]}
	case svcapi.OpInitiateUserRegistration:
		data = map[string]any{"otpReference": refID("OTP", h), "recipient": map[string]any{"mobile": reqText(f, "mobile", "")}}
		orderID = "null" // the spec's text null
	case svcapi.OpOkycQr:
		data = map[string]any{"qrStatus": "PENDING",
			"qrExpiryDt": now.In(recon.IST).Add(10 * time.Minute).Format(recon.TimestampLayout),
			"qrString":   fmt.Sprintf("okyc://verify?ref=%s&token=%064x", req.ref, h)}
	}
	s.ok(w, "Transaction Successful", mustJSON(data), orderID)
}

// historyCall finds the generated call of a history externalRef
// ("RC"+YYYYMMDD+index).
func (w *world) historyCall(ref string) (*dayData, int32, bool) {
	d, i, ok := w.parseRef(ref, "RC")
	if !ok {
		return nil, 0, false
	}
	if i < 0 || i >= w.index[d].nSlots {
		return nil, 0, false
	}
	dd := w.slotRange(d, i, i+1)
	if sl := dd.slot(i); sl.kind == sCR || sl.refOf != i {
		return nil, 0, false
	}
	return dd, i, true
}

// parseRef reads prefix+YYYYMMDD+8 digits into a history day and index.
func (w *world) parseRef(ref, prefix string) (int, int32, bool) {
	if len(ref) != len(prefix)+16 || ref[:len(prefix)] != prefix {
		return 0, 0, false
	}
	t, err := time.ParseInLocation("20060102", ref[len(prefix):len(prefix)+8], recon.IST)
	if err != nil {
		return 0, 0, false
	}
	i, err := strconv.Atoi(ref[len(prefix)+8:])
	if err != nil {
		return 0, 0, false
	}
	d := dayNumber(t) - w.startDN
	if d < 0 || d >= w.days {
		return 0, 0, false
	}
	return d, int32(i), true
}

// serveTxnStatus answers the transaction-status look-up.
func (s *Sandbox) serveTxnStatus(w http.ResponseWriter, req *request) {
	ref := req.ref
	date := reqText(req.fields, "transactionDate", "")
	data := svcTxnStatus{ExternalRef: ref, TransactionDate: date, TransactionStatusCode: svcapi.TxnNotFound,
		TransactionStatus: "No transaction with this externalRef on this date"}
	s.mu.Lock()
	lt, ok := s.txns[ref]
	s.mu.Unlock()
	switch {
	case ok && newDayStrings(lt.dn).date == date:
		data.TransactionStatusCode, data.TransactionStatus, data.OrderID = lt.code, lt.status, lt.orderID
		if lt.pool != nil {
			data.TxnValue, data.Pool = money(lt.amount), lt.pool
		}
	default:
		if dd, i, found := s.w.historyCall(ref); found && dd.ds.date == date {
			sl := dd.slot(i)
			data.TransactionStatusCode, data.TransactionStatus = svcapi.StatusSuccess, "Transaction Successful"
			data.OrderID = s.w.orderID(dd, i)
			data.TxnValue = money(sl.amount)
			data.Pool = map[string]any{"openingBal": money(sl.open), "amount": money(sl.amount),
				"closingBal": money(sl.close), "mode": "DR", "account": s.creds.Account}
		} else if d, i, ok := s.w.parseRef(ref, "RF"); ok && newDayStrings(s.w.startDN+d).date == date {
			if i >= 0 && i < s.w.index[d].nSlots {
				if sl := s.w.slotRange(d, i, i+1).slot(i); sl.flags&flagFailedBefore != 0 && sl.fail != failDTX {
					fc := failCodes[sl.fail]
					data.TransactionStatusCode, data.TransactionStatus = fc.code, fc.status
				}
			}
		}
	}
	s.ok(w, "Status fetched", mustJSON(data), "")
}

// svcTxnStatus is the wire form of svcapi.TxnStatusData.
type svcTxnStatus struct {
	ExternalRef           string         `json:"externalRef"`
	TransactionStatusCode string         `json:"transactionStatusCode"`
	TransactionStatus     string         `json:"transactionStatus"`
	OrderID               string         `json:"orderid"`
	TxnValue              string         `json:"txnValue,omitempty"`
	TransactionDate       string         `json:"transactionDate"`
	Pool                  map[string]any `json:"pool,omitempty"`
}
