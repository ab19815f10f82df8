package ledger

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The matching stage, on its own (TestMatcher) and through the stages with
// no database (TestMatchPass).

// rec is a statement record for the stages.
func rec(svc, client, ts, mode, amount, reversal string) Record {
	return Record{Account: "0409000123456", SvcOrderID: svc, ClientOrderID: client, TxnDateTime: ts,
		TxnMode: mode, Amount: amount, ReversalSvcOrderID: reversal}
}

func TestMatchPass(t *testing.T) {
	const day = "2026-11-21 10:00:0"
	for _, tt := range []struct {
		name  string
		recs  []Record
		calls []recon.Call
		want  []string // outcomes in time order
	}{
		{"matched by orderid", []Record{rec("OA", "other", day+"0", "DR", "10", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.Matched}},
		{"matched by externalRef", []Record{rec("OA", "A", day+"1", "DR", "10", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.Matched}},
		{"amount mismatch", []Record{rec("OA", "A", day+"0", "DR", "9.50", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.AmountMismatch}},
		{"call only and statement only", []Record{rec("OX", "X", day+"1", "DR", "3", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.CallOnly, recon.StatementOnly}},
		{"a CR record is never statement only", []Record{rec("RV", "X", day+"0", "CR", "3", "")}, nil, nil},
		{"duplicate debit", []Record{rec("OA1", "A", day+"0", "DR", "10", ""), rec("OA2", "A", day+"5", "DR", "10", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA1", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.DuplicateDebit, recon.DuplicateDebit}},
		{"pending", []Record{rec("OP", "P", day+"0", "DR", "7", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "P", Outcome: recon.CallPending}},
			[]string{recon.Pending}},
		{"reversed", []Record{rec("OA", "A", day+"0", "DR", "10", "RV")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "A", OrderID: "OA", Outcome: recon.CallSuccess, Pool: pool("100", "10", "90")}},
			[]string{recon.Reversed}},
		{"a failed call's record is no statement only", []Record{rec("OX", "X", day+"0", "DR", "3", "")},
			[]recon.Call{{ID: 1, TS: day + "0", ExternalRef: "X", Outcome: recon.CallFailed}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range runPass(t, tt.calls, tt.recs, nil).inOrder() {
				got = append(got, m.Outcome)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
		})
	}
}

// recordLog is a recordOut that notes what the matching stage hands on.
type recordLog struct {
	debits []string
	done   []string
}

func (l *recordLog) debitRecord(client string) error {
	l.debits = append(l.debits, client)
	return nil
}

func (l *recordLog) finished(r, rev *wrec) error {
	s := fmt.Sprintf("%s linked=%v debit=%v", r.svc, r.linked(), r.linkedDebit())
	if rev != nil {
		s += " reversal " + rev.svc
	}
	l.done = append(l.done, s)
	return nil
}

// TestMatcher: calls are linked to their records by orderid, else by
// externalRef (the first record not linked to a debit yet), a far record
// by key; each linked call gets its outcome; the records leave the window
// with their links known, a reversed one with its reversal record.
func TestMatcher(t *testing.T) {
	const day = "2026-11-21 "
	recs := []Record{
		rec("OA", "A", day+"10:00:00", "DR", "10", ""),
		rec("OB1", "B", day+"10:00:01", "DR", "5", ""),
		rec("OB2", "B", day+"10:00:02", "DR", "5", ""),
		rec("OR", "R", day+"10:00:03", "DR", "7", "RV"),
		rec("RV", "R", day+"10:00:04", "CR", "7", ""),
		rec("OX", "X", day+"10:00:05", "DR", "3", ""),
		rec("OF", "F", day+"11:00:00", "DR", "4", ""), // far: linked by key, then loaded
	}
	m := newMemStore(nil, recs, nil)
	next, stop := iter.Pull2(slices2(m.recs))
	defer stop()
	out := &recordLog{}
	per := &period{window: Window{From: memFrom, To: memTo}, openRefs: map[string]bool{}}
	mt := newMatcher(context.Background(), per, m, next, out)
	at, _ := parseTS(day + "10:00:00")
	if err := mt.advance(at, day+"10:00:00"); err != nil {
		t.Fatal(err)
	}
	debit := func(ref, orderID, amount string) recon.Call {
		return recon.Call{ExternalRef: ref, OrderID: orderID, Outcome: recon.CallSuccess, Pool: pool("100", amount, "0")}
	}
	var got []string
	for _, c := range []recon.Call{debit("A", "OA", "10"), debit("B", "", "5"), debit("B", "", "6"), debit("R", "OR", "7"),
		{ExternalRef: "P", Outcome: recon.CallPending}, debit("Z", "OF", "4"), debit("N", "", "1")} {
		r, err := mt.link(&c, c.Outcome)
		if err != nil {
			t.Fatal(err)
		}
		k := kcall{ts: at, ref: c.ExternalRef, rec: r, pending: c.Outcome == recon.CallPending}
		if !k.pending {
			k.amount, k.money = dec(c.Pool.Amount), recon.Money(dec(c.Pool.Amount))
		}
		row, _, orphan := mt.callRow(&k)
		got = append(got, fmt.Sprintf("%s %s %v", row.Outcome, row.SvcOrderID, orphan))
	}
	want := []string{"matched OA false", "matched OB1 false", "amountMismatch OB2 false", "reversed OR false", "pending  false",
		"matched OF false", "  true"} // the last has no record: callOnly, for the suggested pairs
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if err := mt.drain(); err != nil {
		t.Fatal(err)
	}
	wantOut := []string{"OA linked=true debit=true", "OB1 linked=true debit=true", "OB2 linked=true debit=true",
		"OR linked=true debit=true reversal RV", "RV linked=false debit=false", "OX linked=false debit=false",
		"OF linked=true debit=true"}
	if !slices.Equal(out.done, wantOut) {
		t.Errorf("finished %q, want %q", out.done, wantOut)
	}
	if want := []string{"A", "B", "B", "R", "X", "F"}; !slices.Equal(out.debits, want) {
		t.Errorf("debit records %q, want %q", out.debits, want)
	}
	if n, cr := mt.counts(); n != 7 || recon.Money(cr) != "7.00" {
		t.Errorf("records %d, credited %s; want 7 and 7.00", n, recon.Money(cr))
	}
}
