package svcapi

import (
	"context"
	"time"
)

// Pagination is the paging member of report requests. The spec lists the
// values as strings; samples send numbers. We send strings (the contract).
type Pagination struct {
	PageNumber     string `json:"pageNumber"`
	RecordsPerPage string `json:"recordsPerPage"`
}

// StatementFilters bounds a statement request by transaction date.
type StatementFilters struct {
	TxnDateFrom string `json:"txnDateFrom"` // YYYY-MM-DD
	TxnDateTo   string `json:"txnDateTo"`   // YYYY-MM-DD
}

// StatementRequest is the body of the statement (spec 4.4) and
// collect-order statement (spec 4.3, IsOrder true, BankProfileID "0")
// operations.
type StatementRequest struct {
	BankProfileID string           `json:"bankProfileId"`
	AccountNumber string           `json:"accountNumber"`
	ExternalRef   string           `json:"externalRef"`
	Pagination    Pagination       `json:"pagination"`
	Filters       StatementFilters `json:"filters"`
	IsOrder       bool             `json:"isOrder,omitempty"`
}

// Meta is the paging information of a report page.
type Meta struct {
	TotalPages           Int `json:"totalPages"`
	CurrentPage          Int `json:"currentPage"`
	TotalRecords         Int `json:"totalRecords"`
	RecordsOnCurrentPage Int `json:"recordsOnCurrentPage"`
	RecordFrom           Int `json:"recordFrom"`
	RecordTo             Int `json:"recordTo"`
}

// StatementRecord is one record of either statement variant (spec §2.3):
// ReversalSvcOrderID and ClosingBalance come with the plain statement,
// SettlementSvcOrderID with the collect-order statement.
type StatementRecord struct {
	Status          String `json:"status"`
	TxnDateTime     String `json:"txnDateTime"` // YYYY-MM-DD HH:MM:SS, IST
	SvcOrderID      String `json:"svcOrderId"`
	ClientOrderID   String `json:"clientOrderId"`
	TransactionID   String `json:"transactionId"`
	ProductCode     String `json:"productCode"`
	ProductName     String `json:"productName"`
	SubProductCode  String `json:"subProductCode"`
	SubProductName  String `json:"subProductName"`
	TxnMode         String `json:"txnMode"` // DR or CR
	TxnChargedValue Amount `json:"txnChargedValue"`
	OrderValue      Amount `json:"orderValue"`
	ConvenienceFee  Amount `json:"convenienceFee"`
	TxnSurcharge    Amount `json:"txnSurcharge"`
	TxnCashback     Amount `json:"txnCashback"`
	TxnTds          Amount `json:"txnTds"`
	NarrationValue0 String `json:"narrationValue0"`
	NarrationValue1 String `json:"narrationValue1"`
	NarrationValue2 String `json:"narrationValue2"`
	NarrationValue3 String `json:"narrationValue3"`
	NarrationValue4 String `json:"narrationValue4"`
	NarrationValue5 String `json:"narrationValue5"`
	NarrationValue6 String `json:"narrationValue6"`
	NarrationValue7 String `json:"narrationValue7"`
	NarrationValue8 String `json:"narrationValue8"`
	NarrationValue9 String `json:"narrationValue9"`
	ResponseCode    String `json:"responseCode"`
	ResponseMsg     String `json:"responseMsg"`

	ReversalSvcOrderID   String `json:"reversalSvcOrderId,omitempty"`   // plain statement
	ClosingBalance       Amount `json:"closingBalance"`                 // plain statement; may be masked
	SettlementSvcOrderID String `json:"settlementSvcOrderId,omitempty"` // collect orders
}

// Time parses TxnDateTime (IST).
func (r *StatementRecord) Time() (time.Time, error) { return ParseTime(string(r.TxnDateTime)) }

// StatementPage is the data of a statement or collect-order page.
type StatementPage struct {
	Meta    Meta              `json:"meta"`
	Records []StatementRecord `json:"records"`
}

// BillerFilters narrows a biller list request; empty strings mean all.
type BillerFilters struct {
	UpdatedAfterDate string `json:"updatedAfterDate"`
	CategoryKey      string `json:"categoryKey"`
}

// BillersRequest is the body of the biller list operation (spec 4.5).
type BillersRequest struct {
	Pagination Pagination    `json:"pagination"`
	Filters    BillerFilters `json:"filters"`
}

// Biller is one biller record (spec §2.3).
type Biller struct {
	BillerID        String `json:"billerId"`
	BillerName      String `json:"billerName"`
	CategoryKey     String `json:"categoryKey"`
	Type            String `json:"type"` // ONUS or OFFUS
	CategoryName    String `json:"categoryName"`
	CoverageCity    String `json:"coverageCity"`
	CoverageState   String `json:"coverageState"`
	CoveragePincode String `json:"coveragePincode"` // a number on the wire; kept as text
	UpdatedDate     String `json:"updatedDate"`     // YYYY-MM-DD
	BillerStatus    String `json:"billerStatus"`
	IsAvailable     Bool   `json:"isAvailable"`
}

// BillerPage is the data of a biller list page.
type BillerPage struct {
	Meta    Meta     `json:"meta"`
	Records []Biller `json:"records"`
}

// TxnStatusRequest is the body of the transaction-status look-up.
type TxnStatusRequest struct {
	TransactionDate string `json:"transactionDate"` // YYYY-MM-DD, IST
	ExternalRef     string `json:"externalRef"`
}

// Transaction states in TxnStatusData.TransactionStatusCode: TXN success,
// TUP still pending, anything else failed (nothing charged). The sandbox
// answers TxnNotFound for an externalRef it never saw.
const TxnNotFound = "SNA"

// TxnStatusData is the data of the transaction-status look-up. The outer
// statuscode says whether the look-up itself worked; TransactionStatusCode
// is the transaction's own state.
type TxnStatusData struct {
	ExternalRef           String `json:"externalRef"`
	TransactionStatusCode String `json:"transactionStatusCode"`
	TransactionStatus     String `json:"transactionStatus"` // message
	OrderID               String `json:"orderid"`           // svcOrderId of the transaction, when it succeeded
	TxnValue              Amount `json:"txnValue"`
	TransactionDate       String `json:"transactionDate"`
	Pool                  *Pool  `json:"pool,omitempty"` // the debit, when it succeeded and debited
}

// Statement fetches one page of the statement (or, with IsOrder, of the
// collect-order statement).
func (c *Client) Statement(ctx context.Context, req StatementRequest) (*StatementPage, error) {
	op := OpStatement
	if req.IsOrder {
		op = OpCollectOrders
	}
	_, d, err := Call[StatementPage](ctx, c, op, req)
	return d, err
}

// Billers fetches one page of the biller list.
func (c *Client) Billers(ctx context.Context, req BillersRequest) (*BillerPage, error) {
	_, d, err := Call[BillerPage](ctx, c, OpBillers, req)
	return d, err
}
