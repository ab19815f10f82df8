package ledger

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// emitted keeps the rows a stage emits, each as "outcome id: note |
// suggestion".
type emitted []string

func (e *emitted) emit(m Match, _ decimal.Decimal, _ int64, _ *wrec) {
	id := m.SvcOrderID
	if m.CallID != 0 {
		id = fmt.Sprintf("call %d", m.CallID)
	}
	*e = append(*e, m.Outcome+" "+id+": "+m.Note+" | "+m.SuggestedPair)
}

func TestSuggester(t *testing.T) {
	at, _ := parseTS("2026-11-21 10:00:00")
	call := func(id int64, ref string) kcall {
		return kcall{id: id, ts: at, ref: ref, amount: dec("1.50"), money: "1.50", op: "op"}
	}
	rec := func(svc, client string) *wrec {
		return &wrec{svc: svc, client: client, ts: at + 1, amount: dec("1.50"), money: "1.50"}
	}
	dup := func(ref string) bool { return ref == "D" }
	t.Run("paired at the end", func(t *testing.T) {
		var out emitted
		s := &suggester{tol: Tolerances{PairWindow: DefaultPairWindow}, isDup: dup, emit: out.emit}
		s.holdCall(call(1, "A"))
		s.holdRecord(rec("S1", "B"))
		s.holdCall(call(2, "D"))
		s.holdRecord(rec("S3", "D"))
		if len(out) != 0 {
			t.Fatalf("rows before the end: %q", out)
		}
		s.end(nil, nil)
		want := []string{
			"duplicateDebit call 2: externalRef debited more than once | ",
			"duplicateDebit S3: externalRef debited more than once; no call logged for this debit | ",
			"callOnly call 1: no statement record for this debit | statement record S1 — rule: equal amount 1.50",
			"statementOnly S1: no call logged for this debit | call 1 op — rule: equal amount 1.50",
		}
		if len(out) != len(want) || s.pairs != 1 || s.skipped != "" {
			t.Fatalf("rows %q, %d pairs, skipped %q; want %q and one pair", out, s.pairs, s.skipped, want)
		}
		for i := range want {
			if !strings.HasPrefix(out[i], want[i]) {
				t.Errorf("row %d = %q, want %q…", i, out[i], want[i])
			}
		}
	})
	t.Run("given up past the bound", func(t *testing.T) {
		var out emitted
		s := &suggester{max: 1, tol: Tolerances{PairWindow: DefaultPairWindow}, isDup: dup, emit: out.emit}
		s.holdCall(call(1, "A"))
		s.holdRecord(rec("S1", "B"))
		s.holdRecord(rec("S2", "C"))
		s.end(nil, nil)
		const why = "; no suggested pair: more than 1 unmatched calls and records | "
		want := []string{"callOnly call 1: no statement record for this debit" + why,
			"statementOnly S1: no call logged for this debit" + why, "statementOnly S2: no call logged for this debit" + why}
		if !slices.Equal(out, want) || s.pairs != 0 {
			t.Errorf("rows %q, %d pairs; want %q and none", out, s.pairs, want)
		}
	})
	t.Run("nothing held", func(t *testing.T) {
		var out emitted
		s := &suggester{isDup: dup, emit: out.emit}
		s.end(map[string]map[string]bool{"op": {recon.Statement.String(): true}}, nil)
		if len(out) != 0 || s.pairs != 0 {
			t.Errorf("rows %q, %d pairs; want none", out, s.pairs)
		}
	})
}
