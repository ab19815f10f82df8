package svcapi

import (
	"bytes"
	"context"
	"encoding/json"
)

// This file holds the typed request bodies and `data` payloads of the
// operations not covered by reports.go, and one typed method per operation.
// JSON names follow the registry (and spec §2.3) exactly; optional request
// fields are omitted when empty.

// Location is the end customer's position, sent by most billable calls.
// The spec lists both as strings (numbers also occur in samples).
type Location struct {
	Latitude  string `json:"latitude"`
	Longitude string `json:"longitude"`
}

// Debit holds the data-level fields of operations that debit the pool with
// a shape A or B pool object (spec §2.2).
type Debit struct {
	ExternalRef     String `json:"externalRef,omitempty"`
	PoolReferenceID String `json:"poolReferenceId,omitempty"`
	TxnReferenceID  String `json:"txnReferenceId,omitempty"`
	TxnValue        Amount `json:"txnValue"`
	Pool            *Pool  `json:"pool,omitempty"`
}

// PoolObject returns the pool debit object, or nil when the answer had
// none. Every payload embedding Debit has it, and EmploymentData too.
func (d *Debit) PoolObject() *Pool { return d.Pool }

// StringList is an array of strings that the service sometimes sends as a
// single string: "NA" (or "-", or "") for none, any other text for a list of
// one.
type StringList []String

// UnmarshalJSON accepts an array of strings, a single string, or null.
func (l *StringList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var v []String
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*l = v
		return nil
	}
	var s String
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	if s == "" || notAvailable(string(s)) {
		*l = nil
		return nil
	}
	*l = StringList{s}
	return nil
}

// objectOrNA decodes an object into v (a pointer to a type without its own
// UnmarshalJSON), treating a string ("NA") or null as an absent object.
func objectOrNA(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		var s String
		if err := s.UnmarshalJSON(b); err != nil {
			return err
		}
		return nil
	}
	return json.Unmarshal(b, v)
}

// ---- 4.1 credit report ----

