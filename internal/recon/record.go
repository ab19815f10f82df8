package recon

// FieldType says what a record field's stored text holds, and so how a
// workbook cell shows it.
type FieldType int

// Field types.
const (
	Text     FieldType = iota
	Amount             // an exact decimal, as sent (may be masked text)
	Date               // YYYY-MM-DD
	DateTime           // YYYY-MM-DD HH:MM:SS, IST
)

// Field is one field of a synced record: its API name (which is also its
// sheet header and CSV column), its database column, its type, and which
// kinds carry it. Mask says its text may hold card or Aadhaar numbers and
// is masked on export.
type Field struct {
	API    string
	Column string
	Type   FieldType
	Kind   Kind // "" = both kinds
	Mask   bool
}

// Index of a field in RecordFields (and so in Record.Values).
const (
	FTxnDateTime = iota
	FTxnDate
	FStatus
	FClientOrderID
	FTransactionID
	FProductCode
	FProductName
	FSubProductCode
	FSubProductName
	FTxnMode
	FTxnChargedValue
	FOrderValue
	FConvenienceFee
	FTxnSurcharge
	FTxnCashback
	FTxnTds
	FNarrationValue0
	FNarrationValue1
	FNarrationValue2
	FNarrationValue3
	FNarrationValue4
	FNarrationValue5
	FNarrationValue6
	FNarrationValue7
	FNarrationValue8
	FNarrationValue9
	FResponseCode
	FResponseMsg
	FReversalSvcOrderID
	FClosingBalance
	FSettlementSvcOrderID
	NumFields // how many fields a Record carries
)

// RecordFields is the one table of a record's fields, in Values order (the
// API's order; txnDateTime and txnDate first). The key fields kind,
// account (accountNumber) and svcOrderId are Record's own.
var RecordFields = [NumFields]Field{
	{"txnDateTime", "txn_date_time", DateTime, "", false},
	{"txnDate", "txn_date", Date, "", false},
	{"status", "status", Text, "", false},
	{"clientOrderId", "client_order_id", Text, "", false},
	{"transactionId", "transaction_id", Text, "", false},
	{"productCode", "product_code", Text, "", false},
	{"productName", "product_name", Text, "", false},
	{"subProductCode", "sub_product_code", Text, "", false},
	{"subProductName", "sub_product_name", Text, "", false},
	{"txnMode", "txn_mode", Text, "", false},
	{"txnChargedValue", "txn_charged_value", Amount, "", false},
	{"orderValue", "order_value", Amount, "", false},
	{"convenienceFee", "convenience_fee", Amount, "", false},
	{"txnSurcharge", "txn_surcharge", Amount, "", false},
	{"txnCashback", "txn_cashback", Amount, "", false},
	{"txnTds", "txn_tds", Amount, "", false},
	{"narrationValue0", "narration_value0", Text, "", true},
	{"narrationValue1", "narration_value1", Text, "", true},
	{"narrationValue2", "narration_value2", Text, "", true},
	{"narrationValue3", "narration_value3", Text, "", true},
	{"narrationValue4", "narration_value4", Text, "", true},
	{"narrationValue5", "narration_value5", Text, "", true},
	{"narrationValue6", "narration_value6", Text, "", true},
	{"narrationValue7", "narration_value7", Text, "", true},
	{"narrationValue8", "narration_value8", Text, "", true},
	{"narrationValue9", "narration_value9", Text, "", true},
	{"responseCode", "response_code", Text, "", false},
	{"responseMsg", "response_msg", Text, "", true}, // a service message may quote an Aadhaar or card number
	{"reversalSvcOrderId", "reversal_svc_order_id", Text, Statement, false},
	{"closingBalance", "closing_balance", Amount, Statement, false},
	{"settlementSvcOrderId", "settlement_svc_order_id", Text, Orders, false},
}

// Carries reports whether records of kind k carry field f.
func (f Field) Carries(k Kind) bool { return f.Kind == "" || f.Kind == k }

// Record is one synced statement or collect-order record.
type Record struct {
	Kind       Kind
	Account    string // the linked account number walked (accountNumber)
	SvcOrderID string // svcOrderId, or "hash:<hex>" when the service sent none
	Values     [NumFields]string
}

// Day returns the record's YYYY-MM-DD (IST).
func (r *Record) Day() string { return r.Values[FTxnDate] }

// Get returns the value of field f (an F… index).
func (r *Record) Get(f int) string { return r.Values[f] }
