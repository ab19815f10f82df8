package ledger

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The differences stage through the stages with no database: a call and
// the record it is linked to by key that disagree get a row per field.
func TestDifferences(t *testing.T) {
	const day = "2026-11-21 10:"
	pan, lit := svcapi.OpVerifyPanPlusV2, svcapi.OpLitigation
	call := func(id int64, hms, ref, order, op, open, amount, closing string) recon.Call {
		return recon.Call{ID: id, TS: day + hms, ExternalRef: ref, OrderID: order, Operation: op, Outcome: recon.CallSuccess,
			Pool: pool(open, amount, closing)}
	}
	record := func(svc, client, hms, amount, product, status string) Record {
		r := rec(svc, client, day+hms, "DR", amount, "")
		r.ProductCode, r.Status = product, status
		return r
	}
	for _, tt := range []struct {
		name  string
		recs  []Record
		calls []recon.Call
		want  []string // field callValue statementValue difference, by time
	}{
		{name: "agreeing: none",
			recs:  []Record{record("S1", "R1", "00:01", "1.50", "IDV", "SUCCESS")},
			calls: []recon.Call{call(1, "00:00", "R1", "S1", pan, "100", "1.50", "98.50")}},
		{name: "the amount",
			recs:  []Record{record("S1", "R1", "00:01", "25.00", "LIT", "SUCCESS")},
			calls: []recon.Call{call(1, "00:00", "R1", "S1", lit, "100", "26.18", "73.82")},
			want:  []string{"amount 26.18 25.00 1.18"}},
		{name: "the status",
			recs:  []Record{record("S1", "R1", "00:01", "1.50", "IDV", "FAILED")},
			calls: []recon.Call{call(1, "00:00", "R1", "S1", pan, "100", "1.50", "98.50")},
			want:  []string{"status TXN FAILED "}},
		{name: "the time, beyond the pair window",
			recs:  []Record{record("S1", "R1", "25:00", "1.50", "IDV", "SUCCESS")},
			calls: []recon.Call{call(1, "00:00", "R1", "S1", pan, "100", "1.50", "98.50")},
			want:  []string{"time 2026-11-21 10:00:00 2026-11-21 10:25:00 +25m"}},
		{name: "the product: one row of three shows another code",
			recs: []Record{record("S1", "R1", "00:01", "1.50", "IDV", ""), record("S2", "R2", "01:01", "1.50", "IDV", ""),
				record("S3", "R3", "02:01", "1.50", "LIT", "")},
			calls: []recon.Call{call(1, "00:00", "R1", "S1", pan, "100", "1.50", "98.50"), call(2, "01:00", "R2", "S2", pan, "98.50", "1.50", "97"),
				call(3, "02:00", "R3", "S3", pan, "97", "1.50", "95.50")},
			want: []string{"product IDV LIT "}},
		{name: "the product, half and half: not compared",
			recs:  []Record{record("S1", "R1", "00:01", "1.50", "IDV", ""), record("S2", "R2", "01:01", "1.50", "LIT", "")},
			calls: []recon.Call{call(1, "00:00", "R1", "S1", pan, "100", "1.50", "98.50"), call(2, "01:00", "R2", "S2", pan, "98.50", "1.50", "97")}},
		{name: "a group's parts: no amount difference",
			recs:  []Record{record("SA", "R1", "00:01", "11.18", "", ""), record("SB", "R1", "00:02", "1.18", "", "")},
			calls: []recon.Call{call(1, "00:00", "R1", "SA", lit, "100", "12.36", "87.64")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemStore(tt.calls, tt.recs, nil)
			rep, err := m.run()
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(m.diffs, func(a, b Difference) int {
				return cmp.Or(strings.Compare(a.TS, b.TS), strings.Compare(a.Field, b.Field))
			})
			var got []string
			n := 0
			for _, d := range m.diffs {
				got = append(got, strings.Join([]string{d.Field, d.CallValue, d.StatementValue, d.Difference}, " "))
				if d.Note == "" || d.CallID == 0 || d.SvcOrderID == "" {
					t.Errorf("difference %+v lacks its note, call or record", d)
				}
			}
			for _, c := range rep.Summary.Differences {
				n += c
			}
			if !slices.Equal(got, tt.want) || n != len(tt.want) {
				t.Errorf("differences = %q (summary %v), want %q", got, rep.Summary.Differences, tt.want)
			}
		})
	}
}
