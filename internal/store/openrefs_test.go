package store

import (
	"context"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestOpenRefsAndRepeatedKeys: on each backend, the externalRefs of the
// window's unsuccessful calls that a record of the window carries (in
// any order of the calls), and the keys the duplicates stage reads:
// externalRefs of more than one call and clientOrderIds of more than one
// record, of any date, each once.
func TestOpenRefsAndRepeatedKeys(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		w := ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}
		n := 0
		call := func(ts, ref, outcome string) {
			n++
			h, _ := hex.DecodeString(testHash(ts + ref + outcome + string(rune('a'+n))))
			if _, err := db.ExecContext(ctx, `INSERT INTO calls (line_hash, source, ts, operation, external_ref,
				outcome, imported_at) VALUES (?, '-', ?, 'pan', ?, ?, 'x')`, h, ts, ref, outcome); err != nil {
				t.Fatal(err)
			}
		}
		rec := func(svc, client, ts string) {
			r := testRecord(svc, ts, "1.50")
			r.Values[recon.FClientOrderID] = client
			if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: []recon.Record{r}}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range [][3]string{
			{"2026-11-21 10:00:00", "Z9", "failed"}, {"2026-11-21 09:00:00", "A1", "pending"},
			{"2026-11-21 11:00:00", "A1", "failed"}, {"2026-11-21 12:00:00", "M5", "failed"},
			{"2026-11-21 12:30:00", "S7", "success"}, {"2026-11-21 13:00:00", "N0", "failed"},
			{"2026-11-20 13:00:00", "B2", "failed"}, {"2026-11-22 08:00:00", "S7", "success"},
		} {
			call(c[0], c[1], c[2])
		}
		rec("S1", "Z9", "2026-11-21 10:00:05")
		rec("S2", "A1", "2026-11-21 09:00:05")
		rec("S3", "M5", "2026-11-22 12:00:05") // after the window
		rec("S4", "S7", "2026-11-21 12:30:05") // its call succeeded
		rec("S5", "B2", "2026-11-21 13:00:05") // its call is before the window
		rec("S6", "Z9", "2026-10-01 10:00:00")
		got, err := db.CheckOpenRefs(ctx, w)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, []string{"A1", "Z9"}) {
			t.Errorf("CheckOpenRefs = %q, %v; want A1 and Z9", got, err)
		}
		f, err := db.CheckFinder(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, tc := range []struct {
			name string
			seq  func(context.Context) func(func(string, error) bool)
			want []string
		}{
			{"RepeatedRefs", func(ctx context.Context) func(func(string, error) bool) { return f.RepeatedRefs(ctx) }, []string{"A1", "S7"}},
			{"RepeatedClients", func(ctx context.Context) func(func(string, error) bool) { return f.RepeatedClients(ctx) }, []string{"Z9"}},
		} {
			var keys []string
			for k, err := range tc.seq(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tc.want) {
				t.Errorf("%s = %q, want %q", tc.name, keys, tc.want)
			}
		}
	})
}
