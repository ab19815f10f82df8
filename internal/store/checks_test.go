package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// TestCheckStatementFields: the check reads, besides the keys, amount and
// time, each record's productCode (for suggested pairs), and the
// suggested pair of a match row is stored with it.
func TestCheckStatementFields(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		r := testRecord("S1", "2026-11-21 10:00:00", "1.50")
		r.Values[recon.FClientOrderID], r.Values[recon.FProductCode], r.Values[recon.FTxnMode] = "R1", "IDV", "DR"
		if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: []recon.Record{r}}}); err != nil {
			t.Fatal(err)
		}
		var got []ledger.Record
		for rec, err := range db.CheckStatement(ctx, ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rec)
		}
		if len(got) != 1 || got[0].SvcOrderID != "S1" || got[0].ProductCode != "IDV" || got[0].ClientOrderID != "R1" ||
			got[0].Amount != "1.50" {
			t.Fatalf("CheckStatement = %+v, want S1 of R1, 1.50, productCode IDV", got)
		}
		f, err := db.CheckFinder(ctx, ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if rec, ok, err := f.Record(ctx, "S1"); err != nil || !ok || rec.ProductCode != "IDV" {
			t.Errorf("CheckRecord(S1) = %+v, %v, %v; want its productCode", rec, ok, err)
		}

		const pair = "call 7 verifyPanPlusV2 — rule: equal amount 1.50"
		id := storeRun(t, db, testRun, func(w ledger.RunWriter) {
			w.Match(ledger.Match{Outcome: recon.StatementOnly, SvcOrderID: "S1", TS: "2026-11-21 10:00:00", SuggestedPair: pair})
		})
		var stored string
		if err := db.QueryRow(`SELECT suggested_pair FROM recon_matches WHERE run_id = ?`, id).Scan(&stored); err != nil || stored != pair {
			t.Errorf("suggested_pair = %q, %v; want %q", stored, err, pair)
		}
	})
}

// testRun is a run of the day 2026-11-21.
var testRun = ledger.Run{From: "2026-11-21", To: "2026-11-21", AsOf: "2026-11-21", Started: time.Now()}

// storeRun stores a run as a check does (BeginCheckRun, the rows add adds,
// Commit with an empty summary) and returns its id.
func storeRun(tb testing.TB, db *DB, run ledger.Run, add func(w ledger.RunWriter)) int64 {
	tb.Helper()
	w, err := db.BeginCheckRun(context.Background(), run)
	if err != nil {
		tb.Fatal(err)
	}
	add(w)
	if err := w.Commit([]byte(`{}`), func() time.Time { return run.Started }); err != nil {
		tb.Fatal(err)
	}
	return w.ID()
}

// TestRewriteMatches: the rows of an externalRef (its calls' rows, and
// the rows without a call that carry it) are offered, and only those the
// caller rewrites are replaced, in place; other externalRefs' rows are not
// offered.
func TestRewriteMatches(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		calls := []recon.Call{
			{Hash: testHash("h1"), Source: "a", Line: 1, TS: "2026-11-21 10:00:00", ExternalRef: "R", OrderID: "O1", Outcome: recon.CallSuccess},
			{Hash: testHash("h2"), Source: "a", Line: 2, TS: "2026-11-21 10:00:01", ExternalRef: "R", Outcome: recon.CallPending},
			{Hash: testHash("h3"), Source: "a", Line: 3, TS: "2026-11-21 10:00:02", ExternalRef: "Q", OrderID: "O3", Outcome: recon.CallSuccess},
		}
		if _, err := db.InsertCalls(ctx, time.Now(), calls, nil); err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{}
		for c, err := range db.CheckCalls(ctx, ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}) {
			if err != nil {
				t.Fatal(err)
			}
			ids[c.TS[len(c.TS)-2:]] = c.ID
		}
		rows := []ledger.Match{
			{Outcome: recon.AmountMismatch, CallID: ids["00"], SvcOrderID: "S1", ExternalRef: "R", TS: "2026-11-21 10:00:00",
				CallAmount: "1.00", StatementAmount: "2.00", Delta: "-1.00"},
			{Outcome: recon.Pending, CallID: ids["01"], ExternalRef: "R", TS: "2026-11-21 10:00:01"},
			{Outcome: recon.CallOnly, CallID: ids["02"], ExternalRef: "Q", TS: "2026-11-21 10:00:02", CallAmount: "3.00"},
			{Outcome: recon.StatementOnly, SvcOrderID: "S4", ExternalRef: "R", TS: "2026-11-21 10:00:03", StatementAmount: "4.00"},
		}
		w, err := db.BeginCheckRun(ctx, testRun)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rows {
			w.Match(m)
		}
		var offered []string
		err = w.RewriteMatches([]string{"R"}, func(m ledger.Match) (ledger.Match, bool) {
			offered = append(offered, m.Outcome)
			if m.Outcome == recon.Pending {
				return m, false
			}
			m.Outcome, m.Note = recon.DuplicateDebit, "twice"
			return m, true
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit([]byte(`{}`), time.Now); err != nil {
			t.Fatal(err)
		}
		slices.Sort(offered)
		if want := []string{recon.AmountMismatch, recon.Pending, recon.StatementOnly}; !slices.Equal(offered, want) {
			t.Errorf("offered %q, want %q", offered, want)
		}
		var got []string
		for m, err := range db.ReportMatches(ctx, w.ID()) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m.Outcome+" "+m.SvcOrderID+" "+m.Note+" "+m.Delta)
		}
		want := []string{"duplicateDebit S1 twice -1.00", "pending   ", "callOnly   ", "duplicateDebit S4 twice "}
		if !slices.Equal(got, want) {
			t.Errorf("rows after the rewrite %q, want %q", got, want)
		}
	})
}

