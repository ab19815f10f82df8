package svcapi

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"
)

// Typed bodies, payloads and methods of operations 4.13–4.19 (fund
// transfer, company and mobile look-ups, gift cards, PAN to DIN, name
// abbreviation); see payloads.go for the shared types.

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
