package ledger_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func TestArithmetic(t *testing.T) {
	const ts = "2026-11-21 10:00:00"
	tests := []struct {
		name      string
		line      string
		wantBreak bool
		delta     string
	}{
		{"0.3 - 0.1 = 0.2 exactly (float would not)", line(svcapi.OpVerifyPanPlusV2, "R1", ts, "O1",
			map[string]any{"pool": poolA("0.3", "0.1", "0.2")}), false, ""},
		{"0.10 + 0.20 as JSON numbers", line(svcapi.OpVerifyPanPlusV2, "R1", ts, "O1",
			map[string]any{"pool": poolA(json.Number("0.30"), json.Number("0.10"), json.Number("0.20"))}), false, ""},
		{"zero amount", line(svcapi.OpLitigation, "R1", ts, "O1",
			map[string]any{"pool": poolA("100.00", "0", "100.00")}), false, ""},
		{"negative amount on a CR pool object (a credit)", line(svcapi.OpLitigation, "R1", ts, "O1",
			map[string]any{"pool": map[string]any{"openingBal": "100.00", "mode": "CR", "amount": "-5.50", "closingBal": "105.50"}}), false, ""},
		{"four decimals, 15 integer digits", line(svcapi.OpLitigation, "R1", ts, "O1",
			map[string]any{"pool": poolA("999999999999999.9999", "0.0001", "999999999999999.9998")}), false, ""},
		{"negative balances", line(svcapi.OpLitigation, "R1", ts, "O1",
			map[string]any{"pool": poolA("-10.00", "5.00", "-15.00")}), false, ""},
		{"three decimals", line(svcapi.OpLitigation, "R1", ts, "O1",
			map[string]any{"pool": poolA("1000000.005", "0.001", "1000000.004")}), false, ""},
		{"shape A off by one rupee", line(svcapi.OpVerifyPanPlusV2, "R1", ts, "O1",
			map[string]any{"pool": poolA("100.00", "10.00", "89.00")}), true, "1.00"},
		{"shape A off by a paisa the other way", line(svcapi.OpVerifyPanPlusV2, "R1", ts, "O1",
			map[string]any{"pool": poolA("0.30", "0.10", "0.21")}), true, "-0.01"},
		{"shape B adds up", line(svcapi.OpCorporateEmpCheck, "R1", ts, "O1",
			map[string]any{"pool": poolB("500", "2.36", "497.64")}), false, ""},
		{"shape B off", line(svcapi.OpCorporateEmpCheck, "R1", ts, "O1",
			map[string]any{"pool": poolB("500", "2.36", "497.36")}), true, "0.28"},
		{"data level adds up", line(svcapi.OpNameAbbreviations, "R1", ts, "O1",
			map[string]any{"openingBalance": "50.00", "payableValue": "1.18", "closingBalance": "48.82", "transactionValue": "1.00"}), false, ""},
		{"data level off", line(svcapi.OpBalanceInquiry, "R1", ts, "O1",
			map[string]any{"openingBalance": "50.00", "payableValue": "1.18", "closingBalance": "48.00"}), true, "0.82"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			sum, err := calllog.Import(context.Background(), db, "t.jsonl", strings.NewReader(tt.line+"\n"), calllog.Options{})
			if err != nil || sum.Imported != 1 {
				t.Fatalf("Import = %+v, %v", sum, err)
			}
			rep := check(t, db, "2026-11-21", "2026-11-21", "")
			got := rep.Summary.Breaks[recon.BreakArithmetic]
			if (got.Count == 1) != tt.wantBreak || got.Count > 1 {
				t.Fatalf("arithmetic breaks = %+v, want break %v", got, tt.wantBreak)
			}
			if tt.wantBreak && got.Delta != tt.delta {
				t.Errorf("delta = %s, want %s", got.Delta, tt.delta)
			}
			if rep.Summary.CallsWithDebit != 1 {
				t.Errorf("callsWithDebit = %d, want 1", rep.Summary.CallsWithDebit)
			}
		})
	}
}

func breaksOf(rep *ledger.Report, kind string) []ledger.Break {
	var out []ledger.Break
	for _, b := range rep.Breaks {
		if b.Kind == kind {
			out = append(out, b)
		}
	}
	return out
}

