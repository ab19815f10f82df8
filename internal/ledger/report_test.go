package ledger

import (
	"fmt"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestWriteTextShowsTheFirstFindings: the text shows the first 20
// unexplained breaks, exceptions (but pending calls) and suggested pairs,
// and says how many more there are; explained gaps are not shown.
func TestWriteTextShowsTheFirstFindings(t *testing.T) {
	r := &Report{RunID: 7, Summary: recon.Summary{From: "2026-11-21", To: "2026-11-21", AsOf: "2026-11-21"}}
	for i := range 25 {
		r.Breaks = append(r.Breaks, Break{Kind: recon.BreakGap, CallID: int64(i + 1), Delta: dec("1")},
			Break{Kind: recon.BreakExplainedGap, CallID: int64(i + 1)})
		r.Exceptions = append(r.Exceptions, Match{Outcome: recon.CallOnly, CallID: int64(i + 1), SuggestedPair: fmt.Sprint("record S", i)},
			Match{Outcome: recon.Pending, CallID: int64(100 + i)})
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"(run 7)\n", "gap  call 20 : expected 0.00, actual 0.00, delta 1.00\n",
		"… and 5 more breaks\n", "callOnly  externalRef - svcOrderId - call - statement -\n",
		"… and 5 more matching exceptions\n", "suggested pair  call 20 ↔ record S19\n", "… and 5 more suggested pairs\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"call 21 ", "explainedGap  call", "pending  externalRef"} {
		if strings.Contains(text, not) {
			t.Errorf("text shows %q:\n%s", not, text)
		}
	}
}
