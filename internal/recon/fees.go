package recon

// The kinds of a fee finding: the statement's debits against the prices of
// a rate card (package rates; ledger's fees stage).
const (
	// Overcharged: a debit cost more than its price (beyond the card's
	// tolerance), or its cashback was short of the card's.
	Overcharged = "overcharged"
	// Undercharged: a debit cost less than its price (beyond the tolerance).
	Undercharged = "undercharged"
	// Unpriced: a product the card has no price for on a debit's day; one
	// finding per product, with how many debits and their total.
	Unpriced = "unpriced"
)

// FeeKinds lists the kinds of a fee finding, in the order finance reads them.
var FeeKinds = []string{Overcharged, Undercharged, Unpriced}

// FeeSummary is what a check with a rate card found of the fees: the card
// (its path as given and SHA-256), the debits priced, and per kind how
// many and how much: overcharged and undercharged count their rows and
// total the differences' absolute values (too much, too little);
// unpriced counts the debits not priced and totals their
// txnChargedValue, of UnpricedProducts products.
type FeeSummary struct {
	RateCard         string              `json:"rateCard"`
	SHA256           string              `json:"sha256"`
	Priced           int                 `json:"priced"`
	UnpricedProducts int                 `json:"unpricedProducts"`
	Kinds            map[string]CountSum `json:"kinds"`
}
