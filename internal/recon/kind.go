package recon

import "fmt"

// Kind is the kind of a synced record: which statement endpoint it came
// from. It is stored in records.kind and sync_windows.kind.
type Kind string

// The record kinds.
const (
	Statement Kind = "statement" // plain statement (spec 4.4)
	Orders    Kind = "orders"    // collect-order statement (spec 4.3)
)

// Kinds lists the record kinds in sync order.
var Kinds = []Kind{Statement, Orders}

// ParseKind reads a kind name.
func ParseKind(s string) (Kind, error) {
	switch Kind(s) {
	case Statement, Orders:
		return Kind(s), nil
	}
	return "", fmt.Errorf("unknown record kind %q (want statement or orders)", s)
}

func (k Kind) String() string { return string(k) }
