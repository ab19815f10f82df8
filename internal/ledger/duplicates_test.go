package ledger

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// dupLookups is a dupFinder over fixed calls and records that counts the
// look-ups.
type dupLookups struct {
	calls   []RefCall
	refs    map[int64]string // externalRef by call id
	recs    []Record
	lookups int
}

func (f *dupLookups) RefCalls(_ context.Context, ref string) ([]RefCall, error) {
	f.lookups++
	var out []RefCall
	for _, c := range f.calls {
		if f.refs[c.ID] == ref {
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *dupLookups) PeriodRecordsByClient(_ context.Context, client string) ([]Record, error) {
	f.lookups++
	var out []Record
	for _, r := range f.recs {
		if r.ClientOrderID == client {
			out = append(out, r)
		}
	}
	return out, nil
}

// RepeatedRefs yields the externalRefs of more than one call.
func (f *dupLookups) RepeatedRefs(context.Context) iter.Seq2[string, error] {
	n := map[string]int{}
	for _, c := range f.calls {
		n[f.refs[c.ID]]++
	}
	return repeatedKeys(n)
}

// RepeatedClients yields the clientOrderIds of more than one record.
func (f *dupLookups) RepeatedClients(context.Context) iter.Seq2[string, error] {
	n := map[string]int{}
	for _, r := range f.recs {
		n[r.ClientOrderID]++
	}
	return repeatedKeys(n)
}

// repeatedKeys yields the keys counted more than once (but "").
func repeatedKeys(n map[string]int) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for k, c := range n {
			if k != "" && c > 1 && !yield(k, nil) {
				return
			}
		}
	}
}

func TestDuplicatesSeeDebits(t *testing.T) {
	debit := func(id int64, outcome, orderID string) RefCall {
		return RefCall{ID: id, Outcome: outcome, Shape: "A", OrderID: orderID}
	}
	pool := &svcapi.Pool{Shape: "A"}
	for _, tt := range []struct {
		name     string
		calls    []RefCall
		resolved map[int64]resolution
		dup      bool
	}{
		{"two orderids", []RefCall{debit(1, "success", "O1"), debit(2, "success", "O2")}, nil, true},
		{"the same debit logged twice", []RefCall{debit(1, "success", "O1"), debit(2, "success", "O1")}, nil, false},
		{"a failed call is no debit", []RefCall{debit(1, "success", "O1"), debit(2, "failed", "O2")}, nil, false},
		{"a call without a pool object is no debit", []RefCall{debit(1, "success", "O1"), {ID: 2, Outcome: "success", OrderID: "O2"}}, nil, false},
		{"a pending call looked up executed", []RefCall{debit(1, "success", "O1"), {ID: 2, Outcome: "pending"}},
			map[int64]resolution{2: {state: recon.CallSuccess, orderID: "O2", pool: pool}}, true},
		{"a pending call re-sent", []RefCall{debit(1, "success", "O1"), {ID: 2, Outcome: "pending"}},
			map[int64]resolution{2: {state: recon.CallFailed, resent: true}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &dupLookups{calls: tt.calls, refs: map[int64]string{1: "R", 2: "R"}}
			d := mustDuplicates(t, f, tt.resolved)
			for range 3 {
				if err := d.seeDebit("R"); err != nil {
					t.Fatal(err)
				}
			}
			if d.isDup("R") != tt.dup || f.lookups != 1 {
				t.Errorf("isDup = %v after %d look-ups, want %v after one (on the second meeting)", d.isDup("R"), f.lookups, tt.dup)
			}
			if d.isDup("") {
				t.Error(`isDup("") = true`)
			}
		})
	}
}

func TestDuplicatesSeeRecords(t *testing.T) {
	f := &dupLookups{recs: []Record{{ClientOrderID: "A", TxnMode: "DR"}, {ClientOrderID: "A", TxnMode: "DR"},
		{ClientOrderID: "B", TxnMode: "DR"}, {ClientOrderID: "B", TxnMode: " cr "}}}
	d := mustDuplicates(t, f, nil)
	for _, c := range []string{"A", "B", "A", "B", "C"} {
		if err := d.seeRecord(c); err != nil {
			t.Fatal(err)
		}
	}
	if !d.isDup("A") || d.isDup("B") || d.isDup("C") || !slices.Equal(d.found, []string{"A"}) {
		t.Errorf("dup A %v, B %v, C %v, found %v; want only A (two debit records)", d.isDup("A"), d.isDup("B"), d.isDup("C"), d.found)
	}
}

// rows is a rewriter over rows kept in memory, all of the externalRefs
// asked for.
type rows []Match

func (r rows) RewriteMatches(_ []string, rewrite func(Match) (Match, bool)) error {
	for i := range r {
		if m, ok := rewrite(r[i]); ok {
			r[i] = m
		}
	}
	return nil
}

