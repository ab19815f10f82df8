package ledger_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestCheckSplitPostingIsOneGroup: the check, on a database. A call
// posted as a charge and a surcharge record (the call's orderid and
// externalRef) is one group of three parts, matched: no callOnly, no
// statementOnly, no duplicateDebit; the group's rows carry its id through
// the store to the reports.
func TestCheckSplitPostingIsOneGroup(t *testing.T) {
	db := openDB(t)
	addCalls(t, db,
		tcall{ts: "2026-11-21 10:00:00", ref: "R0", orderID: "S0", acct: "0409000123456", opening: "100.00", amount: "1.50", closing: "98.50"},
		tcall{ts: "2026-11-21 10:05:00", ref: "R1", orderID: "SA", acct: "0409000123456", opening: "98.50", amount: "29.50", closing: "69.00"})
	addRecords(t, db,
		trec{svc: "S0", client: "R0", ts: "2026-11-21 10:00:01", amount: "1.50"},
		trec{svc: "SA", client: "R1", ts: "2026-11-21 10:05:01", amount: "25.00"},
		trec{svc: "SB", client: "R1", ts: "2026-11-21 10:05:02", amount: "4.50"})
	rep := check(t, db, "2026-11-21", "2026-11-21", "")
	if got := storedMatches(t, db, rep.RunID); !maps.Equal(got, map[string]int{recon.Matched: 3}) {
		t.Errorf("stored outcomes = %v, want 3 matched (S0 alone, the call and its surcharge record in a group)", got)
	}
	if rep.HasFindings() || rep.Summary.Groups != (recon.GroupSum{Count: 1, Rows: 2, Amount: "29.50"}) {
		t.Errorf("findings %v, groups %+v; want none and one group of 29.50", rep.HasFindings(), rep.Summary.Groups)
	}
	var groups []string
	for m, err := range db.ReportMatches(context.Background(), rep.RunID) {
		if err != nil {
			t.Fatal(err)
		}
		groups = append(groups, m.SvcOrderID+" "+m.Group)
	}
	slices.Sort(groups)
	if want := []string{"S0 ", "SA G-R1", "SB G-R1"}; !slices.Equal(groups, want) {
		t.Errorf("reported rows = %q, want %q", groups, want)
	}
}
