package ledger

import (
	"fmt"
	"testing"
)

// TestBloom: a string added is always found; strings never added are
// rarely "maybe" (each is then checked exactly), however many were added.
func TestBloom(t *testing.T) {
	b := newBloom()
	const n = 300_000
	for i := range n {
		b.add(fmt.Sprintf("RC%012d", i))
	}
	for i := range n {
		if s := fmt.Sprintf("RC%012d", i); !b.has(s) {
			t.Fatalf("has(%s) = false after add", s)
		}
	}
	maybe := 0
	for i := range n {
		if b.has(fmt.Sprintf("RF%012d", i)) {
			maybe++
		}
	}
	if rate := float64(maybe) / n; rate > 0.01 {
		t.Errorf("%d of %d strings never added answered maybe (%.3f%%), want under 1%%", maybe, n, 100*rate)
	}
	t.Logf("false maybe: %d of %d, %d slices", maybe, n, len(b.slices))
}
