package recon

// Summary is the summary of one reconciliation run, as the ledger writes it
// (recon_runs.summary, JSON) and export reads it back. Amounts are exact
// decimal strings (Money); every outcome, break kind and bucket is present.
type Summary struct {
	From           string              `json:"from"`
	To             string              `json:"to"`
	AsOf           string              `json:"asOf"`
	Pools          []PoolSummary       `json:"pools"`
	Calls          int                 `json:"calls"`
	CallsWithDebit int                 `json:"callsWithDebit"`
	CallsFailed    int                 `json:"callsFailed"`
	CallsPending   int                 `json:"callsPending"`
	Debited        string              `json:"debited"`
	Credited       string              `json:"credited"`
	Outcomes       map[string]CountSum `json:"outcomes"`
	Breaks         map[string]BreakSum `json:"breaks"`
	Reversals      ReversalSum         `json:"reversals"`
	Unsettled      map[string]CountSum `json:"unsettled"`
	Pending        CountSum            `json:"pending"`
	// SuggestedPairs counts the callOnly calls paired with a statementOnly
	// record that is probably the same debit (never counted as matched).
	// 0 in runs made before suggestions existed.
	SuggestedPairs int `json:"suggestedPairs"`
	// PairingSkipped, when set, says why no pairs were suggested although
	// calls and records were left unmatched (too many of them to hold).
	PairingSkipped string `json:"pairingSkipped,omitempty"`
	// Groups counts the groups matched as one: a call and the records it
	// was posted as, several calls and the record that settled them (parts
	// summing exactly to the whole). Zero in runs made before groups.
	Groups GroupSum `json:"groups"`
	// Differences counts the field-level differences of the pairs linked
	// by key, by field (DiffFields). Nil in runs made before them.
	Differences map[string]int `json:"differences,omitempty"`
	// Matching are the settings the matching ran with (nil in runs made
	// before they were kept).
	Matching *MatchSettings `json:"matching,omitempty"`
	// Fees is what the fees stage found against the rate card; nil when
	// the check was given none (the fees were not checked).
	Fees *FeeSummary `json:"fees,omitempty"`
}

// GroupSum counts groups matched as one, the rows (parts) they hold, and
// the amount they settle (the whole of each).
type GroupSum struct {
	Count  int    `json:"count"`
	Rows   int    `json:"rows"`
	Amount string `json:"amount"`
}

// MatchSettings are the settings of a run's matching: the suggested
// pairs' time window and amount tolerances (rupees, percent of the call's
// amount; PairRule words them), and the timing window (durations as Go
// writes them: "10m0s").
type MatchSettings struct {
	PairWindow   string `json:"pairWindow"`
	PairAmount   string `json:"pairAmount"`
	PairPercent  string `json:"pairPercent"`
	PairRule     string `json:"pairRule"`
	TimingWindow string `json:"timingWindow"`
}

// PoolSummary is one pool account's chain over the period.
type PoolSummary struct {
	Account string `json:"account"`
	Opening string `json:"opening"` // the first chained call's opening
	Closing string `json:"closing"` // the last chained call's closing
	Calls   int    `json:"calls"`
	Debited string `json:"debited"`
}

// CountSum is a count and an exact amount.
type CountSum struct {
	Count  int    `json:"count"`
	Amount string `json:"amount"`
}

// BreakSum is a count of breaks and their total delta.
type BreakSum struct {
	Count int    `json:"count"`
	Delta string `json:"delta"`
}

// ReversalSum counts reversed records; Unlinked have no synced reversal record.
type ReversalSum struct {
	Count    int    `json:"count"`
	Amount   string `json:"amount"`
	Unlinked int    `json:"unlinked"`
}
