package svcapi

import (
	"fmt"
	"sort"
	"strings"

	"github.com/svcrecon/svcrecon/internal/redact"
)

// HeaderSet names the identification headers an operation sends (spec §4, §5).
type HeaderSet string

// Header sets of spec §4: H4 is auth code, client id, client secret and
// endpoint IP; H5 adds the outlet id.
const (
	H4 HeaderSet = "H4"
	H5 HeaderSet = "H5"
)

// FieldType is the contract type of a request field. Values arriving as text
// (a CSV cell, a flag) are converted to it; everything else stays a string so
// that leading zeros and long ids survive.
type FieldType string

// Field types of the request schemas.
const (
	TypeString  FieldType = "string"
	TypeInteger FieldType = "integer"
	TypeDecimal FieldType = "decimal" // an amount; sent as a string, must parse as a decimal
	TypeBoolean FieldType = "boolean"
	TypeDate    FieldType = "date" // YYYY-MM-DD, sent as a string
)

// Requirement says whether a field must be present.
type Requirement string

// Requirements of the request schemas.
const (
	Mandatory   Requirement = "mandatory"
	Optional    Requirement = "optional"
	Conditional Requirement = "conditional" // mandatory when Field.When holds
)

// Condition makes a Conditional field mandatory when another field of the
// request has one of the given values (compared as text, case-sensitive).
type Condition struct {
	Field  string
	Equals []string
}

func (c Condition) String() string {
	return fmt.Sprintf("when %s is %s", c.Field, strings.Join(c.Equals, " or "))
}

// Field describes one request field. Name is dotted for nested objects
// (biometricData.pidData, sender.name, pagination.pageNumber).
type Field struct {
	Name     string
	Type     FieldType
	Req      Requirement
	When     *Condition // for Conditional fields
	Enum     []string   // allowed values, when the spec lists them
	Aliases  []string   // other names the spec shows for the same field
	Doc      string
	Redacted bool // never written to a log, the database or an export
}

// Rule renders the requirement in words, for help texts.
func (f Field) Rule() string {
	r := string(f.Req)
	if f.When != nil {
		r += " " + f.When.String()
	}
	if len(f.Enum) > 0 {
		r += "; one of " + strings.Join(f.Enum, ", ")
	}
	return r
}

// PoolShape says where an operation's response carries its pool debit.
type PoolShape string

// Pool shapes of spec §2.2.
const (
	PoolNone PoolShape = ""
	PoolA    PoolShape = "A"    // data.pool: openingBal, amount, closingBal
	PoolB    PoolShape = "B"    // data.pool: openingBalance, paymentAmount, closingBalance
	PoolData PoolShape = "data" // data: openingBalance, payableValue, closingBalance
)

// Operation describes one operation of the service: everything the client,
// the sandbox and the bulk executor need to call or serve it.
type Operation struct {
	Name       string
	Method     string
	Path       string
	Headers    HeaderSet
	HashHeader bool // sends X-Svc-Request-Hash, -Timestamp and -Hash-Check
	// Billable operations may debit the pool or change state: they are never
	// retried, and an unknown outcome is pending. Read-only ones are retried.
	Billable bool
	Pool     PoolShape
	Doc      string
	Fields   []Field
}

// ReadOnly reports whether the operation is safe to retry.
func (op *Operation) ReadOnly() bool { return !op.Billable }

// LogsData reports whether the call log keeps the data of this operation's
// answers. Report pages and lists (statement, collect orders, billers, bank
// lists) are logged without it: their records are stored by the sync, and
// re-encoding them for every page would cost more than the call. Billable
// calls and txnStatus look-ups (which resolve pending calls) keep it.
func (op *Operation) LogsData() bool { return op.Billable || op.Name == OpTxnStatus }

// Field returns the schema of the named field (or one of its aliases).
func (op *Operation) Field(name string) (Field, bool) {
	for _, f := range op.Fields {
		if f.Name == name {
			return f, true
		}
		for _, a := range f.Aliases {
			if a == name {
				return f, true
			}
		}
	}
	return Field{}, false
}

func str(name string, req Requirement, doc string) Field {
	return Field{Name: name, Type: TypeString, Req: req, Doc: doc}
}

func when(f Field, field string, values ...string) Field {
	f.Req = Conditional
	f.When = &Condition{Field: field, Equals: values}
	return f
}

func enum(f Field, values ...string) Field { f.Enum = values; return f }

func typed(f Field, t FieldType) Field { f.Type = t; return f }

var location = []Field{
	str("latitude", Mandatory, "latitude of the end customer"),
	str("longitude", Mandatory, "longitude of the end customer"),
}

var consentY = enum(str("consent", Mandatory, "customer consent; must be Y"), "Y")

