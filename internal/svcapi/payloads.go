package svcapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/shopspring/decimal"
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

// ---- 4.10 litigation ----

// Search types of LitigationRequest.
const (
	SearchEntity     = "Entity"
	SearchIndividual = "Individual"
)

// LitigationRequest is the body of the litigation search (spec 4.10).
// FatherName is mandatory when SearchType is Individual.
type LitigationRequest struct {
	Name       string `json:"name"`
	FatherName string `json:"fatherName,omitempty"`
	SearchType string `json:"searchType"`
	Address    string `json:"address"`
	Location
	ExternalRef string `json:"externalRef"`
}

// LitigationData is the data of the litigation search.
type LitigationData struct {
	Debit
	LitigationDetails []LitigationCase `json:"litigationDetails"`
}

// LitigationCase is one case record. The numeric father-name score field,
// whose name carries a vendor prefix, is not decoded. Scores are kept as
// their literal text.
type LitigationCase struct {
	Address             String     `json:"address"`
	AddressDistCode     String     `json:"addressDistCode"`
	AddressDistrict     String     `json:"addressDistrict"`
	AddressPincode      String     `json:"addressPincode"`
	AddressState        String     `json:"addressState"`
	AddressStateCode    String     `json:"addressStateCode"`
	AddressStreet       String     `json:"addressStreet"`
	AddressTaluka       String     `json:"addressTaluka"`
	AlgoRisk            String     `json:"algoRisk"`
	AllCandidates       StringList `json:"allCandidates"`
	BusinessCategory    String     `json:"businessCategory"`
	CaseCategory        String     `json:"caseCategory"`
	CaseCode            String     `json:"caseCode"`
	CaseDecisionDate    String     `json:"caseDecisionDate"`
	CaseFilter          String     `json:"caseFilter"`
	CaseNo              String     `json:"caseNo"`
	CaseNoYear          String     `json:"caseNoYear"`
	CaseStatus          String     `json:"caseStatus"`
	CaseType            String     `json:"caseType"`
	CaseTypeCode        String     `json:"caseTypeCode"`
	CaseTypeName        String     `json:"caseTypeName"`
	CaseYear            String     `json:"caseYear"`
	CleanName           String     `json:"cleanName"`
	CNR                 String     `json:"cnr"`
	CourtCode           Int        `json:"courtCode"`
	CourtComplexCode    String     `json:"courtComplexCode"`
	CourtName           String     `json:"courtName"`
	CourtNoAndJudge     String     `json:"courtNoAndJudge"`
	CourtNoJudge        String     `json:"courtNoJudge"`
	CourtNoName         String     `json:"courtNoName"`
	CourtNumberAndJudge String     `json:"courtNumberAndJudge"`
	CustomDistCode      String     `json:"customDistCode"`
	CustomStateCode     String     `json:"customStateCode"`
	DataCategory        String     `json:"dataCategory"`
	DecisionDate        String     `json:"decisionDate"`
	DistCode            Int        `json:"distCode"`
	DistName            String     `json:"distName"`
	FatherMatchType     String     `json:"fatherMatchType"` // NO_MATCH seen
	FileYear            String     `json:"fileYear"`
	FilingDate          String     `json:"filingDate"` // DD-MM-YYYY
	FilingDateNew       String     `json:"filingDateNew"`
	FilingNo            String     `json:"filingNo"`
	FilingNoNew         String     `json:"filingNoNew"`
	Fine                String     `json:"fine"`
	FirNo               String     `json:"firNo"`
	FirYear             String     `json:"firYear"`
	FirstHearingDate    String     `json:"firstHearingDate"`
	GlobalCategory      String     `json:"globalCategory"`
	ID                  String     `json:"id"`
	Imprisonment        String     `json:"imprisonment"`
	Link                String     `json:"link"`
	MD5                 String     `json:"md5"`
	ModelScore          String     `json:"modelScore"` // a number; literal text
	Name                String     `json:"name"`
	NameMatchType       String     `json:"nameMatchType"` // EXACT_FUZZY seen
	NatureOfDisposal    String     `json:"natureOfDisposal"`
	NextHearingDate     String     `json:"nextHearingDate"`
	Oparty              String     `json:"oparty"`
	OrderSummary        String     `json:"orderSummary"`
	PoliceStation       String     `json:"policeStation"`
	PurposeOfHearing    String     `json:"purposeOfHearing"`
	RawAddress          String     `json:"rawAddress"`
	Ref                 String     `json:"ref"`
	RegistrationDate    String     `json:"registrationDate"`
	RegistrationDateNew String     `json:"registrationDateNew"`
	RegistrationNo      String     `json:"registrationNo"`
	RegistrationNoNew   String     `json:"registrationNoNew"`
	Score               String     `json:"score"` // a number; literal text
	Source              String     `json:"source"`
	StageOfCase         String     `json:"stageOfCase"`
	StateCode           Int        `json:"stateCode"`
	StateName           String     `json:"stateName"`
	Subject             String     `json:"subject"`
	TimeStamp           String     `json:"timeStamp"` // ISO 8601
	Type                Int        `json:"type"`
	UnderActs           String     `json:"underActs"`
	UnderSections       String     `json:"underSections"`
	UniqCaseID          String     `json:"uniqCaseId"`
	Year                String     `json:"year"`
}