// HomeAddress is the optional address of a credit report request.
type HomeAddress struct {
	AddressLine1 string `json:"addressLine1,omitempty"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	Locality     string `json:"locality,omitempty"`
	City         string `json:"city,omitempty"`
	State        string `json:"state,omitempty"`
	Postal       string `json:"postal,omitempty"`
}

// CreditReportRequest is the body of the credit report (spec 4.1).
type CreditReportRequest struct {
	Name                 string       `json:"name"`
	DOB                  string       `json:"dob"` // YYYY-MM-DD
	Mobile               string       `json:"mobile"`
	InquiryPurposeCode   string       `json:"inquiryPurposeCode"`
	Gender               string       `json:"gender"`
	HomeAddress          *HomeAddress `json:"homeAddress,omitempty"`
	TaxIDNumber          string       `json:"taxIdNumber,omitempty"`
	DrivingLicenseNumber string       `json:"drivingLicenseNumber,omitempty"`
	VoterIDNumber        string       `json:"voterIdNumber,omitempty"`
	PassportNumber       string       `json:"passportNumber,omitempty"`
	RationCardNumber     string       `json:"rationCardNumber,omitempty"`
	OtherID              string       `json:"otherID,omitempty"`
	Location
	Consent     string `json:"consent"` // Y or N
	ExternalRef string `json:"externalRef"`
}

// CreditReportData is the data of a credit report.
type CreditReportData struct {
	Debit
	CreditReport CreditReport `json:"creditReport"`
}

// CreditReport is the report itself. Sections after retailAccountDetails
// are not shown in the spec and not decoded.
type CreditReport struct {
	PersonalInfo         PersonalInfo    `json:"personalInfo"`
	IdentityInfo         IdentityInfo    `json:"identityInfo"`
	AddressInfo          []AddressInfo   `json:"addressInfo"`
	PhoneInfo            []PhoneInfo     `json:"phoneInfo"`
	RetailAccountDetails []RetailAccount `json:"retailAccountDetails"`
}

// PersonalInfo is the personal part of a credit report.
type PersonalInfo struct {
	Name struct {
		FullName String `json:"FullName"`
	} `json:"Name"`
	// AliasName is shown with a leading space in the key (" AliasName");
	// both spellings are accepted. Its content is not shown: kept raw.
	AliasName        json.RawMessage      `json:"AliasName,omitempty"`
	AliasNameSpaced  json.RawMessage      `json:" AliasName,omitempty"`
	DateOfBirth      String               `json:"DateOfBirth"` // YYYY-MM-DD
	Gender           String               `json:"Gender"`
	Age              struct{ Age String } `json:"Age"`
	PlaceOfBirthInfo json.RawMessage      `json:"PlaceOfBirthInfo,omitempty"`
	TotalIncome      Amount               `json:"TotalIncome"`
}

// IdentityInfo lists the identity documents of a credit report.
type IdentityInfo struct {
	PANId          []IdentityDocument `json:"PANId"`
	VoterID        []IdentityDocument `json:"VoterID"`
	NationalIDCard []IdentityDocument `json:"NationalIDCard"`
	Passport       []IdentityDocument `json:"Passport"`
}

// IdentityDocument is one identity document of a credit report.
type IdentityDocument struct {
	Seq          String `json:"seq"`
	ReportedDate String `json:"ReportedDate"`
	IDNumber     String `json:"IdNumber"`
}

// AddressInfo is one address of a credit report.
type AddressInfo struct {
	Seq          String `json:"Seq"`
	ReportedDate String `json:"ReportedDate"`
	Address      String `json:"Address"`
	State        String `json:"State"`
	Postal       String `json:"Postal,omitempty"`
	Type         String `json:"Type"` // comma-separated
}

// PhoneInfo is one phone number of a credit report.
type PhoneInfo struct {
	Seq          String `json:"seq"`
	TypeCode     String `json:"typeCode"` // H, M, T seen
	ReportedDate String `json:"ReportedDate"`
	Number       String `json:"Number"`
}

// RetailAccount is one account of a credit report.
type RetailAccount struct {
	Seq                 String         `json:"seq"`
	AccountNumber       String         `json:"AccountNumber"`
	Institution         String         `json:"Institution"`
	AccountType         String         `json:"AccountType"`
	OwnershipType       String         `json:"OwnershipType"`
	Balance             Amount         `json:"Balance"`
	Open                String         `json:"Open"` // Yes or No
	SanctionAmount      Amount         `json:"SanctionAmount"`
	HighCredit          Amount         `json:"HighCredit"`
	PastDueAmount       Amount         `json:"PastDueAmount"`
	LastPayment         Amount         `json:"LastPayment"`
	LastPaymentDate     String         `json:"LastPaymentDate"`
	DateReported        String         `json:"DateReported"`
	DateOpened          String         `json:"DateOpened"`
	DateClosed          String         `json:"DateClosed,omitempty"`
	Reason              String         `json:"Reason,omitempty"`
	InterestRate        String         `json:"InterestRate,omitempty"` // a rate, not money: kept as text
	AccountStatus       String         `json:"AccountStatus"`
	AssetClassification String         `json:"AssetClassification,omitempty"`
	Source              String         `json:"source"` // INDIVIDUAL seen
	History48Months     []MonthHistory `json:"History48Months"`
}

// MonthHistory is one month of an account's 48-month history, newest first.
type MonthHistory struct {
	Key                       String `json:"key"`           // MM-YY
	PaymentStatus             String `json:"PaymentStatus"` // 000, NEW, 01+, CLSD, STD seen
	SuitFiledStatus           String `json:"SuitFiledStatus"`
	AssetClassificationStatus String `json:"AssetClassificationStatus"`
}

// CreditReport calls the credit report operation (spec 4.1).
func (c *Client) CreditReport(ctx context.Context, req CreditReportRequest) (*Envelope, *CreditReportData, error) {
	return Call[CreditReportData](ctx, c, OpCreditReport, req)
}

// ---- 4.2 add payment method ----

// Account types of AddPaymentMethodRequest.
const (
	AccountTypeVPA     = "VPA"
	AccountTypeWallet  = "WALLET"
	AccountTypeAccount = "ACCOUNT"
)

// AddPaymentMethodRequest is the body of the add-payment-method operation
// (spec 4.2). UpiID is mandatory for VPA; AccountNumber, AccountIfsc and
// BeneficiaryName for ACCOUNT; PhoneNumber for WALLET; ExternalRef and the
// location when IsVerificationOn.
type AddPaymentMethodRequest struct {
	GcID             string `json:"gcId"`
	AccountType      string `json:"accountType"`
	UpiID            string `json:"upiId,omitempty"`
	AccountNumber    string `json:"accountNumber,omitempty"`
	AccountIfsc      string `json:"accountIfsc,omitempty"`
	BeneficiaryName  string `json:"beneficiaryName,omitempty"`
	PhoneNumber      string `json:"phoneNumber,omitempty"`
	IsVerificationOn bool   `json:"isVerificationOn,omitempty"`
	ExternalRef      string `json:"externalRef,omitempty"`
	Latitude         string `json:"latitude,omitempty"`
	Longitude        string `json:"longitude,omitempty"`
}

// PaymentMethod is the payment method record the operation returns.
type PaymentMethod struct {
	GcID            String `json:"gcId"`
	AccountType     String `json:"accountType"`
	IsPrimary       Bool   `json:"isPrimary"`
	IsVerified      Bool   `json:"isVerified"`
	AccountNumber   String `json:"accountNumber"` // the VPA address for accountType VPA
	AccountIfsc     String `json:"accountIfsc"`
	BeneficiaryName String `json:"beneficiaryName"`
	CreatedAt       String `json:"created_at"` // ISO 8601 UTC, microseconds
	UpdatedAt       String `json:"updated_at"`
	ID              String `json:"_id"`
}

// AddPaymentMethod calls the add-payment-method operation (spec 4.2); it
// sends the hash headers.
func (c *Client) AddPaymentMethod(ctx context.Context, req AddPaymentMethodRequest) (*Envelope, *PaymentMethod, error) {
	return Call[PaymentMethod](ctx, c, OpAddPaymentMethod, req)
}

// ---- 4.6 biometric balance inquiry ----

// BiometricData is the device and capture data of a balance inquiry. The
// values come from the registered-device service. EncryptedAadhaar, Hmac,
// SessionKey and PidData are secret: never logged or stored.
type BiometricData struct {
	EncryptedAadhaar string `json:"encryptedAadhaar"`
	Dc               string `json:"dc"`
	Ci               string `json:"ci"`
	Hmac             string `json:"hmac"`
	DpID             string `json:"dpId"`
	Mc               string `json:"mc"`
	PidDataType      string `json:"pidDataType"`
	SessionKey       string `json:"sessionKey"`
	Mi               string `json:"mi"`
	RdsID            string `json:"rdsId"`
	FType            string `json:"fType"`
	ICount           string `json:"iCount"`
	PType            string `json:"pType"`
	Srno             string `json:"srno"`
	PidData          string `json:"pidData"`
	QScore           string `json:"qScore"`
	NmPoints         string `json:"nmPoints"`
	RdsVer           string `json:"rdsVer"`
	ErrCode          string `json:"errCode,omitempty"`
	ErrInfo          string `json:"errInfo,omitempty"`
	FCount           string `json:"fCount,omitempty"`
	IType            string `json:"iType,omitempty"`
	PCount           string `json:"pCount,omitempty"`
	SysID            string `json:"sysid,omitempty"`
	Ts               string `json:"ts,omitempty"`
}

// BalanceInquiryRequest is the body of the biometric balance inquiry
// (spec 4.6).
type BalanceInquiryRequest struct {
	BankIIN string `json:"bankiin"`
	Location
	Mobile        string        `json:"mobile"`
	ExternalRef   string        `json:"externalRef"`
	CaptureType   string        `json:"captureType,omitempty"` // FINGER, FACE or IRIS
	BiometricData BiometricData `json:"biometricData"`
}

// BalanceInquiryData is the data of a balance inquiry. Its pool debit is at
// data level (PayableValue charged); the envelope orderid equals SvcID.
type BalanceInquiryData struct {
	ExternalRef        String            `json:"externalRef"`
	BankName           String            `json:"bankName"`
	AccountNumber      String            `json:"accountNumber"` // masked
	SvcID              String            `json:"svcId"`
	TransactionMode    String            `json:"transactionMode"`
	PayableValue       Amount            `json:"payableValue"`
	TransactionValue   Amount            `json:"transactionValue"`
	OpeningBalance     Amount            `json:"openingBalance"`
	ClosingBalance     Amount            `json:"closingBalance"`
	OperatorID         String            `json:"operatorId"`
	WalletSvcID        String            `json:"walletSvcId"`
	BankAccountBalance Amount            `json:"bankAccountBalance"`
	MiniStatement      []json.RawMessage `json:"miniStatement"` // element fields not shown
}

// BalanceInquiry calls the biometric balance inquiry (spec 4.6).
func (c *Client) BalanceInquiry(ctx context.Context, req BalanceInquiryRequest) (*Envelope, *BalanceInquiryData, error) {
	return Call[BalanceInquiryData](ctx, c, OpBalanceInquiry, req)
}

// ---- 4.7 PAN verification plus V2 ----

// VerifyPanPlusV2Request is the body of PAN verification plus V2 (spec 4.7).
type VerifyPanPlusV2Request struct {
	PAN string `json:"pan"`
	Location
	ExternalRef string `json:"externalRef"`
	Consent     string `json:"consent"` // Y
}

// PanPlusV2Data is the data of PAN verification plus V2.
type PanPlusV2Data struct {
	Debit
	PanPlusDataV2 PanPlusV2 `json:"panPlusDataV2"`
}

// PanPlusV2 is the PAN record of PAN verification plus V2.
type PanPlusV2 struct {
	PanNumber           String     `json:"panNumber"`
	UserFullName        String     `json:"userFullName"`
	UserFullNameSplit   StringList `json:"userFullNameSplit"` // first, middle, last
	MaskedAadhaar       String     `json:"maskedAadhaar"`
	UserAddress         PanAddress `json:"userAddress"`
	UserGender          String     `json:"userGender"`
	UserDob             String     `json:"userDob"` // DD-MM-YYYY
	AadhaarLinkedStatus Bool       `json:"aadhaarLinkedStatus"`
	PanType             String     `json:"panType"`
	IsSoleProprietor    Bool       `json:"isSoleProprietor"` // Y or N
	IsDirector          Bool       `json:"isDirector"`
	IsSalaried          Bool       `json:"isSalaried"`
	PanStatus           String     `json:"panStatus"`
	PanAllotmentDate    String     `json:"panAllotmentDate"`
}

// PanAddress is the address of a PAN record.
type PanAddress struct {
	Line1      String `json:"line1"`
	Line2      String `json:"line2"`
	StreetName String `json:"streetName"`
	Zip        String `json:"zip"`
	City       String `json:"city"`
	State      String `json:"state"`
	Country    String `json:"country"`
	Full       String `json:"full"`
}

// VerifyPanPlusV2 calls PAN verification plus V2 (spec 4.7).
func (c *Client) VerifyPanPlusV2(ctx context.Context, req VerifyPanPlusV2Request) (*Envelope, *PanPlusV2Data, error) {
	return Call[PanPlusV2Data](ctx, c, OpVerifyPanPlusV2, req)
}

// ---- 4.8 prepaid card user registration ----

// InitiateUserRegistrationRequest is the body of the registration start
// (spec 4.8).
type InitiateUserRegistrationRequest struct {
	Mobile  string `json:"mobile"`
	Email   string `json:"email"`
	PAN     string `json:"pan"`
	Pincode string `json:"pincode"`
	Location
}

// RegistrationStartData is the data of the registration start.
type RegistrationStartData struct {
	OtpReference String `json:"otpReference"`
	Recipient    struct {
		Mobile String `json:"mobile"`
	} `json:"recipient"`
}

// InitiateUserRegistration starts a prepaid card user registration (spec
// 4.8): an OTP is sent. It sends the hash headers.
func (c *Client) InitiateUserRegistration(ctx context.Context, req InitiateUserRegistrationRequest) (*Envelope, *RegistrationStartData, error) {
	return Call[RegistrationStartData](ctx, c, OpInitiateUserRegistration, req)
}