func TestChain(t *testing.T) {
	type want struct {
		kind        string
		delta       string
		explainedBy []string
	}
	tests := []struct {
		name  string
		calls []tcall
		recs  []trec
		want  []want // gap and explainedGap breaks, in order
	}{
		{name: "intact chain",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:00:05", ref: "B", orderID: "OB", opening: "90", amount: "10", closing: "80"},
			}},
		{name: "same second logged out of order",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:00:01", ref: "C", orderID: "OC", opening: "80", amount: "5", closing: "75"},
				{ts: "2026-11-21 10:00:01", ref: "B", orderID: "OB", opening: "90", amount: "10", closing: "80"},
				{ts: "2026-11-21 10:00:01", ref: "D", orderID: "OD", opening: "75", amount: "5", closing: "70"},
				{ts: "2026-11-21 10:00:02", ref: "E", orderID: "OE", opening: "70", amount: "1", closing: "69"},
			}},
		{name: "same second at the start of the period",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "B", orderID: "OB", opening: "90", amount: "10", closing: "80"},
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
			}},
		{name: "gap explained by an unlogged debit",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:05:00", ref: "B", orderID: "OB", opening: "85.50", amount: "10", closing: "75.50"},
			},
			recs: []trec{
				{svc: "OA", client: "A", ts: "2026-11-21 10:00:00", amount: "10"},
				{svc: "OX", client: "X", ts: "2026-11-21 10:02:00", amount: "4.50"},
				{svc: "OB", client: "B", ts: "2026-11-21 10:05:00", amount: "10"},
			},
			want: []want{{recon.BreakExplainedGap, "4.50", []string{"OX"}}}},
		{name: "gap explained by a reversal credit",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 12:00:00", ref: "B", orderID: "OB", opening: "100", amount: "10", closing: "90"},
			},
			recs: []trec{
				{svc: "OA", client: "A", ts: "2026-11-21 10:00:00", amount: "10", reversal: "RV1"},
				{svc: "RV1", client: "A", ts: "2026-11-21 11:00:00", amount: "10", mode: "CR"},
				{svc: "OB", client: "B", ts: "2026-11-21 12:00:00", amount: "10"},
			},
			want: []want{{recon.BreakExplainedGap, "-10.00", []string{"RV1"}}}},
		{name: "gap explained by a pending call's record",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:01:00", ref: "P", outcome: recon.CallPending},
				{ts: "2026-11-21 10:02:00", ref: "B", orderID: "OB", opening: "80", amount: "10", closing: "70"},
			},
			recs: []trec{
				{svc: "OA", client: "A", ts: "2026-11-21 10:00:00", amount: "10"},
				{svc: "OP", client: "P", ts: "2026-11-21 10:01:00", amount: "10"},
				{svc: "OB", client: "B", ts: "2026-11-21 10:02:00", amount: "10"},
			},
			want: []want{{recon.BreakExplainedGap, "10.00", []string{"OP"}}}},
		{name: "a reversal credit before a same-second pair logged out of order",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:00:09", ref: "C", orderID: "OC", opening: "90.36", amount: "5", closing: "85.36"},
				{ts: "2026-11-21 10:00:09", ref: "B", orderID: "OB", opening: "92.36", amount: "2", closing: "90.36"},
			},
			recs: []trec{
				{svc: "RV", client: "Z", ts: "2026-11-21 10:00:05", amount: "2.36", mode: "CR"},
			},
			want: []want{{recon.BreakExplainedGap, "-2.36", []string{"RV"}}}},
		{name: "unexplained gap",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:05:00", ref: "B", orderID: "OB", opening: "87", amount: "10", closing: "77"},
			},
			want: []want{{recon.BreakGap, "3.00", nil}}},
		{name: "records that do not sum to the gap leave it unexplained",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:05:00", ref: "B", orderID: "OB", opening: "87", amount: "10", closing: "77"},
			},
			recs: []trec{{svc: "OX", client: "X", ts: "2026-11-21 10:02:00", amount: "2"}},
			want: []want{{recon.BreakGap, "3.00", nil}}},
		{name: "a logged debit's record does not explain a gap",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:05:00", ref: "B", orderID: "OB", opening: "80", amount: "10", closing: "70"},
			},
			recs: []trec{
				{svc: "OA", client: "A", ts: "2026-11-21 10:00:00", amount: "10"},
				{svc: "OB", client: "B", ts: "2026-11-21 10:05:00", amount: "10"},
			},
			want: []want{{recon.BreakGap, "10.00", nil}}},
		{name: "separate pool accounts chain separately",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", acct: "P1", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:00:01", ref: "B", orderID: "OB", acct: "P2", opening: "500", amount: "10", closing: "490"},
				{ts: "2026-11-21 10:00:02", ref: "C", orderID: "OC", acct: "P1", opening: "90", amount: "10", closing: "80"},
			}},
		{name: "the same debit logged twice is one debit",
			calls: []tcall{
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
				{ts: "2026-11-21 10:00:03", ref: "B", orderID: "OB", opening: "90", amount: "10", closing: "80"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			addCalls(t, db, tt.calls...)
			addRecords(t, db, tt.recs...)
			rep := check(t, db, "2026-11-21", "2026-11-21", "")
			var got []want
			for _, b := range rep.Breaks {
				if b.Kind == recon.BreakArithmetic {
					t.Errorf("unexpected arithmetic break %+v", b)
					continue
				}
				got = append(got, want{b.Kind, recon.Money(b.Delta), b.ExplainedBy})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("breaks = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i].kind != tt.want[i].kind || got[i].delta != tt.want[i].delta || !slices.Equal(got[i].explainedBy, tt.want[i].explainedBy) {
					t.Errorf("break %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
			var stored int
			db.QueryRow(`SELECT count(*) FROM recon_breaks WHERE run_id = ?`, rep.RunID).Scan(&stored)
			if stored != len(tt.want) {
				t.Errorf("stored breaks = %d, want %d", stored, len(tt.want))
			}
		})
	}
}

func TestChainPoolSummary(t *testing.T) {
	db := openDB(t)
	addCalls(t, db,
		tcall{ts: "2026-11-20 23:59:59", ref: "Z", orderID: "OZ", opening: "110", amount: "10", closing: "100"}, // before the period
		tcall{ts: "2026-11-21 00:00:00", ref: "B", orderID: "OB", opening: "90", amount: "10", closing: "80"},
		tcall{ts: "2026-11-21 00:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
		tcall{ts: "2026-11-21 23:59:59", ref: "C", orderID: "OC", opening: "80", amount: "0.01", closing: "79.99"},
		tcall{ts: "2026-11-22 00:00:00", ref: "D", orderID: "OD", opening: "79.99", amount: "1", closing: "78.99"}, // after
	)
	rep := check(t, db, "2026-11-21", "2026-11-21", "")
	want := []recon.PoolSummary{{Account: "0409000123456", Opening: "100.00", Closing: "79.99", Calls: 3, Debited: "20.01"}}
	// pool_account is '' in these rows: they belong to the pool account ''.
	want[0].Account = ""
	if !slices.Equal(rep.Summary.Pools, want) {
		t.Errorf("pools = %+v, want %+v", rep.Summary.Pools, want)
	}
	if rep.Summary.Calls != 3 || rep.Summary.Debited != "20.01" {
		t.Errorf("calls %d debited %s, want 3 and 20.01", rep.Summary.Calls, rep.Summary.Debited)
	}
}

func TestUnnamedCallsJoinTheSingleNamedAccount(t *testing.T) {
	db := openDB(t)
	addCalls(t, db,
		tcall{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", acct: "P1", opening: "100", amount: "10", closing: "90"},
		tcall{ts: "2026-11-21 10:00:01", ref: "B", orderID: "OB", shape: "data", opening: "90", amount: "10", closing: "80"},
		tcall{ts: "2026-11-21 10:00:02", ref: "C", orderID: "OC", acct: "P1", opening: "80", amount: "10", closing: "70"},
	)
	rep := check(t, db, "2026-11-21", "2026-11-21", "")
	if len(rep.Breaks) != 0 || len(rep.Summary.Pools) != 1 || rep.Summary.Pools[0].Calls != 3 {
		t.Errorf("breaks %+v pools %+v, want none and one pool of 3 calls", rep.Breaks, rep.Summary.Pools)
	}
}

func TestMatching(t *testing.T) {
	const day = "2026-11-21"
	tests := []struct {
		name  string
		calls []tcall
		recs  []trec
		want  map[string]int
		check func(t *testing.T, rep *ledger.Report)
	}{
		{name: "matched by orderid",
			calls: []tcall{{ts: day + " 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"}},
			recs:  []trec{{svc: "OA", client: "other", ts: day + " 10:00:00", amount: "10.00"}},
			want:  map[string]int{recon.Matched: 1}},
		{name: "matched by externalRef when the orderid is unknown",
			calls: []tcall{{ts: day + " 10:00:00", ref: "A", opening: "100", amount: "10", closing: "90"}},
			recs:  []trec{{svc: "OA", client: "A", ts: day + " 10:00:01", amount: "10"}},
			want:  map[string]int{recon.Matched: 1}},
		{name: "amount mismatch",
			calls: []tcall{{ts: day + " 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"}},
			recs:  []trec{{svc: "OA", client: "A", ts: day + " 10:00:00", amount: "9.50"}},
			want:  map[string]int{recon.AmountMismatch: 1},
			check: func(t *testing.T, rep *ledger.Report) {
				m := rep.Exceptions[0]
				if m.Delta != "0.50" || m.CallAmount != "10.00" || m.StatementAmount != "9.50" {
					t.Errorf("mismatch row = %+v, want delta 0.50", m)
				}
			}},
		{name: "call only",
			calls: []tcall{{ts: day + " 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"}},
			want:  map[string]int{recon.CallOnly: 1}},
		{name: "statement only",
			recs: []trec{{svc: "OX", client: "X", ts: day + " 10:00:00", amount: "3"}},
			want: map[string]int{recon.StatementOnly: 1},
			check: func(t *testing.T, rep *ledger.Report) {
				if o := rep.Summary.Outcomes[recon.StatementOnly]; o.Amount != "3.00" {
					t.Errorf("statementOnly amount = %s, want 3.00", o.Amount)
				}
			}},
		{name: "a record linked to a failed call is not statement only",
			calls: []tcall{{ts: day + " 10:00:00", ref: "X", outcome: recon.CallFailed}},
			recs:  []trec{{svc: "OX", client: "X", ts: day + " 10:00:00", amount: "3"}},
			want:  map[string]int{},
			check: func(t *testing.T, rep *ledger.Report) {
				if rep.Summary.CallsFailed != 1 {
					t.Errorf("callsFailed = %d, want 1", rep.Summary.CallsFailed)
				}
			}},
		{name: "a CR record is never statement only",
			recs: []trec{{svc: "RV", client: "X", ts: day + " 10:00:00", amount: "3", mode: "CR"}},
			want: map[string]int{},
			check: func(t *testing.T, rep *ledger.Report) {
				if rep.Summary.Credited != "3.00" {
					t.Errorf("credited = %s, want 3.00", rep.Summary.Credited)
				}
			}},
		{name: "duplicate debit: two calls, two records",
			calls: []tcall{
				{ts: day + " 10:00:00", ref: "A", orderID: "OA1", opening: "100", amount: "10", closing: "90"},
				{ts: day + " 10:00:05", ref: "A", orderID: "OA2", opening: "90", amount: "10", closing: "80"},
			},
			recs: []trec{
				{svc: "OA1", client: "A", ts: day + " 10:00:00", amount: "10"},
				{svc: "OA2", client: "A", ts: day + " 10:00:05", amount: "10"},
			},
			want: map[string]int{recon.DuplicateDebit: 2}},
		{name: "duplicate debit: one call, two records",
			calls: []tcall{{ts: day + " 10:00:00", ref: "A", orderID: "OA1", opening: "100", amount: "10", closing: "90"}},
			recs: []trec{
				{svc: "OA1", client: "A", ts: day + " 10:00:00", amount: "10"},
				{svc: "OA2", client: "A", ts: day + " 10:00:05", amount: "10"},
			},
			want: map[string]int{recon.DuplicateDebit: 2}},
		{name: "pending with its record",
			calls: []tcall{{ts: day + " 10:00:00", ref: "P", outcome: recon.CallPending}},
			recs:  []trec{{svc: "OP", client: "P", ts: day + " 10:00:00", amount: "7"}},
			want:  map[string]int{recon.Pending: 1},
			check: func(t *testing.T, rep *ledger.Report) {
				m := rep.Exceptions[0]
				if m.SvcOrderID != "OP" || rep.Summary.Pending != (recon.CountSum{Count: 1, Amount: "7.00"}) || rep.Summary.CallsPending != 1 {
					t.Errorf("pending row %+v summary %+v", m, rep.Summary.Pending)
				}
			}},
		{name: "pending without a record",
			calls: []tcall{{ts: day + " 10:00:00", ref: "P", outcome: recon.CallPending}},
			want:  map[string]int{recon.Pending: 1},
			check: func(t *testing.T, rep *ledger.Report) {
				if rep.Summary.Pending != (recon.CountSum{Count: 1, Amount: "0.00"}) {
					t.Errorf("pending summary %+v", rep.Summary.Pending)
				}
			}},
		{name: "reversed",
			calls: []tcall{{ts: day + " 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"}},
			recs: []trec{
				{svc: "OA", client: "A", ts: day + " 10:00:00", amount: "10", reversal: "RV"},
				{svc: "RV", client: "A", ts: day + " 11:00:00", amount: "10", mode: "CR"},
			},
			want: map[string]int{recon.Reversed: 1}},
		{name: "a record outside the period still matches",
			calls: []tcall{{ts: day + " 23:59:59", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"}},
			recs:  []trec{{svc: "OA", client: "A", ts: "2026-11-22 00:00:01", amount: "10"}},
			want:  map[string]int{recon.Matched: 1}},
		{name: "svcrecon's own read-only calls are no calls of the pool",
			calls: []tcall{
				{ts: day + " 10:00:00", op: svcapi.OpTxnStatus, ref: "X", orderID: "OX"},
				{ts: day + " 10:00:01", op: svcapi.OpStatement, ref: "ST20261121P1W1R1", outcome: recon.CallFailed},
				{ts: day + " 10:00:02", op: svcapi.OpCollectOrders, ref: "CO20261121P1W1R1"},
				{ts: "2026-11-22 09:00:00", op: svcapi.OpTxnStatus, ref: "Y", orderID: "OY"}, // after the period
			},
			recs: []trec{
				{svc: "OX", client: "X", ts: day + " 09:59:00", amount: "3"},
				{svc: "OY", client: "Y", ts: day + " 11:00:00", amount: "4"},
			},
			want: map[string]int{recon.StatementOnly: 2},
			check: func(t *testing.T, rep *ledger.Report) {
				if s := rep.Summary; s.Calls != 0 || s.CallsFailed != 0 {
					t.Errorf("calls %d, failed %d; want 0, 0", s.Calls, s.CallsFailed)
				}
			}},
		{name: "a call outside the period keeps its record from being statement only",
			calls: []tcall{{ts: "2026-11-20 23:59:59", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"}},
			recs:  []trec{{svc: "OA", client: "A", ts: day + " 00:00:01", amount: "10"}},
			want:  map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			addCalls(t, db, tt.calls...)
			addRecords(t, db, tt.recs...)
			rep := check(t, db, day, day, "")
			for _, o := range recon.Outcomes {
				if got := rep.Summary.Outcomes[o].Count; got != tt.want[o] {
					t.Errorf("outcome %s = %d, want %d", o, got, tt.want[o])
				}
			}
			if got := storedMatches(t, db, rep.RunID); !mapsEqual(got, tt.want) {
				t.Errorf("stored outcomes = %v, want %v", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, rep)
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

func TestReversals(t *testing.T) {
	db := openDB(t)
	addCalls(t, db,
		tcall{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"},
		tcall{ts: "2026-11-21 10:00:10", ref: "B", orderID: "OB", opening: "90", amount: "20", closing: "70"},
	)
	addRecords(t, db,
		trec{svc: "OA", client: "A", ts: "2026-11-21 10:00:00", amount: "10", reversal: "RVA"},
		trec{svc: "OB", client: "B", ts: "2026-11-21 10:00:10", amount: "20", reversal: "RVB"},
		// RVA was synced (on a later day: any date counts); RVB was not.
		trec{svc: "RVA", client: "A", ts: "2026-11-23 09:00:00", amount: "10", mode: "CR"},
	)
	rep := check(t, db, "2026-11-21", "2026-11-21", "")
	if got := rep.Summary.Reversals; got != (recon.ReversalSum{Count: 2, Amount: "30.00", Unlinked: 1}) {
		t.Errorf("reversals = %+v, want 2, 30.00, 1 unlinked", got)
	}
	rows, err := db.Query(`SELECT svc_order_id, reversal_svc_order_id, reversal_found, reversal_txn_date_time, reversal_amount
		FROM recon_reversals WHERE run_id = ? ORDER BY svc_order_id`, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var a, b, ts, amt string
		var found int
		rows.Scan(&a, &b, &found, &ts, &amt)
		got = append(got, strings.Join([]string{a, b, string(rune('0' + found)), ts, amt}, "|"))
	}
	want := []string{"OA|RVA|1|2026-11-23 09:00:00|10.00", "OB|RVB|0||"}
	if !slices.Equal(got, want) {
		t.Errorf("recon_reversals = %q, want %q", got, want)
	}
	if rep.Summary.Outcomes[recon.Reversed].Count != 2 {
		t.Errorf("reversed outcomes = %d, want 2", rep.Summary.Outcomes[recon.Reversed].Count)
	}
}

func TestAging(t *testing.T) {
	db := openDB(t)
	o := func(svc, day, settlement string) trec {
		return trec{kind: "orders", svc: svc, client: "C" + svc, ts: day + " 12:00:00", amount: "100.00", settlement: settlement}
	}
	addRecords(t, db,
		o("d0", "2026-11-20", ""), o("d1", "2026-11-19", ""), o("d2", "2026-11-18", ""), o("d3", "2026-11-17", ""),
		o("d4", "2026-11-16", ""), o("d7", "2026-11-13", ""), o("d8", "2026-11-12", ""), o("d30", "2026-10-21", ""),
		o("d31", "2026-10-20", ""), o("d400", "2025-10-16", ""),
		o("settled", "2026-11-10", "SETTLE1"),
		o("after", "2026-11-21", ""), // after the period's end
	)
	rep := check(t, db, "2026-11-01", "2026-11-20", "2026-11-20")
	want := map[string]recon.CountSum{"0-1": {Count: 2, Amount: "200.00"}, "2-3": {Count: 2, Amount: "200.00"}, "4-7": {Count: 2, Amount: "200.00"},
		"8-30": {Count: 2, Amount: "200.00"}, ">30": {Count: 2, Amount: "200.00"}}
	for b, w := range want {
		if got := rep.Summary.Unsettled[b]; got != w {
			t.Errorf("bucket %s = %+v, want %+v", b, got, w)
		}
	}
	ages := map[string]int{}
	rows, _ := db.Query(`SELECT svc_order_id, age_days, age_bucket FROM recon_unsettled WHERE run_id = ?`, rep.RunID)
	defer rows.Close()
	for rows.Next() {
		var s, b string
		var a int
		rows.Scan(&s, &a, &b)
		ages[s] = a
		if b != recon.BucketOf(a) {
			t.Errorf("%s: bucket %s for age %d", s, b, a)
		}
	}
	wantAges := map[string]int{"d0": 0, "d1": 1, "d2": 2, "d3": 3, "d4": 4, "d7": 7, "d8": 8, "d30": 30, "d31": 31, "d400": 400}
	if !mapsEqual(ages, wantAges) {
		t.Errorf("ages = %v, want %v", ages, wantAges)
	}
	// A later as-of date ages the same orders further.
	rep = check(t, db, "2026-11-01", "2026-11-20", "2026-12-31")
	if got := rep.Summary.Unsettled[">30"].Count; got != 10 {
		t.Errorf("as of 2026-12-31: >30 = %d, want 10", got)
	}
}

// TestRunFinishingLastIsThePeriods: two checks of a period at once (two
// hosts): the one that finishes first marks the other, still running,
// superseded (a trigger plays it here); the other, finishing last, is the
// period's run, not superseded, and the first is superseded by it — never
// both superseded, which left neither to sign.
func TestRunFinishingLastIsThePeriods(t *testing.T) {
	db := openDB(t)
	addCalls(t, db, tcall{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "91"})
	first := check(t, db, "2026-11-21", "2026-11-21", "")
	if _, err := db.Exec(`CREATE TRIGGER meanwhile AFTER INSERT ON recon_runs BEGIN
		UPDATE recon_runs SET superseded_by = ` + strconv.FormatInt(first.RunID, 10) + ` WHERE id = NEW.id; END`); err != nil {
		t.Fatal(err)
	}
	second := check(t, db, "2026-11-21", "2026-11-21", "")
	for id, want := range map[int64]int64{first.RunID: second.RunID, second.RunID: 0} {
		var sup sql.NullInt64
		if err := db.QueryRow(`SELECT superseded_by FROM recon_runs WHERE id = ?`, id).Scan(&sup); err != nil || sup.Int64 != want {
			t.Errorf("run %d superseded by %v (%v); want %d", id, sup, err, want)
		}
	}
}

func TestRerunSupersedes(t *testing.T) {
	db := openDB(t)
	addCalls(t, db, tcall{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "91"})
	first := check(t, db, "2026-11-21", "2026-11-21", "")
	other := check(t, db, "2026-11-20", "2026-11-21", "") // another period: untouched
	second := check(t, db, "2026-11-21", "2026-11-21", "")
	var sup *int64
	var summary string
	db.QueryRow(`SELECT superseded_by, summary FROM recon_runs WHERE id = ?`, first.RunID).Scan(&sup, &summary)
	if sup == nil || *sup != second.RunID {
		t.Errorf("first run superseded_by = %v, want %d", sup, second.RunID)
	}
	var s recon.Summary
	if err := json.Unmarshal([]byte(summary), &s); err != nil || s.Breaks[recon.BreakArithmetic].Count != 1 {
		t.Errorf("first run's summary not kept: %q", summary)
	}
	for _, run := range []struct {
		id   int64
		want int
	}{{first.RunID, 0}, {second.RunID, 1}, {other.RunID, 1}} {
		var n int
		db.QueryRow(`SELECT count(*) FROM recon_breaks WHERE run_id = ?`, run.id).Scan(&n)
		if n != run.want {
			t.Errorf("run %d: %d breaks stored, want %d", run.id, n, run.want)
		}
	}
	var state string
	db.QueryRow(`SELECT state FROM recon_runs WHERE id = ?`, second.RunID).Scan(&state)
	if state != "ok" {
		t.Errorf("state = %s, want ok", state)
	}
}

func TestSummaryJSON(t *testing.T) {
	db := openDB(t)
	rep := check(t, db, "2026-11-21", "2026-11-21", "")
	var summary string
	db.QueryRow(`SELECT summary FROM recon_runs WHERE id = ?`, rep.RunID).Scan(&summary)
	var m map[string]any
	if err := json.Unmarshal([]byte(summary), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"from", "to", "asOf", "pools", "calls", "callsWithDebit", "callsFailed", "callsPending",
		"debited", "credited", "outcomes", "breaks", "reversals", "unsettled", "pending"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary lacks %q: %s", k, summary)
		}
	}
	for _, o := range recon.Outcomes {
		if got := m["outcomes"].(map[string]any)[o]; got == nil || got.(map[string]any)["amount"] != "0.00" {
			t.Errorf("outcomes.%s = %v, want count 0 amount \"0.00\"", o, got)
		}
	}
	for _, k := range recon.BreakKinds {
		if m["breaks"].(map[string]any)[k] == nil {
			t.Errorf("breaks.%s missing", k)
		}
	}
	for _, b := range recon.BucketNames() {
		if m["unsettled"].(map[string]any)[b] == nil {
			t.Errorf("unsettled.%s missing", b)
		}
	}
	if m["asOf"] != "2026-11-21" {
		t.Errorf("asOf = %v", m["asOf"])
	}
}

func TestHasFindingsAndText(t *testing.T) {
	db := openDB(t)
	addCalls(t, db, tcall{ts: "2026-11-21 10:00:00", ref: "A", orderID: "OA", opening: "100", amount: "10", closing: "90"})
	addRecords(t, db, trec{svc: "OA", client: "A", ts: "2026-11-21 10:00:00", amount: "10"})
	rep := check(t, db, "2026-11-21", "2026-11-21", "")
	if rep.HasFindings() {
		t.Errorf("HasFindings = true for a clean period: %+v", rep.Summary)
	}
	var sb strings.Builder
	if err := rep.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"matched", "amountMismatch", "arithmetic", "explainedGap", ">30", "pending", "10.00"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, sb.String())
		}
	}
	addCalls(t, db, tcall{ts: "2026-11-21 11:00:00", ref: "B", orderID: "OB", opening: "90", amount: "1", closing: "89"})
	if rep := check(t, db, "2026-11-21", "2026-11-21", ""); !rep.HasFindings() {
		t.Errorf("HasFindings = false with a call-only debit")
	}
}

func TestCheckRejectsBadPeriod(t *testing.T) {
	db := openDB(t)
	_, err := ledger.Check(context.Background(), db, ledger.CheckOptions{From: date(t, "2026-11-21"), To: date(t, "2026-11-20")})
	if err == nil {
		t.Fatal("Check with to before from: no error")
	}
}

// TestHasFindingsEachKind: --fail-on-breaks exits 3 on any unexplained
// break, mismatch, duplicate, call-only or statement-only record, and not on
// what is explained or expected (explained gaps, reversals, pending calls,
// unsettled orders).
func TestHasFindingsEachKind(t *testing.T) {
	for _, tt := range []struct {
		name    string
		outcome string // an outcome with one record, or
		brk     string // a break kind with one break, or
		other   func(*recon.Summary)
		want    bool
	}{
		{name: "nothing", want: false},
		{name: "matched", outcome: recon.Matched, want: false},
		{name: "reversed", outcome: recon.Reversed, want: false},
		{name: "pending", outcome: recon.Pending, want: false},
		{name: "amountMismatch", outcome: recon.AmountMismatch, want: true},
		{name: "duplicateDebit", outcome: recon.DuplicateDebit, want: true},
		{name: "statementOnly", outcome: recon.StatementOnly, want: true},
		{name: "callOnly", outcome: recon.CallOnly, want: true},
		{name: "arithmetic", brk: recon.BreakArithmetic, want: true},
		{name: "gap", brk: recon.BreakGap, want: true},
		{name: "explainedGap", brk: recon.BreakExplainedGap, want: false},
		{name: "unsettled orders", other: func(s *recon.Summary) { s.Unsettled[">30"] = recon.CountSum{Count: 3, Amount: "30.00"} }, want: false},
		{name: "unlinked reversal", other: func(s *recon.Summary) { s.Reversals = recon.ReversalSum{Count: 1, Amount: "1.00", Unlinked: 1} }, want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := recon.Summary{Outcomes: map[string]recon.CountSum{}, Breaks: map[string]recon.BreakSum{}, Unsettled: map[string]recon.CountSum{}}
			for _, o := range recon.Outcomes {
				s.Outcomes[o] = recon.CountSum{Count: 0, Amount: "0"}
			}
			for _, k := range recon.BreakKinds {
				s.Breaks[k] = recon.BreakSum{Count: 0, Delta: "0"}
			}
			if tt.outcome != "" {
				s.Outcomes[tt.outcome] = recon.CountSum{Count: 1, Amount: "1.00"}
			}
			if tt.brk != "" {
				s.Breaks[tt.brk] = recon.BreakSum{Count: 1, Delta: "1.00"}
			}
			if tt.other != nil {
				tt.other(&s)
			}
			if got := (&ledger.Report{Summary: s}).HasFindings(); got != tt.want {
				t.Errorf("HasFindings = %v, want %v", got, tt.want)
			}
		})
	}
}
