package statement

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
)

func changesOf(t testing.TB, o BillerOptions, syncID int64) map[string]string {
	t.Helper()
	rows, err := sqlDB(o.DB).Query(`SELECT biller_id, change, fields FROM biller_changes WHERE sync_id = ?`, syncID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, ch, f string
		if err := rows.Scan(&id, &ch, &f); err != nil {
			t.Fatal(err)
		}
		if f != "" {
			ch += " " + f
		}
		out[id] = ch
	}
	return out
}

func TestSyncBillersIncrementalAndFull(t *testing.T) {
	f, cl := newFake(t)
	for i := range 23 {
		cat := "electricity"
		if i%3 == 0 {
			cat = "water"
		}
		f.billers = append(f.billers, fakeBiller(i, cat, "2026-10-01"))
	}
	o := BillerOptions{DB: openDB(t), Client: cl, PageSize: 5}
	ctx := context.Background()

	// First sync: incremental with nothing before = everything, all added.
	s1, err := SyncBillers(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Seen != 23 || s1.Added != 23 || s1.Changed != 0 || s1.Removed != 0 || s1.UpdatedAfter != "" || s1.Pages != 5 {
		t.Errorf("first sync = %+v, want 23 seen and added in 5 pages, no updatedAfter", s1)
	}
	if got := len(changesOf(t, o, s1.SyncID)); got != 23 {
		t.Errorf("first sync recorded %d changes, want 23", got)
	}

	// The service changes one biller, adds one and drops one.
	f.mu.Lock()
	f.billers[4]["billerName"], f.billers[4]["updatedDate"] = "Biller Four Ltd", "2026-11-02"
	f.billers[7]["isAvailable"], f.billers[7]["updatedDate"] = false, "2026-11-03"
	f.billers = append(f.billers, fakeBiller(99, "water", "2026-11-01"))
	f.billers = append(f.billers[:10], f.billers[11:]...) // B010 (electricity) gone
	f.mu.Unlock()

	s2, err := SyncBillers(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	// updatedDate is a date: the sync asks from the day before the newest
	// one it saw, so every biller dated 2026-10-01 is listed again.
	if s2.UpdatedAfter != "2026-09-30" || s2.Seen != 23 || s2.Added != 1 || s2.Changed != 2 || s2.Removed != 0 {
		t.Errorf("incremental sync = %+v, want after 2026-09-30: 23 seen, 1 added, 2 changed", s2)
	}
	last := f.billerReqs[len(f.billerReqs)-1]
	if last.Filters.UpdatedAfterDate != "2026-09-30" {
		t.Errorf("incremental request updatedAfterDate = %q", last.Filters.UpdatedAfterDate)
	}
	ch := changesOf(t, o, s2.SyncID)
	want := map[string]string{
		"B099": "added",
		"B004": `changed {"billerName":["Biller 4","Biller Four Ltd"],"updatedDate":["2026-10-01","2026-11-02"]}`,
		"B007": `changed {"isAvailable":[true,false],"updatedDate":["2026-10-01","2026-11-03"]}`,
	}
	if len(ch) != len(want) {
		t.Errorf("incremental changes = %v, want %v", ch, want)
	}
	for id, w := range want {
		if ch[id] != w {
			t.Errorf("change of %s = %q, want %q", id, ch[id], w)
		}
	}

	// A second incremental sync asks from the newest date seen: B007
	// (2026-11-03) again, unchanged, and no change recorded.
	s3, err := SyncBillers(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if s3.UpdatedAfter != "2026-11-02" || s3.Seen != 1 || s3.Added+s3.Changed+s3.Removed != 0 {
		t.Errorf("repeat incremental = %+v, want B007 only, unchanged, after 2026-11-02", s3)
	}
	if got := changesOf(t, o, s3.SyncID); len(got) != 0 {
		t.Errorf("repeat incremental recorded changes %v", got)
	}
	// A biller updated later on that same day is not missed.
	f.mu.Lock()
	f.billers[5]["billerName"], f.billers[5]["updatedDate"] = "Biller Five Ltd", "2026-11-03"
	f.mu.Unlock()
	s3b, err := SyncBillers(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if s3b.UpdatedAfter != "2026-11-02" || s3b.Seen != 2 || s3b.Changed != 1 || s3b.Added+s3b.Removed != 0 {
		t.Errorf("incremental after a same-day update = %+v, want B005 changed", s3b)
	}
	if got := changesOf(t, o, s3b.SyncID)["B005"]; !strings.HasPrefix(got, `changed {"billerName":["Biller 5","Biller Five Ltd"]`) {
		t.Errorf("change of B005 = %q", got)
	}

	// A full sync of the water category removes nothing: B010 is electricity.
	o.Full, o.Category = true, "water"
	s4, err := SyncBillers(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if s4.Removed != 0 || s4.Added != 0 || s4.Changed != 0 || s4.Seen != 9 {
		t.Errorf("full water sync = %+v, want 9 seen, no change", s4)
	}
	// A full sync of everything marks B010 removed, never deletes it.
	o.Category = ""
	s5, err := SyncBillers(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if s5.Removed != 1 || s5.Seen != 23 || s5.Added != 0 || s5.Changed != 0 {
		t.Errorf("full sync = %+v, want 23 seen, 1 removed", s5)
	}
	if got := changesOf(t, o, s5.SyncID); len(got) != 1 || got["B010"] != "removed" {
		t.Errorf("full sync changes = %v, want B010 removed", got)
	}
	if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM billers WHERE biller_id = 'B010' AND removed = 1 AND removed_at IS NOT NULL`); n != 1 {
		t.Errorf("B010 not kept as removed")
	}
	if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM billers`); n != 24 {
		t.Errorf("billers = %d, want 24 (none deleted)", n)
	}
	// Listed again: added back.
	f.mu.Lock()
	f.billers = append(f.billers, fakeBiller(10, "electricity", "2026-11-04"))
	f.mu.Unlock()
	s6, err := SyncBillers(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if s6.Added != 1 || s6.Removed != 0 {
		t.Errorf("re-listed sync = %+v, want 1 added", s6)
	}
	var states []string
	rows, _ := sqlDB(o.DB).Query(`SELECT mode || ':' || state FROM biller_syncs ORDER BY id`)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		states = append(states, s)
	}
	rows.Close()
	sort.Strings(states)
	if len(states) != 7 {
		t.Errorf("biller_syncs = %v, want 7", states)
	}
	for _, s := range states {
		if s != "full:ok" && s != "incremental:ok" {
			t.Errorf("biller sync state %s", s)
		}
	}
}

func TestSyncBillersFailedPageStoresNothing(t *testing.T) {
	f, cl := newFake(t)
	for i := range 12 {
		f.billers = append(f.billers, fakeBiller(i, "gas", "2026-10-01"))
	}
	f.billers[7]["billerId"] = ""
	o := BillerOptions{DB: openDB(t), Client: cl, PageSize: 5}
	s, err := SyncBillers(context.Background(), o)
	if err == nil {
		t.Fatal("SyncBillers with a biller without billerId: no error")
	}
	if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM billers`); n != 0 {
		t.Errorf("%d billers stored from a failed sync", n)
	}
	if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM biller_syncs WHERE id = ? AND state = 'failed' AND error LIKE '%page 2%billerId%'`, s.SyncID); n != 1 {
		t.Errorf("failed sync not recorded with page and field")
	}
}

func TestSyncBillersFullWalkThatDiffersRemovesNothing(t *testing.T) {
	f, cl := newFake(t)
	for i := range 8 {
		f.billers = append(f.billers, fakeBiller(i, "gas", "2026-10-01"))
	}
	o := BillerOptions{DB: openDB(t), Client: cl, PageSize: 3, Full: true}
	if _, err := SyncBillers(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	// One biller is gone, but the service's count says one more than it
	// lists: the walk cannot be trusted to mark anything removed.
	f.mu.Lock()
	f.billers = f.billers[1:]
	f.totalLie = 2
	f.mu.Unlock()
	s, err := SyncBillers(context.Background(), o)
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("SyncBillers = %v, want ErrIncomplete", err)
	}
	if s.Removed != 0 || queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM billers WHERE removed = 1`) != 0 {
		t.Errorf("an untrusted full walk marked billers removed: %+v", s)
	}
	if n := queryInt(t, sqlDB(o.DB), `SELECT count(*) FROM biller_syncs WHERE id = ? AND state = 'failed'`, s.SyncID); n != 1 {
		t.Errorf("sync not recorded as failed")
	}
}
