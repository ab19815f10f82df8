package ledger

import (
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The pairing on its own: unmatched calls and records in, notes out.

func TestSuggestPairs(t *testing.T) {
	at := func(hms string) int64 {
		v, err := parseTS("2026-11-21 " + hms)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	pan, lit := svcapi.OpVerifyPanPlusV2, svcapi.OpLitigation
	call := func(id int64, hms, amount, op string) orphanCall {
		return orphanCall{id: id, ts: at(hms), account: "P1", amount: dec(amount), op: op}
	}
	rec := func(svc, hms, amount, product string) orphanRec {
		return orphanRec{svc: svc, ts: at(hms), account: "P1", amount: dec(amount), product: product}
	}
	learnt := map[string]map[string]bool{pan: {"IDV": true}, lit: {"LIT": true}}
	type want struct {
		pairs map[int]int // call index -> record index
		// Substrings of each note: suggestion or reason; "" = none.
		calls, recs []string
	}
	for _, tt := range []struct {
		name   string
		window time.Duration
		tol    Tolerances // amount and percent
		calls  []orphanCall
		recs   []orphanRec
		want   want
	}{
		{name: "one exact pair",
			calls: []orphanCall{call(1, "10:00:02", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:00:03", "1.5", "IDV")},
			want: want{pairs: map[int]int{0: 0},
				calls: []string{"statement record S1 — rule: equal amount 1.50, same pool account, within 10m, nearest in time; " +
					"the record is 1s after the call; product agrees (verifyPanPlusV2 ↔ IDV)"},
				recs: []string{"call 1 verifyPanPlusV2 — rule: equal amount 1.50"}}},
		{name: "two records at different distances: the nearer wins",
			calls: []orphanCall{call(1, "10:00:00", "25.00", lit)},
			recs:  []orphanRec{rec("S1", "10:05:00", "25.00", "LIT"), rec("S2", "09:59:58", "25.00", "LIT")},
			want: want{pairs: map[int]int{0: 1},
				calls: []string{"statement record S2 — ", "the record is 2s before the call"},
				recs:  []string{"call 1 litigation is nearer to statement record S2", "call 1 litigation — "}}},
		{name: "two calls at different distances: the nearer wins",
			calls: []orphanCall{call(1, "10:00:00", "25.00", lit), call(2, "10:06:00", "25.00", lit)},
			recs:  []orphanRec{rec("S1", "10:00:04", "25.00", "LIT")},
			want: want{pairs: map[int]int{0: 0},
				calls: []string{"statement record S1 — ", "statement record S1 is nearer to call 1"},
				recs:  []string{"call 1 litigation — "}}},
		{name: "a tie: no suggestion",
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "09:59:56", "1.50", "IDV"), rec("S2", "10:00:04", "1.50", "IDV")},
			want: want{calls: []string{"ambiguous, 2 candidates (a tie: 2 records 4s away)"},
				recs: []string{"ambiguous, 2 candidates for call 1", "ambiguous, 2 candidates for call 1"}}},
		{name: "candidates less than a minute apart: no suggestion",
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:00:02", "1.50", "IDV"), rec("S2", "10:00:50", "1.50", "IDV")},
			want: want{calls: []string{"ambiguous, 2 candidates (the nearest 2s and 50s away, less than 1m apart)"},
				recs: []string{"ambiguous, 2 candidates for call 1", "ambiguous, 2 candidates for call 1"}}},
		{name: "a different product: no candidate",
			calls: []orphanCall{call(1, "10:00:00", "25.00", lit)},
			recs:  []orphanRec{rec("S1", "10:00:01", "25.00", "IDV")},
			want:  want{calls: []string{""}, recs: []string{""}}},
		{name: "a product never matched in the period is not compared",
			calls: []orphanCall{call(1, "10:00:00", "11.80", svcapi.OpCompanyLookup)},
			recs:  []orphanRec{rec("S1", "10:00:00", "11.80", "KYB")},
			want: want{pairs: map[int]int{0: 0},
				calls: []string{"in the same second as the call; product not compared: no matched call of companyLookup in the period shows its productCode"},
				recs:  []string{"call 1 companyLookup — "}}},
		{name: "a call naming no operation is not compared",
			calls: []orphanCall{call(1, "10:00:00", "1.50", "")},
			recs:  []orphanRec{rec("S1", "10:01:00", "1.50", "IDV")},
			want: want{pairs: map[int]int{0: 0},
				calls: []string{"1m after the call; product not compared: the call names no operation"},
				recs:  []string{"call 1 — rule"}}},
		{name: "outside the window",
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:10:01", "1.50", "IDV")},
			want:  want{calls: []string{""}, recs: []string{""}}},
		{name: "at the window's edge",
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:10:00", "1.50", "IDV")},
			want:  want{pairs: map[int]int{0: 0}, calls: []string{"10m after the call"}, recs: []string{"call 1"}}},
		{name: "a narrower window", window: 30 * time.Second,
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:00:31", "1.50", "IDV")},
			want:  want{calls: []string{""}, recs: []string{""}}},
		{name: "a different amount",
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:00:00", "1.51", "IDV")},
			want:  want{calls: []string{""}, recs: []string{""}}},
		{name: "a paisa apart, within a tolerance of 0.01", tol: Tolerances{Amount: dec("0.01")},
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:00:07", "1.49", "IDV")},
			want: want{pairs: map[int]int{0: 0},
				calls: []string{"statement record S1 — rule: amounts within 0.01 (call 1.50, record 1.49: differs by 0.01), same pool account, " +
					"within 10m, nearest in time; the record is 7s after the call"},
				recs: []string{"call 1 verifyPanPlusV2 — rule: amounts within 0.01 (call 1.50, record 1.49: differs by 0.01)"}}},
		{name: "two paise apart, beyond a tolerance of 0.01", tol: Tolerances{Amount: dec("0.01")},
			calls: []orphanCall{call(1, "10:00:00", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:00:00", "1.52", "IDV")},
			want:  want{calls: []string{""}, recs: []string{""}}},
		{name: "a fee deducted at source, within 2 percent", tol: Tolerances{Percent: dec("2")},
			calls: []orphanCall{call(1, "10:00:00", "500.00", svcapi.OpFundTransfer)},
			recs:  []orphanRec{rec("S1", "10:00:03", "491.00", "DMT"), rec("S2", "10:00:04", "489.99", "DMT")},
			want: want{pairs: map[int]int{0: 0},
				calls: []string{"rule: amounts within 2% of the call's (call 500.00, record 491.00: differs by 9.00)"},
				recs:  []string{"call 1 fundTransfer — rule", ""}}},
		{name: "within either tolerance, the nearest in time wins", tol: Tolerances{Amount: dec("0.05"), Percent: dec("1")},
			calls: []orphanCall{call(1, "10:00:00", "25.00", lit)},
			recs:  []orphanRec{rec("S1", "10:04:00", "25.00", "LIT"), rec("S2", "10:00:02", "24.80", "LIT")},
			want: want{pairs: map[int]int{0: 1},
				calls: []string{"statement record S2 — rule: amounts within 0.05 or 1% of the call's, whichever is more (call 25.00, record 24.80: differs by 0.20)"},
				recs:  []string{"call 1 litigation is nearer to statement record S2", "call 1 litigation — "}}},
		{name: "another pool account",
			calls: []orphanCall{{id: 1, ts: at("10:00:00"), account: "P2", amount: dec("1.50"), op: pan}},
			recs:  []orphanRec{rec("S1", "10:00:00", "1.50", "IDV"), {svc: "S2", ts: at("11:00:00"), account: "P2", amount: dec("9"), product: "X"}},
			want:  want{calls: []string{""}, recs: []string{"", ""}}},
		{name: "many calls of one amount in one minute, one record",
			calls: []orphanCall{call(1, "10:00:05", "1.50", pan), call(2, "10:00:15", "1.50", pan), call(3, "10:00:25", "1.50", pan),
				call(4, "10:00:40", "1.50", pan), call(5, "10:00:55", "1.50", pan)},
			recs: []orphanRec{rec("S1", "10:00:09", "1.50", "IDV")},
			want: want{calls: []string{"ambiguous, 5 candidates for statement record S1", "ambiguous, 5 candidates for statement record S1",
				"ambiguous, 5 candidates for statement record S1", "ambiguous, 5 candidates for statement record S1",
				"ambiguous, 5 candidates for statement record S1"},
				recs: []string{"ambiguous, 5 candidates (the nearest 4s and 6s away"}}},
		{name: "many calls and records of one amount in one minute",
			calls: []orphanCall{call(1, "10:00:05", "1.50", pan), call(2, "10:00:20", "1.50", pan), call(3, "10:00:35", "1.50", pan)},
			recs:  []orphanRec{rec("S1", "10:00:06", "1.50", "IDV"), rec("S2", "10:00:21", "1.50", "IDV"), rec("S3", "10:00:36", "1.50", "IDV")},
			want: want{calls: []string{"ambiguous, 3 candidates", "ambiguous, 3 candidates", "ambiguous, 3 candidates"},
				recs: []string{"ambiguous, 3 candidates", "ambiguous, 3 candidates", "ambiguous, 3 candidates"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.window
			if w == 0 {
				w = DefaultPairWindow
			}
			callNotes, recNotes, n := suggestPairs(tt.calls, tt.recs, pairRule{window: w, tol: tt.tol, products: learnt})
			if n != len(tt.want.pairs) {
				t.Errorf("suggestPairs found %d pairs, want %d", n, len(tt.want.pairs))
			}
			for i, note := range callNotes {
				j, ok := tt.want.pairs[i]
				if !ok {
					j = -1
				}
				if note.with != j || (j >= 0) != (note.suggestion != "") || (j >= 0 && recNotes[j].with != i) {
					t.Errorf("call %d paired with %d (%q), want %d", i, note.with, note.suggestion, j)
				}
				if text := note.suggestion + note.reason; !contains(text, tt.want.calls[i]) {
					t.Errorf("call %d note = %q, want %q", i, text, tt.want.calls[i])
				}
			}
			for j, note := range recNotes {
				if text := note.suggestion + note.reason; !contains(text, tt.want.recs[j]) {
					t.Errorf("record %d note = %q, want %q", j, text, tt.want.recs[j])
				}
				if note.suggestion != "" && note.reason != "" {
					t.Errorf("record %d has a suggestion and a reason: %+v", j, note)
				}
			}
		})
	}
}

// contains is strings.Contains, with "" meaning the text must be empty.
func contains(text, want string) bool {
	if want == "" {
		return text == ""
	}
	return strings.Contains(text, want)
}
