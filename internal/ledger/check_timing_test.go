package ledger_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/evidence"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// TestCheckMidnightCallIsTimingResolvedNextNight: the check, on a
// database, night after night. A call at 23:58:30 whose record posts at
// 00:00:40 is timing on the first night (the next day's statement not
// synced): counted apart, no callOnly, an exception of its own. The next
// night syncs the record: the check of that night links it to the call of
// the night before (no row), and the exception is resolved, saying its
// record arrived.
func TestCheckMidnightCallIsTimingResolvedNextNight(t *testing.T) {
	db := openDB(t)
	const acct = "0409000123456"
	addCalls(t, db,
		tcall{ts: "2026-11-21 12:00:00", ref: "R1", orderID: "S1", acct: acct, opening: "100.00", amount: "1.50", closing: "98.50"},
		tcall{ts: "2026-11-21 23:58:30", ref: "R2", orderID: "S2", acct: acct, opening: "98.50", amount: "1.50", closing: "97.00"})
	addRecords(t, db, trec{svc: "S1", client: "R1", ts: "2026-11-21 12:00:01", amount: "1.50"})

	night1 := night(t, db, "2026-11-21")
	s := night1.rep.Summary
	if s.Outcomes[recon.Timing] != (recon.CountSum{Count: 1, Amount: "1.50"}) || s.Outcomes[recon.CallOnly].Count != 0 ||
		night1.rep.HasFindings() {
		t.Fatalf("night 1: timing %+v, callOnly %+v, findings %v; want the call timing, no break",
			s.Outcomes[recon.Timing], s.Outcomes[recon.CallOnly], night1.rep.HasFindings())
	}
	e := exception(t, db, evidence.KindTiming, "call R2")
	if e.Status != evidence.StatusOpen || night1.res.Counts.New != 1 {
		t.Fatalf("night 1: exception %+v, counts %+v; want it new and open", e, night1.res.Counts)
	}

	// The next night: its statement brings the record, its log a call.
	addRecords(t, db, trec{svc: "S2", client: "R2", ts: "2026-11-22 00:00:40", amount: "1.50"},
		trec{svc: "S3", client: "R3", ts: "2026-11-22 09:00:01", amount: "2.00"})
	addCalls(t, db, tcall{ts: "2026-11-22 09:00:00", ref: "R3", orderID: "S3", acct: acct, opening: "97.00", amount: "2.00", closing: "95.00"})
	night2 := night(t, db, "2026-11-22")
	if s := night2.rep.Summary; s.Outcomes[recon.Timing].Count != 0 || s.Outcomes[recon.StatementOnly].Count != 0 || night2.rep.HasFindings() {
		t.Errorf("night 2: outcomes %+v; want the record linked to the call of the night before", s.Outcomes)
	}
	if e := exception(t, db, evidence.KindTiming, "call R2"); e.Status != evidence.StatusResolved || night2.res.Counts.Resolved != 1 {
		t.Errorf("night 2: exception %+v, counts %+v; want it resolved", e, night2.res.Counts)
	}
	var notes []string
	for ev, err := range db.Events(context.Background(), evidence.EventFilter{ExceptionID: e.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, ev.Action+": "+ev.Note)
	}
	if len(notes) != 2 || notes[1] != fmt.Sprintf("resolved: its record arrived, seen by run %d", night2.rep.RunID) {
		t.Errorf("events = %q, want seen, then resolved as its record arrived", notes)
	}
}

type nightRun struct {
	rep *ledger.Report
	res *evidence.Result
}

// night checks one day with the commands' timing window and records its
// evidence.
func night(t *testing.T, db *store.DB, day string) nightRun {
	t.Helper()
	at := date(t, day).AddDate(0, 0, 1).Add(2 * time.Hour)
	rep, err := ledger.Check(context.Background(), db, ledger.CheckOptions{From: date(t, day), To: date(t, day),
		TimingWindow: ledger.DefaultTimingWindow, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := evidence.Record(context.Background(), db, evidence.Check{RunID: rep.RunID, Summary: rep.Summary,
		Findings: "Reconciled", Now: func() time.Time { return at }, Version: "svcrecon test"})
	if err != nil {
		t.Fatal(err)
	}
	return nightRun{rep, res}
}

func exception(t *testing.T, db *store.DB, kind, key string) evidence.Exception {
	t.Helper()
	for e, err := range db.Exceptions(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == kind && e.Key == key {
			return e
		}
	}
	t.Fatalf("no exception %s %q", kind, key)
	return evidence.Exception{}
}