// Litigation calls the litigation search (spec 4.10).
func (c *Client) Litigation(ctx context.Context, req LitigationRequest) (*Envelope, *LitigationData, error) {
	return Call[LitigationData](ctx, c, OpLitigation, req)
}

// ---- 4.11 QR eKYC ----

// OkycQrRequest is the body of the QR eKYC start (spec 4.11).
type OkycQrRequest struct {
	Mobile string `json:"mobile,omitempty"`
	Email  string `json:"email,omitempty"`
	Location
	Consent     string `json:"consent"` // Y
	ExternalRef string `json:"externalRef,omitempty"`
}

// QrEkycData is the data of the QR eKYC start. The result arrives later by
// callback (DecodeCallback).
type QrEkycData struct {
	QrStatus   String `json:"qrStatus"`   // PENDING seen
	QrExpiryDt String `json:"qrExpiryDt"` // YYYY-MM-DD HH:MM:SS, IST
	QrString   String `json:"qrString"`
}

// OkycQr starts a QR-based eKYC (spec 4.11).
func (c *Client) OkycQr(ctx context.Context, req OkycQrRequest) (*Envelope, *QrEkycData, error) {
	return Call[QrEkycData](ctx, c, OpOkycQr, req)
}

// ---- 4.12 employment look-up ----

// CorporateEmpCheckRequest is the body of the mobile-to-employment look-up
// (spec 4.12).
type CorporateEmpCheckRequest struct {
	CustomerPhoneNumber string `json:"customerPhoneNumber"`
	Location
	ExternalRef string `json:"externalRef"`
	Consent     string `json:"consent"` // Y
}

// EmploymentData is the data of the employment look-up; its pool object is
// shape B. Absent values arrive as the text "NA".
type EmploymentData struct {
	EmployeData EmployeData `json:"employeData"` // spelled so by the service
	Pool        *Pool       `json:"pool,omitempty"`
}

// PoolObject returns the shape B pool debit object, or nil.
func (d *EmploymentData) PoolObject() *Pool { return d.Pool }

// EmployeData is the employment record.
type EmployeData struct {
	PersonalDetails   EmploymentPerson  `json:"personalDetails"`
	EmploymentDetails EmploymentDetails `json:"employmentDetails"`
}

// EmploymentPerson is the personal part of the employment record.
type EmploymentPerson struct {
	UserGender      String `json:"userGender"`
	UserDob         String `json:"userDob"` // DD/MM/YYYY
	UserFullName    String `json:"userFullName"`
	UserPhoneNumber String `json:"userPhoneNumber"`
}

// UnmarshalJSON accepts the object or "NA".
func (p *EmploymentPerson) UnmarshalJSON(b []byte) error {
	type plain EmploymentPerson
	return objectOrNA(b, (*plain)(p))
}

