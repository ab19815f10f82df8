package svcapi

import (
	"bytes"
	"context"
	"encoding/json"
)

// Typed bodies, payloads and methods of the look-up operations 4.10–4.12
// (litigation, QR eKYC, employment); see payloads.go for the shared types.

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
