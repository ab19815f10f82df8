package ledger

import (
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The groups stage through the stages with no database: a split posting
// is one group, not three breaks; several calls settled in one record are
// one; parts that do not sum exactly to the whole stay what they were.
func TestGroups(t *testing.T) {
	const day = "2026-11-21 10:00:"
	debit := func(id int64, sec, ref, order, open, amount, closing string) recon.Call {
		return recon.Call{ID: id, TS: day + sec, ExternalRef: ref, OrderID: order, Outcome: recon.CallSuccess,
			Pool: pool(open, amount, closing)}
	}
	type row struct{ outcome, svc, group string }
	for _, tt := range []struct {
		name   string
		recs   []Record
		calls  []recon.Call
		want   []row // by time, calls before records
		groups recon.GroupSum
		note   string // in the first row's note
	}{
		{name: "a call posted as a charge and a surcharge: one group",
			recs:   []Record{rec("SA", "R1", day+"01", "DR", "11.18", ""), rec("SB", "R1", day+"02", "DR", "1.18", "")},
			calls:  []recon.Call{debit(1, "00", "R1", "SA", "100", "12.36", "87.64")},
			want:   []row{{recon.Matched, "SA", "G-R1"}, {recon.Matched, "SB", "G-R1"}},
			groups: recon.GroupSum{Count: 1, Rows: 2, Amount: "12.36"},
			note:   "group G-R1: call 12.36 = 2 records 11.18 + 1.18 (SA, SB)"},
		{name: "three parts, the call linked by externalRef",
			recs: []Record{rec("SA", "R1", day+"01", "DR", "10.00", ""), rec("SB", "R1", day+"02", "DR", "1.80", ""),
				rec("SC", "R1", day+"03", "DR", "0.20", "")},
			calls:  []recon.Call{debit(1, "00", "R1", "", "100", "12.00", "88.00")},
			want:   []row{{recon.Matched, "SA", "G-R1"}, {recon.Matched, "SB", "G-R1"}, {recon.Matched, "SC", "G-R1"}},
			groups: recon.GroupSum{Count: 1, Rows: 3, Amount: "12.00"}},
		{name: "parts a paisa short: a duplicate as before",
			recs:  []Record{rec("SA", "R1", day+"01", "DR", "11.18", ""), rec("SB", "R1", day+"02", "DR", "1.17", "")},
			calls: []recon.Call{debit(1, "00", "R1", "SA", "100", "12.36", "87.64")},
			want:  []row{{recon.DuplicateDebit, "SA", ""}, {recon.DuplicateDebit, "SB", ""}}},
		{name: "two calls settled in one record: one group",
			recs:   []Record{rec("SZ", "R2", day+"05", "DR", "10.00", "")},
			calls:  []recon.Call{debit(1, "00", "R2", "SZ", "100", "4.00", "96"), debit(2, "03", "R2", "SZ", "96", "6.00", "90")},
			want:   []row{{recon.Matched, "SZ", "G-SZ"}, {recon.Matched, "SZ", "G-SZ"}},
			groups: recon.GroupSum{Count: 1, Rows: 2, Amount: "10.00"},
			note:   "group G-SZ: 2 calls 4.00 + 6.00 = record SZ 10.00"},
		{name: "two calls that do not sum to their record stay amount mismatches",
			recs:  []Record{rec("SZ", "R2", day+"05", "DR", "10.00", "")},
			calls: []recon.Call{debit(1, "00", "R2", "SZ", "100", "4.00", "96"), debit(2, "03", "R2", "SZ", "96", "5.00", "91")},
			want:  []row{{recon.AmountMismatch, "SZ", ""}, {recon.AmountMismatch, "SZ", ""}}},
		{name: "a real double debit (two calls, two records) is no group",
			recs:  []Record{rec("S1", "R3", day+"01", "DR", "5.00", ""), rec("S2", "R3", day+"06", "DR", "5.00", "")},
			calls: []recon.Call{debit(1, "00", "R3", "S1", "100", "5.00", "95"), debit(2, "05", "R3", "S2", "95", "5.00", "90")},
			want:  []row{{recon.DuplicateDebit, "S1", ""}, {recon.DuplicateDebit, "S2", ""}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemStore(tt.calls, tt.recs, nil)
			rep, err := m.run()
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			rows := m.inOrder()
			for _, x := range rows {
				got = append(got, row{x.Outcome, x.SvcOrderID, x.Group})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows = %v, want %v", got, tt.want)
			}
			if g := rep.Summary.Groups; g != tt.groups && !(tt.groups == recon.GroupSum{} && g.Count == 0) {
				t.Errorf("summary groups = %+v, want %+v", g, tt.groups)
			}
			if tt.note != "" && !strings.Contains(rows[0].Note, tt.note) {
				t.Errorf("note = %q, want %q", rows[0].Note, tt.note)
			}
			want := 0
			for _, r := range tt.want {
				if r.outcome == recon.Matched {
					want++
				}
			}
			if rep.Summary.Outcomes[recon.Matched].Count != want {
				t.Errorf("matched = %d, want %d", rep.Summary.Outcomes[recon.Matched].Count, want)
			}
			if tt.groups.Count > 0 && (rep.HasFindings() || rep.Summary.Outcomes[recon.Matched].Amount != tt.groups.Amount) {
				t.Errorf("a group leaves findings (%v) or counts %s matched, want %s", rep.HasFindings(),
					rep.Summary.Outcomes[recon.Matched].Amount, tt.groups.Amount)
			}
		})
	}
}
