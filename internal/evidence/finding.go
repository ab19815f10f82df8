package evidence

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The kinds of exception: the breaks and matching outcomes finance must
// look at, the reversals whose reversal record was not synced and the
// unsettled collect orders. An explained gap is no defect and has none.
const (
	KindArithmetic       = recon.BreakArithmetic
	KindGap              = recon.BreakGap
	KindAmountMismatch   = recon.AmountMismatch
	KindDuplicateDebit   = recon.DuplicateDebit
	KindCallOnly         = recon.CallOnly
	KindStatementOnly    = recon.StatementOnly
	KindPending          = recon.Pending
	KindTiming           = recon.Timing
	KindReversalNotFound = "reversalNotFound"
	KindUnsettled        = "unsettled"
	// The fee findings of a check with a rate card (recon.FeeKinds).
	KindOvercharged  = recon.Overcharged
	KindUndercharged = recon.Undercharged
	KindUnpriced     = recon.Unpriced
)

// Kinds lists the kinds of exception, in the order finance reads them.
var Kinds = []string{KindArithmetic, KindGap, KindAmountMismatch, KindDuplicateDebit, KindCallOnly,
	KindStatementOnly, KindPending, KindReversalNotFound, KindUnsettled, KindOvercharged, KindUndercharged, KindUnpriced,
	KindTiming}

// isFee says whether kind is a fee finding's: only a run with a rate card
// finds those (and can resolve them).
func isFee(kind string) bool {
	return kind == KindOvercharged || kind == KindUndercharged || kind == KindUnpriced
}

// feeField is the amount field most fee findings are about: its key is
// the svcOrderId alone.
const feeField = "txnChargedValue"

// Finding is one row of a run's findings as evidence reads it: the run's
// breaks, matching exceptions, unlinked reversals and unsettled orders,
// with the fields their identity is made of (the same as the workbook's
// columns), an amount and a line of text.
type Finding struct {
	Kind        string
	PoolAccount string // breaks: the pool account
	TS          string // IST YYYY-MM-DD HH:MM:SS of the call or record
	Operation   string // the call's operation
	ExternalRef string // the call's externalRef (or the record's clientOrderId)
	OrderID     string // the call's orderid
	SvcOrderID  string // the statement or order record's svcOrderId
	Product     string // fee findings: the product (CODE or CODE/SUB)
	Field       string // fee findings: the amount compared (txnChargedValue, txnSurcharge …)
	Amount      decimal.Decimal
	Text        string // the row's note, or what it is in a few words
}

// Day is the IST day of the finding ("" without a time).
func (f *Finding) Day() string {
	if len(f.TS) < len(recon.DateLayout) {
		return ""
	}
	return f.TS[:len(recon.DateLayout)]
}

// callRef names the call of a finding: its externalRef, else its orderid,
// else its time and operation (a log line that lost both keys).
func (f *Finding) callRef() string {
	switch {
	case f.ExternalRef != "":
		return f.ExternalRef
	case f.OrderID != "":
		return "orderid " + f.OrderID
	}
	return f.TS + " " + f.Operation
}

// Key is the finding's natural key, which with its kind makes its identity
// from run to run:
//
//	arithmetic, gap               pool account "/" the call (externalRef, else "orderid " orderid, else "ts operation")
//	callOnly, pending             the call, as above
//	amountMismatch                svcOrderId (else the call)
//	duplicateDebit                the externalRef debited twice (else svcOrderId): one exception for all its rows
//	statementOnly                 svcOrderId of the record
//	reversalNotFound, unsettled   svcOrderId of the record
//	overcharged, undercharged     svcOrderId of the debit (and "/" the field, for another than txnChargedValue)
//	unpriced                      the product (CODE or CODE/SUB)
//	timing                        "call " and the call (as above), or "record " and svcOrderId
func (f *Finding) Key() string {
	switch f.Kind {
	case KindTiming:
		if f.SvcOrderID == "" {
			return timingCall + f.callRef()
		}
		return timingRecord + f.SvcOrderID
	case KindOvercharged, KindUndercharged:
		if f.Field != "" && f.Field != feeField {
			return f.SvcOrderID + "/" + f.Field
		}
	case KindUnpriced:
		return f.Product
	case KindArithmetic, KindGap:
		return f.PoolAccount + "/" + f.callRef()
	case KindCallOnly, KindPending:
		return f.callRef()
	case KindAmountMismatch:
		if f.SvcOrderID != "" {
			return f.SvcOrderID
		}
		return f.callRef()
	case KindDuplicateDebit:
		if f.ExternalRef != "" {
			return f.ExternalRef
		}
	}
	return f.SvcOrderID
}

// idLen is how many hex digits of SHA-256(kind|key) an id shows; longer
// when two identities share them.
const idLen = 10

// IDOf is the id shown to users of the exception of kind and key:
// "EX-" and the first n hex digits of SHA-256(kind "|" key) (n ≥ 10).
func IDOf(kind, key string, n int) string {
	sum := sha256.Sum256([]byte(kind + "|" + key))
	h := hex.EncodeToString(sum[:])
	return "EX-" + h[:min(max(n, idLen), len(h))]
}

// IsKind reports whether s is a kind of exception.
func IsKind(s string) bool {
	for _, k := range Kinds {
		if k == s {
			return true
		}
	}
	return false
}
