package store

import (
	"context"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestRowsReadAsOneTextKeepTheSeparator: the readers that fetch a row's
// columns joined into one text (the check's streams, the reports' records
// and matches) give back a value that holds the separator itself exactly,
// by reading its row again column by column.
func TestRowsReadAsOneTextKeepTheSeparator(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		odd := "a" + unitSep + "b"
		r := testRecord("S1", "2026-11-21 10:00:00", "1.50")
		r.Values[recon.FNarrationValue0], r.Values[recon.FClientOrderID] = odd, odd
		r2 := testRecord("S2", "2026-11-21 10:00:01", "2.50")
		if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: []recon.Record{r, r2}}}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for rec, err := range db.ReportRecords(ctx, recon.Statement, "2026-11-21", "2026-11-21") {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rec.SvcOrderID+"|"+rec.Values[recon.FNarrationValue0]+"|"+rec.Values[recon.FNarrationValue9])
		}
		if len(got) != 2 || got[0] != "S1|"+odd+"|last narration" || got[1] != "S2||last narration" {
			t.Errorf("ReportRecords = %q", got)
		}
		w := ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}
		var clients []string
		for rec, err := range db.CheckStatement(ctx, w) {
			if err != nil {
				t.Fatal(err)
			}
			clients = append(clients, rec.ClientOrderID)
		}
		if len(clients) != 2 || clients[0] != odd {
			t.Errorf("CheckStatement clientOrderIds = %q", clients)
		}
		calls := []recon.Call{{Hash: testHash("h1"), Source: "x", TS: "2026-11-21 10:00:00", ExternalRef: odd, Outcome: recon.CallPending}}
		if _, err := db.InsertCalls(ctx, time.Now(), calls, nil); err != nil {
			t.Fatal(err)
		}
		for c, err := range db.CheckCalls(ctx, w) {
			if err != nil || c.ExternalRef != odd {
				t.Errorf("CheckCalls = %+v, %v; want externalRef %q", c, err, odd)
			}
		}
		id := storeRun(t, db, testRun, func(w ledger.RunWriter) {
			w.Match(ledger.Match{Outcome: recon.Pending, CallID: 1, TS: "2026-11-21 10:00:00", Note: odd})
			w.Match(ledger.Match{Outcome: recon.Matched, CallID: 1, TS: "2026-11-21 10:00:01", CallAmount: "1.00"})
		})
		var notes []string
		for m, err := range db.ReportMatches(ctx, id) {
			if err != nil {
				t.Fatal(err)
			}
			notes = append(notes, m.Outcome+"|"+m.Note+"|"+m.CallAmount)
		}
		if len(notes) != 2 || notes[0] != "pending|"+odd+"|" || notes[1] != "matched||1.00" {
			t.Errorf("ReportMatches = %q", notes)
		}
	})
}
