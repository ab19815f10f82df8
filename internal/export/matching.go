package export

import (
	"strconv"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The matching's later findings on the Summary: the groups matched as one,
// the timing differences and the field-level differences (summary.csv:
// section matching, after the other rows, so that those stay as they
// were).

// csvOutcomes are the outcomes of summary.csv's outcomes section, as it
// was first written; an outcome added later (timing) is in the matching
// section at the end.
var csvOutcomes = []string{recon.Matched, recon.AmountMismatch, recon.CallOnly, recon.StatementOnly, recon.DuplicateDebit,
	recon.Pending, recon.Reversed}

// matchingPairs are summary.csv's section matching: groups.count, .rows,
// .amount, timing.count, .amount, and differences.<field>.
func matchingPairs(s *recon.Summary) []pair {
	const sec = "matching"
	n := strconv.Itoa
	t := s.Outcomes[recon.Timing]
	p := []pair{{sec, "groups.count", n(s.Groups.Count)}, {sec, "groups.rows", n(s.Groups.Rows)},
		{sec, "groups.amount", orZero(s.Groups.Amount)}, {sec, "timing.count", n(t.Count)}, {sec, "timing.amount", orZero(t.Amount)}}
	for _, f := range recon.DiffFields {
		p = append(p, pair{sec, "differences." + f, n(s.Differences[f])})
	}
	return p
}

// summaryMatching writes the Summary's block of the groups and the
// field-level differences (timing is among the outcomes above it).
func summaryMatching(g *grid, s *recon.Summary) {
	g.skip()
	g.put(roleSection, MarkNone, "Matched as one group", "Count", "Amount")
	g.put(roleCell, MarkNone, "Groups (a call + its records, or calls + a record)", s.Groups.Count, amount(orZero(s.Groups.Amount)))
	g.put(roleCell, MarkNone, "Their rows (Matching: group)", s.Groups.Rows)
	g.skip()
	g.put(roleSection, MarkNone, "Field differences (Differences)", "Count")
	for _, f := range recon.DiffFields {
		g.put(roleCell, markIf(s.Differences[f] > 0, MarkLook), f, s.Differences[f])
	}
}