// EmploymentDetails is the employment part of the employment record.
type EmploymentDetails struct {
	IsEmployed           Bool              `json:"isEmployed"`
	DateOfExitMarked     Bool              `json:"dateOfExitMarked"`
	UanList              StringList        `json:"uanList"`
	UanCount             Int               `json:"uanCount"`
	RecentEmployerData   Employer          `json:"recentEmployerData"`
	PreviousEmployerData PreviousEmployers `json:"previousEmployerData"`
}

// UnmarshalJSON accepts the object or "NA".
func (d *EmploymentDetails) UnmarshalJSON(b []byte) error {
	type plain EmploymentDetails
	return objectOrNA(b, (*plain)(d))
}

// Employer is one employer of the employment record. The fields after
// UanNumber are filled for previous employers only.
type Employer struct {
	MemberID                  String `json:"memberId"`
	EstablishmentID           String `json:"establishmentId"`
	DateOfExit                String `json:"dateOfExit"`
	DateOfJoining             String `json:"dateOfJoining"`
	EstablishmentName         String `json:"establishmentName"`
	UanNumber                 String `json:"uanNumber"`
	SequenceNumber            String `json:"sequenceNumber,omitempty"`
	LeaveReason               String `json:"leaveReason,omitempty"`
	Mobile                    String `json:"mobile,omitempty"`
	AadhaarVerificationStatus String `json:"aadhaarVerificationStatus,omitempty"`
}

// UnmarshalJSON accepts the object or "NA".
func (e *Employer) UnmarshalJSON(b []byte) error {
	type plain Employer
	return objectOrNA(b, (*plain)(e))
}

// PreviousEmployers holds the previous employers.
type PreviousEmployers struct {
	List []Employer `json:"list"`
}

// UnmarshalJSON accepts the object, "NA", or a bare array of employers.
func (p *PreviousEmployers) UnmarshalJSON(b []byte) error {
	type plain PreviousEmployers
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		return json.Unmarshal(t, &p.List)
	}
	return objectOrNA(b, (*plain)(p))
}

// CorporateEmpCheck calls the mobile-to-employment look-up (spec 4.12).
func (c *Client) CorporateEmpCheck(ctx context.Context, req CorporateEmpCheckRequest) (*Envelope, *EmploymentData, error) {
	return Call[EmploymentData](ctx, c, OpCorporateEmpCheck, req)
}

// ---- 4.13 fund transfer ----

// Transfer modes of FundTransferRequest.
const (
	TransferIMPS = "IMPS"
	TransferNEFT = "NEFT"
	TransferRTGS = "RTGS"
)

// FundTransferRequest is the body of the domestic fund transfer (spec
// 4.13). TransferAmount is sent as an exact decimal string.
type FundTransferRequest struct {
	RemitterMobile string          `json:"remitterMobile"`
	BeneficiaryID  string          `json:"beneficiaryId"`
	TransferMode   string          `json:"transferMode"`
	TransferAmount decimal.Decimal `json:"transferAmount"`
	Location
	ExternalRef string `json:"externalRef"`
}

// FundTransferData is the data of the fund transfer.
type FundTransferData struct {
	Debit
	RemitterMobile     String `json:"remitterMobile"`
	BeneficiaryAccount String `json:"beneficiaryAccount"`
	BeneficiaryIfsc    String `json:"beneficiaryIfsc"`
}

// FundTransfer calls the domestic fund transfer (spec 4.13). No answer or a
// time-out is ErrPending: never send the same transfer again; look it up
// with TxnStatus.
func (c *Client) FundTransfer(ctx context.Context, req FundTransferRequest) (*Envelope, *FundTransferData, error) {
	return Call[FundTransferData](ctx, c, OpFundTransfer, req)
}

// ---- 4.14 company look-up ----

// CompanyLookupRequest is the body of the company look-up (spec 4.14).
type CompanyLookupRequest struct {
	CompanyIdentityNumber string `json:"companyIdentityNumber"`
	Location
	ExternalRef string `json:"externalRef"`
	Consent     string `json:"consent"` // Y
}