// TestDuplicatesFixLate: the rows written before their externalRef was
// found twice become duplicateDebit rows, with the call's and record's
// delta and a note; pending rows and rows already duplicateDebit stay.
func TestDuplicatesFixLate(t *testing.T) {
	d := mustDuplicates(t, &dupLookups{}, nil)
	if fixes, err := d.fixLate(rows{{Outcome: recon.Matched, CallID: 1}}); err != nil || len(fixes) != 0 {
		t.Errorf("fixLate with nothing found = %v, %v; want nothing rewritten", fixes, err)
	}
	d.markDup("R")
	written := rows{
		{Outcome: recon.Reversed, CallID: 1, SvcOrderID: "S1", CallAmount: "10.00", StatementAmount: "9.50", Note: "reversed by RV"},
		{Outcome: recon.Pending, CallID: 2, SvcOrderID: "S2", StatementAmount: "3.00"},
		{Outcome: recon.StatementOnly, SvcOrderID: "S3", StatementAmount: "4.00", Note: "no call logged for this debit"},
		{Outcome: recon.CallOnly, CallID: 4, CallAmount: "5.00", Note: "no statement record for this debit"},
		{Outcome: recon.DuplicateDebit, CallID: 5, CallAmount: "6.00", Note: "externalRef debited more than once"},
	}
	fixes, err := d.fixLate(written)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range written {
		got = append(got, m.Outcome+"|"+m.Delta+"|"+m.Note)
	}
	want := []string{
		"duplicateDebit|0.50|externalRef debited more than once",
		"pending||",
		"duplicateDebit||externalRef debited more than once; no call logged for this debit",
		"duplicateDebit||externalRef debited more than once",
		"duplicateDebit||externalRef debited more than once",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows after fixLate:\n%q\nwant\n%q", got, want)
	}
	var amounts []string
	for _, f := range fixes {
		amounts = append(amounts, f.old.Outcome+" "+recon.Money(f.amount))
	}
	if want := []string{"reversed 10.00", "statementOnly 4.00", "callOnly 5.00"}; !slices.Equal(amounts, want) {
		t.Errorf("fixes %q, want %q", amounts, want)
	}
}

func mustDuplicates(t *testing.T, f dupFinder, resolved map[int64]resolution) *duplicates {
	t.Helper()
	d, err := newDuplicates(context.Background(), f, resolved)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDuplicatesOnlyRepeatedKeys: a key the database holds once is never
// looked up, however often the streams meet it (a debit and its
// reversal's credit, one call retried under a new externalRef …); a key
// it holds twice is looked up once, at its second meeting.
func TestDuplicatesOnlyRepeatedKeys(t *testing.T) {
	f := &dupLookups{
		calls: []RefCall{{ID: 1, Outcome: "success", Shape: "A", OrderID: "O1"}, {ID: 2, Outcome: "success", Shape: "A", OrderID: "O2"},
			{ID: 3, Outcome: "success", Shape: "A", OrderID: "O3"}},
		refs: map[int64]string{1: "R", 2: "R", 3: "ONCE"},
		recs: []Record{{ClientOrderID: "C1", TxnMode: "DR"}},
	}
	d := mustDuplicates(t, f, nil)
	for range 3 {
		if err := d.seeDebit("ONCE"); err != nil {
			t.Fatal(err)
		}
		if err := d.seeRecord("C1"); err != nil {
			t.Fatal(err)
		}
	}
	if f.lookups != 0 || d.isDup("ONCE") {
		t.Fatalf("%d look-ups for keys held once (dup %v), want none", f.lookups, d.isDup("ONCE"))
	}
	if err := d.seeDebit("R"); err != nil || f.lookups != 0 {
		t.Fatalf("first meeting of R: %d look-ups (%v), want none", f.lookups, err)
	}
	if err := d.seeDebit("R"); err != nil || f.lookups != 1 || !d.isDup("R") {
		t.Fatalf("second meeting of R: %d look-ups, dup %v (%v); want one look-up and a duplicate", f.lookups, d.isDup("R"), err)
	}
}

// failingRepeats is a dupFinder whose repeated keys cannot be read.
type failingRepeats struct{ dupLookups }

func (*failingRepeats) RepeatedRefs(context.Context) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) { yield("", errors.New("disk I/O error")) }
}

// TestDuplicatesRepeatsUnread: a failure to read the repeated keys is the
// stage's error (the check fails), never an empty set (no duplicates).
func TestDuplicatesRepeatsUnread(t *testing.T) {
	_, err := newDuplicates(context.Background(), &failingRepeats{}, nil)
	if err == nil || !strings.Contains(err.Error(), "disk I/O error") {
		t.Fatalf("newDuplicates = %v, want the read's error", err)
	}
}
