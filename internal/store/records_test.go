package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svcrecon/svcrecon/internal/recon"
)

func testRecord(id, ts, amount string) recon.Record {
	r := recon.Record{Kind: recon.Statement, Account: "A1", SvcOrderID: id}
	r.Values[recon.FTxnDateTime], r.Values[recon.FTxnDate] = ts, ts[:10]
	r.Values[recon.FTxnChargedValue] = amount
	r.Values[recon.FNarrationValue9] = "last narration"
	return r
}

// TestWriteRecords: records are upserted by key and counted new, updated or
// unchanged; every field of recon.RecordFields lands in its column; the
// window's checkpoint is written in the same call, after the count.
func TestWriteRecords(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
		total := int64(3)
		var seen int64 = -1
		page := RecordPage{
			Records: []recon.Record{testRecord("S1", "2026-11-21 10:00:00", "1.00"), testRecord("S2", "2026-11-21 11:00:00", "2.00")},
			Window:  &SyncWindow{Kind: recon.Statement, Account: "A1", Day: "2026-11-21", State: "done", NextPage: 2, Total: &total, Walks: 1},
			Finish: func(stored int64, w *SyncWindow) {
				seen = stored
				w.State = "walking"
			},
		}
		newN, updN, err := db.WriteRecords(ctx, at, []RecordPage{page})
		if err != nil || newN != 2 || updN != 0 || seen != 2 {
			t.Fatalf("WriteRecords = %d new, %d updated, %v (counted %d); want 2, 0, nil (2)", newN, updN, err, seen)
		}
		var narr, state string
		var stored int64
		if err := db.QueryRow(`SELECT narration_value9 FROM records WHERE svc_order_id = 'S2'`).Scan(&narr); err != nil || narr != "last narration" {
			t.Errorf("narration_value9 = %q, %v", narr, err)
		}
		if err := db.QueryRow(`SELECT state, stored_records FROM sync_windows`).Scan(&state, &stored); err != nil || state != "walking" || stored != 2 {
			t.Errorf("window = %s stored %d, %v; want walking, 2", state, stored, err)
		}
		// Again: one unchanged, one changed, one new.
		again := []recon.Record{testRecord("S1", "2026-11-21 10:00:00", "1.00"), testRecord("S2", "2026-11-21 11:00:00", "2.50"),
			testRecord("S3", "2026-11-21 12:00:00", "3.00")}
		newN, updN, err = db.WriteRecords(ctx, at.Add(time.Hour), []RecordPage{{Records: again}})
		if err != nil || newN != 1 || updN != 1 {
			t.Fatalf("second WriteRecords = %d new, %d updated, %v; want 1, 1", newN, updN, err)
		}
		// A page of more than one statement's records: one unchanged, 37
		// new, one of them twice with another amount (in the same batch of
		// 32 and in the next).
		var page3 []recon.Record
		page3 = append(page3, testRecord("S1", "2026-11-21 10:00:00", "1.00"))
		for i := 4; i <= 40; i++ {
			page3 = append(page3, testRecord(fmt.Sprintf("S%d", i), "2026-11-21 13:00:00", "4.00"))
			if i == 10 || i == 36 {
				page3 = append(page3, testRecord(fmt.Sprintf("S%d", i), "2026-11-21 13:00:00", "4.50"))
			}
		}
		newN, updN, err = db.WriteRecords(ctx, at.Add(2*time.Hour), []RecordPage{{Records: page3}})
		if err != nil || newN != 37 || updN != 2 {
			t.Fatalf("third WriteRecords = %d new, %d updated, %v; want 37, 2 (the second copies)", newN, updN, err)
		}
		var amt string
		if err := db.QueryRow(`SELECT txn_charged_value FROM records WHERE svc_order_id = 'S36'`).Scan(&amt); err != nil || amt != "4.50" {
			t.Errorf("S36 amount = %q, %v; want the last copy's 4.50", amt, err)
		}
		ws, err := db.SyncWindows(ctx, "A1", "2026-11-01", "2026-11-30")
		if err != nil || len(ws) != 1 || ws[0].Kind != recon.Statement || ws[0].NextPage != 2 || ws[0].Walks != 1 {
			t.Errorf("SyncWindows = %+v, %v", ws, err)
		}
	})
}

func TestSyncRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
		killed, err := db.StartSyncRun(ctx, "A1", recon.Kinds, "2026-11-01", "2026-11-02", at)
		if err != nil {
			t.Fatal(err)
		}
		id, err := db.StartSyncRun(ctx, "A1", []recon.Kind{recon.Orders}, "2026-11-01", "2026-11-02", at)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.FinishSyncRun(ctx, id, at, SyncRunResult{State: "ok", New: 5, Pages: 2, Probed: 7, Rewalked: 3, Late: 4}); err != nil {
			t.Fatal(err)
		}
		var kinds, state string
		if err := db.QueryRow(`SELECT kinds, state FROM sync_runs WHERE id = ?`, killed).Scan(&kinds, &state); err != nil ||
			kinds != "statement,orders" || state != "failed" {
			t.Errorf("killed run = %s %s, %v; want statement,orders failed", kinds, state, err)
		}
		var n, probed, rewalked, late int
		if err := db.QueryRow(`SELECT records_new, days_probed, days_rewalked, records_late FROM sync_runs WHERE id = ? AND state = 'ok'`, id).
			Scan(&n, &probed, &rewalked, &late); err != nil || n != 5 || probed != 7 || rewalked != 3 || late != 4 {
			t.Errorf("finished run: %d new, %d probed, %d walked again, %d late, %v; want 5, 7, 3, 4", n, probed, rewalked, late, err)
		}
	})
}

// TestDayCounts: records are counted per kind and IST day of the account,
// within the days asked for (the last one included).
func TestDayCounts(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		order := testRecord("O1", "2026-11-21 23:59:59", "1.00")
		order.Kind = recon.Orders
		other := testRecord("X1", "2026-11-21 10:00:00", "1.00")
		other.Account = "A2"
		recs := []recon.Record{testRecord("S1", "2026-11-20 00:00:00", "1.00"), testRecord("S2", "2026-11-21 10:00:00", "1.00"),
			testRecord("S3", "2026-11-21 23:59:59", "1.00"), testRecord("S4", "2026-11-22 00:00:00", "1.00"), order, other}
		if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: recs}}); err != nil {
			t.Fatal(err)
		}
		got, err := db.DayCounts(ctx, "A1", "2026-11-20", "2026-11-21")
		if err != nil {
			t.Fatal(err)
		}
		want := map[DayKey]int64{{recon.Statement, "2026-11-20"}: 1, {recon.Statement, "2026-11-21"}: 2, {recon.Orders, "2026-11-21"}: 1}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("DayCounts = %v, want %v", got, want)
		}
	})
}

// TestWriteRecordsAlongside: two WriteRecords at once, each storing the
// other's records after its own (the records of two days in opposite
// orders). On PostgreSQL they run at once (RecordWriters > 1): each waits
// in its first page's Finish until the other has stored its first page, so
// each then waits for the other's rows, a deadlock the server breaks by
// aborting one, which is run again. Every record is stored once, counted
// new once, none lost or counted changed, on both backends.
func TestWriteRecordsAlongside(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
		day := func(d string) []recon.Record {
			var rs []recon.Record
			for i := range 40 {
				rs = append(rs, testRecord(fmt.Sprintf("S%s-%02d", d, i), "2026-11-"+d+" 10:00:00", "1.00"))
			}
			return rs
		}
		x, y := day("20"), day("21")
		together := db.RecordWriters() > 1
		var once [2]sync.Once
		stored := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
		write := func(me int, first, second []recon.Record, d string) (int, int, error) {
			total := int64(len(first))
			page := RecordPage{Records: first,
				Window: &SyncWindow{Kind: recon.Statement, Account: "A1", Day: "2026-11-" + d, State: "done", Total: &total},
				Finish: func(int64, *SyncWindow) {
					once[me].Do(func() { close(stored[me]) })
					if together {
						select {
						case <-stored[1-me]:
						case <-time.After(time.Minute):
							t.Error("the other WriteRecords did not run alongside")
						}
					}
				}}
			return db.WriteRecords(ctx, at, []RecordPage{page, {Records: second}})
		}
		type result struct{ newN, updN int }
		var got [2]result
		var g errgroup.Group
		g.Go(func() (err error) { got[0].newN, got[0].updN, err = write(0, x, y, "20"); return err })
		g.Go(func() (err error) { got[1].newN, got[1].updN, err = write(1, y, x, "21"); return err })
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		if n := got[0].newN + got[1].newN; n != 80 || got[0].updN+got[1].updN != 0 {
			t.Errorf("WriteRecords counted %+v; want 80 new in all, none changed", got)
		}
		var rows, versions int
		if err := db.QueryRow(`SELECT count(*), count(DISTINCT svc_order_id) FROM records`).Scan(&rows, new(int)); err != nil || rows != 80 {
			t.Errorf("records: %d, %v; want 80", rows, err)
		}
		if err := db.QueryRow(`SELECT count(*) FROM day_versions`).Scan(&versions); err != nil || versions != 2 {
			t.Errorf("day_versions: %d rows, %v; want both days", versions, err)
		}
	})
}