// CompanyData is the data of the company look-up.
type CompanyData struct {
	Debit
	CompanyData Company `json:"companyData"`
}

// Company is the company profile. Absent dates are "-".
type Company struct {
	Fllpin                            String     `json:"fllpin"`
	ForeignLlpName                    String     `json:"foreignLlpName"`
	CountryOfIncorporation            String     `json:"countryOfIncorporation"`
	NumberOfAuthorisedRepresentatives String     `json:"numberOfAuthorisedRepresentatives"`
	DateOfIncorporation               String     `json:"dateOfIncorporation"`
	RegisteredAddress                 String     `json:"registeredAddress"`
	EmailID                           String     `json:"emailId"`
	TypeOfOffice                      String     `json:"typeOfOffice"`
	Details                           String     `json:"details"`
	MainDivision                      String     `json:"mainDivisionOfBusinessActivityToBeCarriedOutInIndia"`
	DescriptionOfMainDivision         String     `json:"descriptionOfMainDivision"`
	LastFinancialYearEndDate          String     `json:"dateOfLastFinancialYearEndDateForWhichStatementOfAccountsAndSolvencyFiled"`
	FllpStatus                        String     `json:"fllpStatus"` // INACTIVE seen
	Directors                         []Director `json:"directors"`
}

// Director is one director of a company profile.
type Director struct {
	DinPan         String `json:"dinPan"`
	Name           String `json:"name"`
	BeginDate      String `json:"beginDate"`
	EndDate        String `json:"endDate"`
	SurrenderedDin String `json:"surrenderedDin"`
}

// CompanyLookup calls the company look-up (spec 4.14).
func (c *Client) CompanyLookup(ctx context.Context, req CompanyLookupRequest) (*Envelope, *CompanyData, error) {
	return Call[CompanyData](ctx, c, OpCompanyLookup, req)
}

// ---- 4.15 mobile to name ----

// MobileNameLookupRequest is the body of the mobile-to-name look-up (spec
// 4.15).
type MobileNameLookupRequest struct {
	MobileNumber string `json:"mobileNumber"`
	Location
	ExternalRef string `json:"externalRef"`
	Consent     string `json:"consent"` // Y
}

// MobileNameData is the data of the mobile-to-name look-up.
type MobileNameData struct {
	Debit
	MobileLinkedName String `json:"mobileLinkedName"` // a no-record text when nothing is found
}

// MobileNameLookup calls the mobile-to-name look-up (spec 4.15).
func (c *Client) MobileNameLookup(ctx context.Context, req MobileNameLookupRequest) (*Envelope, *MobileNameData, error) {
	return Call[MobileNameData](ctx, c, OpMobileNameLookup, req)
}

// ---- 4.16 brand gift card order ----

// BrandSender is the sender of a gift card.
type BrandSender struct {
	Name string `json:"name"`
}

// BrandReceiver is the receiver of a gift card.
type BrandReceiver struct {
	Name        string `json:"name"`
	Contact     string `json:"contact"` // mobile number or e-mail
	GiftMessage string `json:"gift_message"`
}

// BrandOrderRequest is the body of the brand gift card order (spec 4.16).
type BrandOrderRequest struct {
	ExternalRef  string        `json:"externalRef"`
	ProductKey   string        `json:"productKey"`
	Denomination int64         `json:"denomination"`
	Sender       BrandSender   `json:"sender"`
	Receiver     BrandReceiver `json:"receiver"`
	Location
}

// BrandOrderData is the data of the gift card order. Receiver.CardPin is
// secret and Receiver.CardNumber is masked in every log (Redact).
type BrandOrderData struct {
	Debit
	Sender struct {
		Name String `json:"name"`
	} `json:"sender"`
	Receiver struct {
		Name       String `json:"name"`
		Contact    String `json:"contact"`
		CardNumber String `json:"cardNumber"`
		CardPin    String `json:"cardPin"`
		CardExpiry String `json:"cardExpiry"` // YYYY-MM-DD
	} `json:"receiver"`
}

