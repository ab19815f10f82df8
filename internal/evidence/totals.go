package evidence

import (
	"fmt"
	"sort"
	"strings"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// Totals are the counts and control totals of the run at each step: what
// its sync fetched (null when it did not sync), what the database holds
// of the period (stored: records; imported: calls) and what the check
// counted. What an export wrote is in the manifest's export section.
type Totals struct {
	Fetched  []Fetched       `json:"fetched"`
	Stored   []StoredTotal   `json:"stored"`
	Imported []ImportedTotal `json:"imported"`
	Checked  Checked         `json:"checked"`
}

// Fetched is what one sync of the run did (the statement, or the collect
// orders).
type Fetched struct {
	Kind           string `json:"kind"` // statement or orders
	From           string `json:"from"`
	To             string `json:"to"`
	RecordsNew     int    `json:"recordsNew"`
	RecordsUpdated int    `json:"recordsUpdated"`
	RecordsLate    int    `json:"recordsLate"`
	Pages          int    `json:"pages"`
	Windows        int    `json:"windows"`
	WindowsFailed  int    `json:"windowsFailed"`
}

// CountSum is a count and an exact amount.
type CountSum struct {
	Count  int    `json:"count"`
	Amount string `json:"amount"`
}

// StoredTotal is what the database holds of one kind of record (statement,
// orders) of one account over the days of the inputs: records, debits
// (DR) and credits (CR) with their sums of txnChargedValue.
type StoredTotal struct {
	Kind    string   `json:"kind"`
	Account string   `json:"account"`
	Records int      `json:"records"`
	Debits  CountSum `json:"debits"`
	Credits CountSum `json:"credits"`
}

// ImportedTotal is what the database holds of the period's calls of one
// pool account ("" for calls without a pool object): how many, how many
// succeeded with a pool object, and the sum of their pool amounts.
type ImportedTotal struct {
	PoolAccount string   `json:"poolAccount"`
	Calls       int      `json:"calls"`
	Debited     CountSum `json:"debited"`
}

// Checked is what the check counted (its summary).
type Checked struct {
	Calls          int                 `json:"calls"`
	CallsWithDebit int                 `json:"callsWithDebit"`
	CallsFailed    int                 `json:"callsFailed"`
	CallsPending   int                 `json:"callsPending"`
	Debited        string              `json:"debited"`
	Credited       string              `json:"credited"`
	Pools          []recon.PoolSummary `json:"pools"`
	Outcomes       map[string]int      `json:"outcomes"`
	Breaks         map[string]int      `json:"breaks"`
	Unsettled      int                 `json:"unsettled"`
	Reversals      int                 `json:"reversals"`
	Unlinked       int                 `json:"unlinkedReversals"`
}

// checkedOf is the Checked totals of a check's summary.
func checkedOf(s *recon.Summary) Checked {
	c := Checked{Calls: s.Calls, CallsWithDebit: s.CallsWithDebit, CallsFailed: s.CallsFailed,
		CallsPending: s.CallsPending, Debited: orZero(s.Debited), Credited: orZero(s.Credited),
		Pools: s.Pools, Outcomes: map[string]int{}, Breaks: map[string]int{},
		Reversals: s.Reversals.Count, Unlinked: s.Reversals.Unlinked}
	if c.Pools == nil {
		c.Pools = []recon.PoolSummary{}
	}
	for k, o := range s.Outcomes {
		c.Outcomes[k] = o.Count
	}
	for k, b := range s.Breaks {
		c.Breaks[k] = b.Count
	}
	for _, u := range s.Unsettled {
		c.Unsettled += u.Count
	}
	return c
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// sums adds amounts per key, exactly.
type sums struct {
	count map[string]int
	sum   map[string]*recon.Sum
}

func newSums() *sums { return &sums{count: map[string]int{}, sum: map[string]*recon.Sum{}} }

func (s *sums) add(key, amount string) error {
	s.count[key]++
	if amount == "" {
		return nil
	}
	sum := s.sum[key]
	if sum == nil {
		sum = &recon.Sum{}
		s.sum[key] = sum
	}
	if err := sum.AddText(amount); err != nil {
		return fmt.Errorf("%s: amount %q is not a decimal", key, amount)
	}
	return nil
}

func (s *sums) get(key string) CountSum {
	var total recon.Sum
	if sum := s.sum[key]; sum != nil {
		total = *sum
	}
	return CountSum{Count: s.count[key], Amount: recon.Money(total.Decimal())}
}

// keys are the keys added, in order.
func (s *sums) keys() []string {
	out := make([]string, 0, len(s.count))
	for k := range s.count {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cut splits a sums key made of parts joined by "\x00".
func cut(key string) []string { return strings.Split(key, "\x00") }