// TestCheckCallsInOrder: the window's calls come by time, then id, though
// the index they are read through orders a second's calls by line hash
// (a digit repeated: f… first, then e…); read-only operations and calls
// outside the window are left out.
func TestCheckCallsInOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		call := func(digit, ts, op string) recon.Call {
			return recon.Call{Hash: strings.Repeat(digit, 64), Source: "a.jsonl", TS: ts, Operation: op, Outcome: recon.CallSuccess}
		}
		if _, err := db.InsertCalls(ctx, time.Now(), []recon.Call{
			call("f", "2026-11-21 10:00:01", "verifyPanPlusV2"), // id 1
			call("e", "2026-11-21 10:00:01", "verifyPanPlusV2"), // 2
			call("d", "2026-11-21 10:00:00", "verifyPanPlusV2"), // 3
			call("c", "2026-11-21 10:00:01", "statement"),       // 4: read-only
			call("b", "2026-11-21 10:00:01", "verifyPanPlusV2"), // 5
			call("a", "2026-11-22 00:00:00", "verifyPanPlusV2"), // 6: outside
			call("9", "2026-11-21 23:59:59", "verifyPanPlusV2"), // 7
		}, nil); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for c, err := range db.CheckCalls(ctx, ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59",
			Skip: []string{"statement"}}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, c.ID)
		}
		if want := []int64{3, 1, 2, 5, 7}; !slices.Equal(got, want) {
			t.Errorf("calls = %v, want %v", got, want)
		}
	})
}

// TestCheckStatementWithinThePool: a check merges one stream of records
// per account only where the pool has room for them beside the run's
// transaction, the calls' stream and a look-up. With a pool of CheckConns+1
// and those three held, four accounts' records, each more than a read-ahead,
// come in order from one query; a stream per account would wait for ever for a connection (the
// check hung with --db-pool 5 and four accounts). A check with a pool
// below CheckConns is refused before it starts.
func TestCheckStatementWithinThePool(t *testing.T) {
	eachBackendURL(t, func(t *testing.T, dsn string) {
		small, err := OpenWith(context.Background(), dsn, Options{MaxConns: CheckConns - 1})
		if err != nil {
			t.Fatal(err)
		}
		if w, err := small.BeginCheckRun(context.Background(), testRun); err == nil ||
			err.Error() != "a check holds 4 database connections at once; the pool allows 3" {
			t.Errorf("BeginCheckRun with a pool of %d = %v; want refused", CheckConns-1, err)
			if err == nil {
				w.Abort()
			}
		}
		small.Close()
		db, err := OpenWith(context.Background(), dsn, Options{MaxConns: CheckConns + 1})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// Each account's stream longer than prefetch reads ahead,
		// so that it holds its connection while the others are read.
		const each = 8 * prefetchBatch // more than prefetch holds (its hand-overs and the batch filled)
		var recs []recon.Record
		for _, a := range []string{"A1", "A2", "A3", "A4"} {
			for j := range each {
				r := testRecord(fmt.Sprintf("S%05d%s", j, a), fmt.Sprintf("2026-11-21 10:%02d:%02d", j/60, j%60), "1.00")
				r.Account = a
				recs = append(recs, r)
			}
		}
		if _, _, err := db.WriteRecords(ctx, time.Now(), []RecordPage{{Records: recs}}); err != nil {
			t.Fatal(err)
		}
		for range checkConns {
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
		}
		n, prev := 0, ""
		for rec, err := range db.CheckStatement(ctx, ledger.Window{From: "2026-11-21 00:00:00", To: "2026-11-21 23:59:59"}) {
			if err != nil {
				t.Fatal(err)
			}
			if key := rec.TxnDateTime + rec.SvcOrderID; key < prev {
				t.Fatalf("record %s after %s: not in time order", key, prev)
			}
			prev = rec.TxnDateTime + rec.SvcOrderID
			n++
		}
		if n != 4*each {
			t.Errorf("CheckStatement read %d records; want %d", n, 4*each)
		}
	})
}