// BrandOrder orders a brand gift card (spec 4.16).
func (c *Client) BrandOrder(ctx context.Context, req BrandOrderRequest) (*Envelope, *BrandOrderData, error) {
	return Call[BrandOrderData](ctx, c, OpBrandOrder, req)
}

// ---- 4.17 mobile to PAN ----

// MobilePanLookupRequest is the body of the mobile-to-PAN look-up (spec
// 4.17). Consent is optional here.
type MobilePanLookupRequest struct {
	MobileNumber string `json:"mobileNumber"`
	ExternalRef  string `json:"externalRef"`
	Location
	Consent string `json:"consent,omitempty"`
}

// MobilePanData is the data of the mobile-to-PAN look-up.
type MobilePanData struct {
	Debit
	PanData struct {
		Name String `json:"name"`
		PAN  String `json:"pan"`
	} `json:"panData"`
}

// MobilePanLookup calls the mobile-to-PAN look-up (spec 4.17).
func (c *Client) MobilePanLookup(ctx context.Context, req MobilePanLookupRequest) (*Envelope, *MobilePanData, error) {
	return Call[MobilePanData](ctx, c, OpMobilePanLookup, req)
}

// ---- 4.18 PAN to DIN ----

// PanDinRequest is the body of the PAN-to-director-number look-up (spec
// 4.18).
type PanDinRequest struct {
	PAN string `json:"pan"`
	Location
	ExternalRef string `json:"externalRef"`
}

// PanDinData is the data of the PAN-to-director-number look-up.
type PanDinData struct {
	Debit
	PanDinData struct {
		DIN String `json:"din"`
	} `json:"panDinData"`
}

// PanDin calls the PAN-to-director-number look-up (spec 4.18).
func (c *Client) PanDin(ctx context.Context, req PanDinRequest) (*Envelope, *PanDinData, error) {
	return Call[PanDinData](ctx, c, OpPanDin, req)
}

// ---- 4.19 name abbreviation ----

// NameAbbreviationsRequest is the body of the name abbreviation (spec
// 4.19). MaxLength 0 is not sent.
type NameAbbreviationsRequest struct {
	Name        string `json:"name"`
	MaxLength   int    `json:"maxLength,omitempty"`
	ExternalRef string `json:"externalRef"`
}

// NameAbbreviationsData is the data of the name abbreviation. Its pool
// debit is at data level (PayableValue charged); the envelope orderid
// equals SvcID.
type NameAbbreviationsData struct {
	SvcID            String     `json:"svcId"`
	OpeningBalance   Amount     `json:"openingBalance"`
	ClosingBalance   Amount     `json:"closingBalance"`
	TransactionValue Amount     `json:"transactionValue"`
	PayableValue     Amount     `json:"payableValue"`
	Abbreviations    StringList `json:"abbreviations"`
}

// NameAbbreviations calls the name abbreviation (spec 4.19).
func (c *Client) NameAbbreviations(ctx context.Context, req NameAbbreviationsRequest) (*Envelope, *NameAbbreviationsData, error) {
	return Call[NameAbbreviationsData](ctx, c, OpNameAbbreviations, req)
}

// Pool returns the data-level pool debit of a balance inquiry.
func (d *BalanceInquiryData) Pool() (Pool, error) {
	return dataPool(d.OpeningBalance, d.PayableValue, d.ClosingBalance)
}

// Pool returns the data-level pool debit of a name abbreviation.
func (d *NameAbbreviationsData) Pool() (Pool, error) {
	return dataPool(d.OpeningBalance, d.PayableValue, d.ClosingBalance)
}

func dataPool(open, amount, closing Amount) (Pool, error) {
	p := Pool{Shape: PoolData, Mode: "DR"}
	for _, f := range []struct {
		a    Amount
		name string
		dst  *decimal.Decimal
	}{{open, "openingBalance", &p.Opening}, {amount, "payableValue", &p.Amount}, {closing, "closingBalance", &p.Closing}} {
		if !f.a.Valid {
			return Pool{}, fmt.Errorf("data.%s %q is not an amount", f.name, f.a.Raw)
		}
		*f.dst = f.a.Decimal
	}
	return p, nil
}
