package ledger_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestCheckGivesPairingUpPastMaxOrphans: past ledger.MaxOrphans unmatched rows
// the check stores each as it finds it and suggests no pair, and says so;
// every row gets the outcome it gets with pairing, a statementOnly record
// stored before its clientOrderId turned out to be debited twice
// included.
func TestCheckGivesPairingUpPastMaxOrphans(t *testing.T) {
	db := openDB(t)
	const acct = "0409000123456"
	addCalls(t, db,
		tcall{ts: "2026-11-21 10:00:00", ref: "R1", orderID: "O1", acct: acct, opening: "100", amount: "1.50", closing: "98.50"},
		tcall{ts: "2026-11-21 10:05:00", acct: acct, opening: "98.50", amount: "1.50", closing: "97.00"}, // lost its keys
		tcall{ts: "2026-11-21 12:00:00", ref: "R3", orderID: "O3", acct: acct, opening: "97.00", amount: "25.00", closing: "72.00"})
	addRecords(t, db,
		trec{svc: "OD1", client: "RD", ts: "2026-11-21 08:00:00", amount: "3.00", product: "IDV"}, // no call; debited again at 20:00
		trec{svc: "O1", client: "R1", ts: "2026-11-21 10:00:00", amount: "1.50", product: "IDV"},
		trec{svc: "O2", client: "R2", ts: "2026-11-21 10:05:01", amount: "1.50", product: "IDV"},
		trec{svc: "O4", client: "R4", ts: "2026-11-21 18:00:00", amount: "25.00", product: "LIT"},
		trec{svc: "OD2", client: "RD", ts: "2026-11-21 20:00:00", amount: "3.00", product: "IDV"})

	// The rows, each note without why no pair was suggested.
	rows := func(rep *ledger.Report) []string {
		t.Helper()
		out := matchLines(t, db, rep.RunID, "note")
		for i, l := range out {
			out[i], _, _ = strings.Cut(l, "; no suggested pair")
		}
		return out
	}
	paired := check(t, db, "2026-11-21", "2026-11-21", "")
	want := rows(paired)

	o := ledger.CheckOptions{From: date(t, "2026-11-21"), To: date(t, "2026-11-21"), MaxOrphans: 1,
		Now: func() time.Time { return time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC) }}
	rep, err := ledger.Check(context.Background(), db, o)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.SuggestedPairs != 0 || s.PairingSkipped != "more than 1 unmatched calls and records" {
		t.Errorf("SuggestedPairs %d, PairingSkipped %q; want 0 and why", s.SuggestedPairs, s.PairingSkipped)
	}
	if paired.Summary.SuggestedPairs != 1 || paired.Summary.PairingSkipped != "" {
		t.Errorf("with room: SuggestedPairs %d, PairingSkipped %q; want 1 and none", paired.Summary.SuggestedPairs, paired.Summary.PairingSkipped)
	}
	for _, o := range recon.Outcomes {
		if s.Outcomes[o] != paired.Summary.Outcomes[o] {
			t.Errorf("%s: %+v unpaired, %+v paired; want the same", o, s.Outcomes[o], paired.Summary.Outcomes[o])
		}
	}
	if s.Outcomes[recon.DuplicateDebit].Count != 2 {
		t.Errorf("duplicateDebit %+v; want both records of RD", s.Outcomes[recon.DuplicateDebit])
	}
	if got := rows(rep); !slices.Equal(got, want) {
		t.Errorf("recon_matches unpaired:\n%s\nwant, as paired:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM recon_matches WHERE run_id = ? AND outcome IN (?, ?)
		AND note LIKE '%no suggested pair: more than 1 unmatched calls and records'`, rep.RunID, recon.CallOnly, recon.StatementOnly).Scan(&n); err != nil || n != 4 {
		t.Errorf("rows noted unpaired = %d, %v; want the 4 callOnly and statementOnly", n, err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "none suggested: more than 1 unmatched calls and records") {
		t.Errorf("WriteText does not say why no pair was suggested:\n%s", text.String())
	}

}

// TestCheckSuggestsPairs: a call that lost its orderid and externalRef and
// its debit's record are suggested as a pair on both rows of
// recon_matches, explained; they stay callOnly and statementOnly, and the
// run still has findings.
func TestCheckSuggestsPairs(t *testing.T) {
	db := openDB(t)
	const acct = "0409000123456"
	addCalls(t, db,
		tcall{ts: "2026-11-21 10:00:00", ref: "R1", orderID: "O1", acct: acct, opening: "100", amount: "1.50", closing: "98.50"},
		tcall{ts: "2026-11-21 10:05:00", acct: acct, opening: "98.50", amount: "1.50", closing: "97.00"}, // lost its keys
		tcall{ts: "2026-11-21 12:00:00", op: svcapi.OpLitigation, ref: "R3", orderID: "O3", acct: acct, opening: "97.00", amount: "25.00", closing: "72.00"})
	addRecords(t, db,
		trec{svc: "O1", client: "R1", ts: "2026-11-21 10:00:00", amount: "1.50", product: "IDV"},
		trec{svc: "O2", client: "R2", ts: "2026-11-21 10:05:01", amount: "1.50", product: "IDV"},
		trec{svc: "O4", client: "R4", ts: "2026-11-21 18:00:00", amount: "25.00", product: "LIT"}) // hours after call 3
	rep := check(t, db, "2026-11-21", "2026-11-21", "")
	s := rep.Summary
	if s.SuggestedPairs != 1 {
		t.Errorf("SuggestedPairs = %d, want 1", s.SuggestedPairs)
	}
	if s.Outcomes[recon.Matched].Count != 1 || s.Outcomes[recon.CallOnly].Count != 2 || s.Outcomes[recon.StatementOnly].Count != 2 {
		t.Errorf("outcomes %+v: want 1 matched, 2 callOnly, 2 statementOnly (a suggestion is no match)", s.Outcomes)
	}
	if !rep.HasFindings() {
		t.Error("HasFindings = false: a suggestion must not clear --fail-on-breaks")
	}
	got := matchLines(t, db, rep.RunID, "suggested_pair")
	want := []string{
		"matched 1 O1: ",
		"callOnly 2 : statement record O2 — rule: equal amount 1.50, same pool account, within 10m, nearest in time; " +
			"the record is 1s after the call; product agrees (verifyPanPlusV2 ↔ IDV)",
		"statementOnly 0 O2: call 2 verifyPanPlusV2 — rule: equal amount 1.50, same pool account, within 10m, nearest in time; " +
			"the record is 1s after the call; product agrees (verifyPanPlusV2 ↔ IDV)",
		"callOnly 3 : ",
		"statementOnly 0 O4: ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("recon_matches:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "suggested pair 2026-11-21 10:05:00 call 2 ↔ statement record O2 — rule") {
		t.Errorf("WriteText lacks the suggested pair:\n%s", text.String())
	}

	// A narrower window: no suggestion.
	o := ledger.CheckOptions{From: date(t, "2026-11-21"), To: date(t, "2026-11-21"), PairWindow: time.Second / 2}
	if rep, err := ledger.Check(context.Background(), db, o); err != nil || rep.Summary.SuggestedPairs != 0 {
		t.Errorf("Check with a half-second window = %v, %v; want no suggestion", rep, err)
	}
	o.PairWindow = -time.Minute
	if _, err := ledger.Check(context.Background(), db, o); err == nil {
		t.Error("Check with a negative window: no error")
	}
}
