package cli

import (
	"github.com/svcrecon/svcrecon/internal/rates"
)

// LoadRates reads the rate card of a --rates flag ("" none: nil). A
// mistake in it, or a card that cannot be read, is a usage error (exit 2)
// naming the file and the line, found before anything is created or sent.
func LoadRates(cmd, path string) (*rates.Card, error) {
	if path == "" {
		return nil, nil
	}
	c, err := rates.Load(path)
	if err != nil {
		return nil, Usagef("%s: --rates: %v", cmd, err)
	}
	return c, nil
}
