package cli

import (
	"testing"
)

func TestSuggest(t *testing.T) {
	cands := []string{"run", "sync", "import-calls", "check", "export", "schedule", "history"}
	for _, c := range []struct{ in, want string }{
		{"chek", "check"}, {"CHECK", "check"}, {"imprt-calls", "import-calls"}, {"sched", "schedule"},
		{"export", "export"}, {"frobnicate", ""}, {"x", ""},
	} {
		if got := Suggest(c.in, cands); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