func ref(req Requirement) Field {
	return str("externalRef", req, "client-chosen unique transaction id, alphanumeric")
}

func fields(groups ...[]Field) []Field {
	var out []Field
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func one(f ...Field) []Field { return f }

func reportFields(isOrder bool) []Field {
	fs := one(
		str("bankProfileId", Mandatory, "bank profile id; 0 for collect orders"),
		str("accountNumber", Mandatory, "linked current account number"),
		ref(Mandatory),
		str("pagination.pageNumber", Mandatory, "page number, from 1"),
		str("pagination.recordsPerPage", Mandatory, "records per page"),
		typed(str("filters.txnDateFrom", Mandatory, "start date"), TypeDate),
		typed(str("filters.txnDateTo", Mandatory, "end date"), TypeDate),
	)
	if isOrder {
		fs = append(fs, enum(typed(str("isOrder", Mandatory, "must be true"), TypeBoolean), "true"))
	}
	return fs
}

var biometricMandatory = []string{"encryptedAadhaar", "dc", "ci", "hmac", "dpId", "mc", "pidDataType",
	"sessionKey", "mi", "rdsId", "fType", "iCount", "pType", "srno", "pidData", "qScore", "nmPoints", "rdsVer"}
var biometricOptional = []string{"errCode", "errInfo", "fCount", "iType", "pCount", "sysid", "ts"}

// RedactedKeys are the request and response keys whose values are removed
// before anything is written (design: the call log); redact.RemovedKeys.
var RedactedKeys = redact.RemovedKeys

// MaskedKeys are the keys whose values are masked to their last four
// characters; redact.MaskedKeys.
var MaskedKeys = redact.MaskedKeys

func biometricFields() []Field {
	var fs []Field
	for _, n := range biometricMandatory {
		f := str("biometricData."+n, Mandatory, "from the registered-device service")
		f.Redacted = IsRedactedKey(n)
		fs = append(fs, f)
	}
	for _, n := range biometricOptional {
		fs = append(fs, str("biometricData."+n, Optional, "device capture data"))
	}
	return fs
}

// operations is the registry: one entry per operation of spec §4 plus the
// transaction-status look-up of the design. It is data: the client, the
// sandbox and bulkrun all read it.
var operations = []Operation{
	{Name: "creditReport", Method: "POST", Path: "/identity/creditReport", Headers: H4, Billable: true, Pool: PoolA,
		Doc: "credit report of a person (spec 4.1)",
		Fields: fields(one(
			str("name", Mandatory, "user's name"),
			typed(str("dob", Mandatory, "date of birth"), TypeDate),
			Field{Name: "mobile", Type: TypeString, Req: Mandatory, Aliases: []string{"mobileNumber"}, Doc: "mobile number"},
			str("inquiryPurposeCode", Mandatory, "purpose of enquiry"),
			str("gender", Mandatory, "gender of user"),
			str("homeAddress.addressLine1", Optional, "address line 1"),
			str("homeAddress.addressLine2", Optional, "address line 2"),
			str("homeAddress.locality", Optional, "locality"),
			str("homeAddress.city", Optional, "city"),
			str("homeAddress.state", Optional, "state"),
			str("homeAddress.postal", Optional, "postal code"),
			str("taxIdNumber", Optional, "PAN"),
			str("drivingLicenseNumber", Optional, "driving licence number"),
			str("voterIdNumber", Optional, "voter id"),
			str("passportNumber", Optional, "passport number"),
			str("rationCardNumber", Optional, "ration card number"),
			str("otherID", Optional, "other identity number"),
		), location, one(enum(str("consent", Mandatory, "Y or N"), "Y", "N"), ref(Mandatory)))},
	{Name: "addPaymentMethod", Method: "POST", Path: "/contacts/payment", Headers: H4, HashHeader: true, Billable: true,
		Doc: "add a payment method to a contact (spec 4.2)",
		Fields: one(
			str("gcId", Mandatory, "contact id from the add-contact operation"),
			enum(str("accountType", Mandatory, "kind of payment method"), "VPA", "WALLET", "ACCOUNT"),
			when(str("upiId", Mandatory, "UPI address"), "accountType", "VPA"),
			when(str("accountNumber", Mandatory, "bank account number"), "accountType", "ACCOUNT"),
			when(str("accountIfsc", Mandatory, "IFS code"), "accountType", "ACCOUNT"),
			when(str("beneficiaryName", Mandatory, "beneficiary name"), "accountType", "ACCOUNT"),
			when(str("phoneNumber", Mandatory, "wallet phone number"), "accountType", "WALLET"),
			typed(str("isVerificationOn", Optional, "true: verify, then add"), TypeBoolean),
			when(ref(Mandatory), "isVerificationOn", "true"),
			when(str("latitude", Mandatory, "latitude"), "isVerificationOn", "true"),
			when(str("longitude", Mandatory, "longitude"), "isVerificationOn", "true"),
		)},
	{Name: "collectOrders", Method: "POST", Path: "/reports/statement", Headers: H4, Pool: PoolNone,
		Doc: "collect-order statement page (spec 4.3)", Fields: reportFields(true)},
	{Name: "statement", Method: "POST", Path: "/reports/statement", Headers: H4,
		Doc: "account statement page (spec 4.4)", Fields: reportFields(false)},
	{Name: "billers", Method: "POST", Path: "/marketplace/utilityPayments/billers", Headers: H5,
		Doc: "utility biller list page (spec 4.5)",
		Fields: one(
			str("pagination.pageNumber", Optional, "page number"),
			str("pagination.recordsPerPage", Optional, "records per page"),
			str("filters.updatedAfterDate", Optional, "only billers updated after this date (empty: all)"),
			str("filters.categoryKey", Optional, "only this category (empty: all)"),
		)},
	{Name: "balanceInquiry", Method: "POST", Path: "/fi/aeps/balanceInquiry", Headers: H5, Billable: true, Pool: PoolData,
		Doc: "biometric balance inquiry (spec 4.6)",
		Fields: fields(one(
			str("bankiin", Mandatory, "bank IIN from the biometric bank list"),
		), location, one(
			str("mobile", Mandatory, "user's mobile number"),
			ref(Mandatory),
			enum(str("captureType", Optional, "capture type"), "FINGER", "FACE", "IRIS"),
		), biometricFields())},
	{Name: "verifyPanPlusV2", Method: "POST", Path: "/identity/verifyPanPlusV2", Headers: H4, Billable: true, Pool: PoolA,
		Doc:    "PAN verification plus, version 2 (spec 4.7)",
		Fields: fields(one(str("pan", Mandatory, "PAN")), location, one(ref(Mandatory), consentY))},
	{Name: "initiateUserRegistration", Method: "POST", Path: "/cards/prepaid/initiateUserRegistration", Headers: H4, HashHeader: true, Billable: true,
		Doc: "start prepaid card user registration; sends an OTP (spec 4.8)",
		Fields: fields(one(
			str("mobile", Mandatory, "mobile number"),
			str("email", Mandatory, "e-mail address"),
			str("pan", Mandatory, "PAN"),
			str("pincode", Mandatory, "PIN code"),
		), location)},
	{Name: "aepsBanks", Method: "GET", Path: "/fi/aeps/banks", Headers: H5, Doc: "biometric bank list (spec 4.9)"},
	{Name: "litigation", Method: "POST", Path: "/identity/litigation", Headers: H4, Billable: true, Pool: PoolA,
		Doc: "litigation search (spec 4.10)",
		Fields: fields(one(
			str("name", Mandatory, "entity or individual name"),
			when(str("fatherName", Mandatory, "father's name"), "searchType", "Individual"),
			enum(str("searchType", Mandatory, "kind of search"), "Entity", "Individual"),
			str("address", Mandatory, "address"),
		), location, one(ref(Mandatory)))},
	{Name: "okycQr", Method: "POST", Path: "/identity/okyc/qr", Headers: H4, Billable: true,
		Doc: "start QR-based eKYC (spec 4.11); the result arrives by callback",
		Fields: fields(one(
			str("mobile", Optional, "mobile number"),
			str("email", Optional, "e-mail address"),
		), location, one(consentY, ref(Optional)))},
	{Name: "corporateEmpCheck", Method: "POST", Path: "/identity/corporateEmpCheck", Headers: H4, Billable: true, Pool: PoolB,
		Doc:    "mobile to employment provident fund account (spec 4.12)",
		Fields: fields(one(str("customerPhoneNumber", Mandatory, "customer's phone number")), location, one(ref(Mandatory), consentY))},
	{Name: "fundTransfer", Method: "POST", Path: "/fi/remit/out/domestic/fundTransfer", Headers: H5, Billable: true, Pool: PoolA,
		Doc: "domestic fund transfer (spec 4.13); all fields treated as mandatory",
		Fields: fields(one(
			str("remitterMobile", Mandatory, "remitter's mobile number"),
			str("beneficiaryId", Mandatory, "beneficiary id"),
			enum(str("transferMode", Mandatory, "transfer mode"), "IMPS", "NEFT", "RTGS"),
			typed(str("transferAmount", Mandatory, "amount in rupees"), TypeDecimal),
		), location, one(ref(Mandatory)))},
	{Name: "companyLookup", Method: "POST", Path: "/identity/company/lookup", Headers: H4, Billable: true, Pool: PoolA,
		Doc:    "company profile look-up (spec 4.14)",
		Fields: fields(one(str("companyIdentityNumber", Mandatory, "company identity number")), location, one(ref(Mandatory), consentY))},
	{Name: "mobileNameLookup", Method: "POST", Path: "/identity/mobile/nameLookup", Headers: H4, Billable: true, Pool: PoolA,
		Doc:    "mobile number to name (spec 4.15)",
		Fields: fields(one(str("mobileNumber", Mandatory, "mobile number")), location, one(ref(Mandatory), consentY))},
	{Name: "brandOrder", Method: "POST", Path: "/cards/brand/order", Headers: H4, Billable: true, Pool: PoolA,
		Doc: "brand gift card order (spec 4.16)",
		Fields: fields(one(
			ref(Mandatory),
			str("productKey", Mandatory, "product key"),
			typed(str("denomination", Mandatory, "card value"), TypeInteger),
			str("sender.name", Mandatory, "sender's name"),
			str("receiver.name", Mandatory, "receiver's name"),
			str("receiver.contact", Mandatory, "receiver's mobile number or e-mail"),
			str("receiver.gift_message", Mandatory, "gift message"),
		), location)},
	{Name: "mobilePanLookup", Method: "POST", Path: "/identity/mobile/panLookup", Headers: H4, Billable: true, Pool: PoolA,
		Doc: "mobile number to PAN (spec 4.17)",
		Fields: fields(one(str("mobileNumber", Mandatory, "mobile number"), ref(Mandatory)), location,
			one(enum(str("consent", Optional, "customer consent"), "Y", "N")))},
	{Name: "panDin", Method: "POST", Path: "/identity/pan/din", Headers: H4, Billable: true, Pool: PoolA,
		Doc:    "PAN to director identification number (spec 4.18)",
		Fields: fields(one(str("pan", Mandatory, "PAN")), location, one(ref(Mandatory)))},
	{Name: "nameAbbreviations", Method: "POST", Path: "/identity/nameAbbreviations", Headers: H4, Billable: true, Pool: PoolData,
		Doc: "name abbreviations (spec 4.19)",
		Fields: one(
			Field{Name: "name", Type: TypeString, Req: Mandatory, Aliases: []string{"Name"}, Doc: "name to abbreviate"},
			typed(str("maxLength", Optional, "maximum length allowed"), TypeInteger),
			ref(Mandatory),
		)},
	{Name: "verifyBankAccountBanks", Method: "GET", Path: "/identity/verifyBankAccount/banks", Headers: H4,
		Doc: "account-verification bank list (spec 4.20)"},
	{Name: "txnStatus", Method: "POST", Path: "/reports/txnStatus", Headers: H4,
		Doc: "status of a transaction by its externalRef (design: pending calls)",
		Fields: one(
			typed(str("transactionDate", Mandatory, "day of the transaction"), TypeDate),
			ref(Mandatory),
		)},
}

var byName = func() map[string]*Operation {
	m := make(map[string]*Operation, len(operations))
	for i := range operations {
		m[operations[i].Name] = &operations[i]
	}
	return m
}()

// Operations returns every operation of the registry, sorted by name. The
// returned values are copies: changing them does not change the registry.
func Operations() []Operation {
	out := make([]Operation, len(operations))
	copy(out, operations)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the named operation, or false.
func Lookup(name string) (*Operation, bool) {
	if op, ok := byName[name]; ok {
		return op, true
	}
	// Names match regardless of case (verifypanplusv2); callers use op.Name.
	for n, op := range byName {
		if strings.EqualFold(n, name) {
			return op, true
		}
	}
	return nil, false
}

// Operation names, for callers that use them in code.
const (
	OpCreditReport             = "creditReport"
	OpAddPaymentMethod         = "addPaymentMethod"
	OpCollectOrders            = "collectOrders"
	OpStatement                = "statement"
	OpBillers                  = "billers"
	OpBalanceInquiry           = "balanceInquiry"
	OpVerifyPanPlusV2          = "verifyPanPlusV2"
	OpInitiateUserRegistration = "initiateUserRegistration"
	OpAepsBanks                = "aepsBanks"
	OpLitigation               = "litigation"
	OpOkycQr                   = "okycQr"
	OpCorporateEmpCheck        = "corporateEmpCheck"
	OpFundTransfer             = "fundTransfer"
	OpCompanyLookup            = "companyLookup"
	OpMobileNameLookup         = "mobileNameLookup"
	OpBrandOrder               = "brandOrder"
	OpMobilePanLookup          = "mobilePanLookup"
	OpPanDin                   = "panDin"
	OpNameAbbreviations        = "nameAbbreviations"
	OpVerifyBankAccountBanks   = "verifyBankAccountBanks"
	OpTxnStatus                = "txnStatus"
)
