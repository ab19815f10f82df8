package store

import (
	"context"
	"testing"
	"time"
)

func TestStoreBillers(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
		if last, err := db.LastBillerSync(ctx, ""); err != nil || last != "" {
			t.Fatalf("LastBillerSync on a new database = %q, %v", last, err)
		}
		id, err := db.StartBillerSync(ctx, "full", "", "", at)
		if err != nil {
			t.Fatal(err)
		}
		b1 := Biller{ID: "B1", Name: "One", CategoryKey: "electricity", UpdatedDate: "2026-11-20", Available: true}
		b2 := Biller{ID: "B2", Name: "Two", CategoryKey: "water", UpdatedDate: "2026-11-21"}
		ch, err := db.StoreBillers(ctx, id, at, []Biller{b1, b2}, true, "")
		if err != nil || ch != (BillerChanges{Added: 2}) {
			t.Fatalf("StoreBillers = %+v, %v; want 2 added", ch, err)
		}
		if err := db.FinishBillerSync(ctx, id, at, BillerSyncResult{State: "ok", MaxUpdated: "2026-11-21", Seen: 2, Added: 2}); err != nil {
			t.Fatal(err)
		}
		if last, err := db.LastBillerSync(ctx, "water"); err != nil || last != "2026-11-21" {
			t.Errorf("LastBillerSync = %q, %v; want 2026-11-21", last, err)
		}
		b1.Name, b1.Available = "One Ltd", false
		ch, err = db.StoreBillers(ctx, id, at, []Biller{b1}, true, "")
		if err != nil || ch != (BillerChanges{Changed: 1, Removed: 1}) {
			t.Fatalf("StoreBillers = %+v, %v; want 1 changed, 1 removed", ch, err)
		}
		var fields string
		if err := db.QueryRow(`SELECT fields FROM biller_changes WHERE change = 'changed'`).Scan(&fields); err != nil ||
			fields != `{"billerName":["One","One Ltd"],"isAvailable":[true,false]}` {
			t.Errorf("changed fields = %s, %v", fields, err)
		}
		ch, err = db.StoreBillers(ctx, id, at, []Biller{b2}, false, "")
		if err != nil || ch != (BillerChanges{Added: 1}) {
			t.Errorf("B2 listed again = %+v, %v; want added", ch, err)
		}
	})
}
