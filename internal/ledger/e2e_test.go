package ledger_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/calllog"
	"github.com/svcrecon/svcrecon/internal/ledger"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/statement"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// startSandbox starts the sandbox, or skips while it is not built yet.
func startSandbox(tb testing.TB, opts sandbox.Options) *sandbox.Server {
	tb.Helper()
	srv, err := sandbox.Start(opts)
	if err != nil {
		if strings.Contains(err.Error(), "not implemented") {
			tb.Skipf("sandbox: %v", err)
		}
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}

// syncSandbox walks the sandbox's statement (the history period) and its
// collect orders into db.
func syncSandbox(tb testing.TB, db *store.DB, srv *sandbox.Server) {
	tb.Helper()
	cl, err := svcapi.New(srv.Config())
	if err != nil {
		tb.Fatal(err)
	}
	from, to := srv.Period()
	ctx := context.Background()
	if _, err := statement.Sync(ctx, statement.Options{DB: db, Client: cl, Account: srv.Credentials().Account,
		From: from, To: to, Kinds: []recon.Kind{recon.Statement}, Log: slog.New(slog.DiscardHandler)}); err != nil {
		tb.Fatalf("sync statement: %v", err)
	}
	// Collect orders start before the period (the >30 days bucket).
	ofrom, oto := from.AddDate(0, 0, -45), to
	if op, ok := any(srv.Sandbox).(interface{ OrdersPeriod() (time.Time, time.Time) }); ok {
		ofrom, oto = op.OrdersPeriod()
	}
	if _, err := statement.Sync(ctx, statement.Options{DB: db, Client: cl, Account: srv.Credentials().Account,
		From: ofrom, To: oto, Kinds: []recon.Kind{recon.Orders}, Log: slog.New(slog.DiscardHandler)}); err != nil {
		tb.Fatalf("sync orders: %v", err)
	}
}

func importCallLog(tb testing.TB, db *store.DB, sb *sandbox.Sandbox) calllog.Summary {
	tb.Helper()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(sb.WriteCallLog(pw)) }()
	sum, err := calllog.Import(context.Background(), db, "sandbox-calls.jsonl", pr, calllog.Options{})
	if err != nil {
		tb.Fatalf("import the sandbox's call log: %v", err)
	}
	return sum
}

func TestEndToEndSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	for _, seed := range []int64{7, 2026} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { endToEnd(t, seed) })
	}
}

func endToEnd(t *testing.T, seed int64) {
	srv := startSandbox(t, sandbox.Options{Seed: seed, Days: 20, End: time.Date(2026, 11, 20, 0, 0, 0, 0, recon.IST)})
	db := openDB(t)
	syncSandbox(t, db, srv)
	sum := importCallLog(t, db, srv.Sandbox)
	if sum.Bad != 0 || sum.Imported != srv.Counts().Calls {
		t.Fatalf("import = %+v (errors %v), want all %d lines imported", sum, sum.Errors, srv.Counts().Calls)
	}
	// Importing it again adds nothing.
	if again := importCallLog(t, db, srv.Sandbox); again.Imported != 0 {
		t.Errorf("re-import imported %d lines", again.Imported)
	}
	from, to := srv.Period()
	rep, err := ledger.Check(context.Background(), db, ledger.CheckOptions{From: from, To: to, TimingWindow: ledger.DefaultTimingWindow})
	if err != nil {
		t.Fatal(err)
	}
	planted := srv.Planted()
	if len(planted) == 0 {
		t.Fatal("the sandbox planted nothing")
	}
	compareFindings(t, db, rep, planted)
	// The generated world's sizes: calls by outcome, and the unsettled
	// collect orders in every aging bucket as of the period's last day.
	c := srv.Counts()
	s := rep.Summary
	if s.Calls != c.Calls || s.CallsWithDebit != c.CallsWithDebit || s.CallsFailed != c.CallsFailed || s.CallsPending != c.CallsPending {
		t.Errorf("calls %d (debit %d, failed %d, pending %d), the sandbox logged %d (debit %d, failed %d, pending %d)",
			s.Calls, s.CallsWithDebit, s.CallsFailed, s.CallsPending, c.Calls, c.CallsWithDebit, c.CallsFailed, c.CallsPending)
	}
	for _, b := range recon.BucketNames() {
		if s.Unsettled[b].Count != c.Unsettled[b] {
			t.Errorf("unsettled %s = %d, the sandbox generated %d", b, s.Unsettled[b].Count, c.Unsettled[b])
		}
	}
	if !rep.HasFindings() {
		t.Error("HasFindings = false")
	}
}

// comparePairs checks that the run suggests exactly the planted orphan
// pairs, on both rows, explained, and nothing else.
func comparePairs(t *testing.T, db *store.DB, rep *ledger.Report, orphans []sandbox.Defect) {
	t.Helper()
	if got := rep.Summary.SuggestedPairs; got != len(orphans) {
		t.Errorf("suggested pairs = %d, want %d (the planted orphan pairs)", got, len(orphans))
	}
	var got []string
	for _, m := range rep.Exceptions {
		if m.SuggestedPair == "" {
			continue
		}
		got = append(got, m.Outcome+" "+m.SvcOrderID+" "+m.ExternalRef)
		if !strings.Contains(m.SuggestedPair, "rule: equal amount") || !strings.Contains(m.SuggestedPair, "in the same second as the call") ||
			!strings.Contains(m.SuggestedPair, "product agrees") {
			t.Errorf("%s row's suggestion %q: want the rule, the time difference and the product agreeing", m.Outcome, m.SuggestedPair)
		}
		if m.Outcome == recon.CallOnly && !strings.Contains(m.SuggestedPair, "statement record ") {
			t.Errorf("callOnly suggestion %q does not name the record", m.SuggestedPair)
		}
	}
	var want []string
	for _, d := range orphans {
		want = append(want, recon.CallOnly+"  ", recon.StatementOnly+" "+d.SvcOrderID+" "+d.ExternalRef)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("rows with a suggested pair = %q, want %q", got, want)
	}
	var stored int
	db.QueryRow(`SELECT count(*) FROM recon_matches WHERE run_id = ? AND suggested_pair <> ''`, rep.RunID).Scan(&stored)
	if stored != 2*len(orphans) {
		t.Errorf("recon_matches rows with a suggested pair = %d, want %d", stored, 2*len(orphans))
	}
}

// compareFindings checks that the run found exactly the planted defects.
func compareFindings(t *testing.T, db *store.DB, rep *ledger.Report, planted []sandbox.Defect) {
	t.Helper()
	byKind := map[string][]sandbox.Defect{}
	for _, d := range planted {
		byKind[d.Kind] = append(byKind[d.Kind], d)
	}
	refs := func(kind string) []string {
		var out []string
		for _, d := range byKind[kind] {
			out = append(out, d.ExternalRef)
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	svcs := func(kind string) []string {
		var out []string
		for _, d := range byKind[kind] {
			out = append(out, d.SvcOrderID)
		}
		sort.Strings(out)
		return out
	}
	matchRefs := func(outcome string) []string {
		var out []string
		for _, m := range rep.Exceptions {
			if m.Outcome == outcome {
				out = append(out, m.ExternalRef)
			}
		}
		sort.Strings(out)
		return out
	}
	// Breaks: arithmetic and gap exactly as planted, with their deltas.
	breakKey := func(ref string, d decimal.Decimal) string { return ref + " " + recon.Money(d) }
	for _, kind := range []string{recon.BreakArithmetic, recon.BreakGap} {
		var got, want []string
		for _, b := range breaksOf(rep, kind) {
			if kind == recon.BreakGap {
				got = append(got, recon.Money(b.Delta))
			} else {
				got = append(got, breakKey(b.ExternalRef, b.Delta))
			}
		}
		for _, d := range byKind[kind] {
			if kind == recon.BreakGap {
				want = append(want, recon.Money(d.Delta))
			} else {
				want = append(want, breakKey(d.ExternalRef, d.Delta))
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s breaks = %v, want %v", kind, got, want)
		}
	}
	// Matching outcomes. The orphan pair's call and the one a paisa
	// short lost their externalRef; the midnight call is timing, the split
	// posting one group.
	wantCallOnly := refs(sandbox.DefectCallOnly)
	for range len(byKind[sandbox.DefectOrphanPair]) + len(byKind[sandbox.DefectOnePaisa]) {
		wantCallOnly = append(wantCallOnly, "")
	}
	if got, want := matchRefs(recon.Timing), refs(sandbox.DefectMidnight); !slices.Equal(got, want) {
		t.Errorf("timing = %q, want %q", got, want)
	}
	if got := rep.Summary.Groups; got.Count != len(byKind[sandbox.DefectSplitPosting]) || got.Rows != 2*got.Count {
		t.Errorf("groups = %+v, want the split posting's (%d)", got, len(byKind[sandbox.DefectSplitPosting]))
	}
	sort.Strings(wantCallOnly)
	if got := matchRefs(recon.CallOnly); !slices.Equal(got, wantCallOnly) {
		t.Errorf("callOnly = %q, want %q", got, wantCallOnly)
	}
	if got, want := matchRefs(recon.Pending), refs(sandbox.DefectPending); !slices.Equal(got, want) {
		t.Errorf("pending = %v, want %v", got, want)
	}
	if got, want := matchRefs(recon.AmountMismatch), refs(sandbox.DefectAmountMismatch); !slices.Equal(got, want) {
		t.Errorf("amountMismatch = %v, want %v", got, want)
	}
	for _, d := range byKind[sandbox.DefectAmountMismatch] {
		for _, m := range rep.Exceptions {
			if m.Outcome == recon.AmountMismatch && m.ExternalRef == d.ExternalRef && m.Delta != recon.Money(d.Delta) {
				t.Errorf("amountMismatch %s delta = %s, want %s", d.ExternalRef, m.Delta, recon.Money(d.Delta))
			}
		}
	}
	dups := slices.Compact(matchRefs(recon.DuplicateDebit))
	if want := refs(sandbox.DefectDuplicateDebit); !slices.Equal(dups, want) {
		t.Errorf("duplicateDebit refs = %v, want %v", dups, want)
	}
	if got, want := rep.Summary.Outcomes[recon.DuplicateDebit].Count, 2*len(refs(sandbox.DefectDuplicateDebit)); got != want {
		t.Errorf("duplicateDebit rows = %d, want %d (one per debit)", got, want)
	}
	var stmtOnly []string
	for _, m := range rep.Exceptions {
		if m.Outcome == recon.StatementOnly {
			stmtOnly = append(stmtOnly, m.SvcOrderID)
		}
	}
	sort.Strings(stmtOnly)
	wantStmtOnly := slices.Concat(svcs(sandbox.DefectUnloggedDebit), svcs(sandbox.DefectOrphanPair), svcs(sandbox.DefectOnePaisa))
	sort.Strings(wantStmtOnly)
	if !slices.Equal(stmtOnly, wantStmtOnly) {
		t.Errorf("statementOnly = %v, want %v", stmtOnly, wantStmtOnly)
	}
	comparePairs(t, db, rep, byKind[sandbox.DefectOrphanPair])
	// Reversals: every reversed record found except the planted ones.
	var reversed, reversals int
	db.QueryRow(`SELECT count(*) FROM records WHERE kind = 'statement' AND reversal_svc_order_id <> ''`).Scan(&reversed)
	reversals = rep.Summary.Reversals.Count
	if reversals != reversed || rep.Summary.Reversals.Unlinked != len(byKind[sandbox.DefectReversalUnlinked]) {
		t.Errorf("reversals = %+v, want %d with %d unlinked", rep.Summary.Reversals, reversed, len(byKind[sandbox.DefectReversalUnlinked]))
	}
	if got := rep.Summary.Outcomes[recon.Reversed].Count; got != reversed {
		t.Errorf("reversed outcomes = %d, want %d", got, reversed)
	}
	// Explained gaps: exactly the unlogged debits, the pending calls' records
	// and the reversal credits found.
	var explained []string
	for _, b := range breaksOf(rep, recon.BreakExplainedGap) {
		explained = append(explained, b.ExplainedBy...)
	}
	sort.Strings(explained)
	var want []string
	want = append(want, svcs(sandbox.DefectUnloggedDebit)...)
	for _, m := range rep.Exceptions {
		if m.Outcome == recon.Pending && m.SvcOrderID != "" {
			want = append(want, m.SvcOrderID)
		}
	}
	rows, err := db.Query(`SELECT reversal_svc_order_id FROM recon_reversals WHERE run_id = ? AND reversal_found = 1`, rep.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		want = append(want, s)
	}
	rows.Close()
	sort.Strings(want)
	if !slices.Equal(explained, want) {
		t.Errorf("explainedGap records = %v, want %v", explained, want)
	}
	// Each explained gap's note names what explains it.
	what := map[string]string{}
	for _, d := range byKind[sandbox.DefectUnloggedDebit] {
		what[d.SvcOrderID] = "unlogged debit "
	}
	for _, m := range rep.Exceptions {
		if m.Outcome == recon.Pending && m.SvcOrderID != "" {
			what[m.SvcOrderID] = "a pending call's debit "
		}
	}
	for _, b := range breaksOf(rep, recon.BreakExplainedGap) {
		for _, id := range b.ExplainedBy {
			w, ok := what[id]
			if !ok {
				w = "reversal credit " // the rest are the reversal credits found
			}
			if !strings.Contains(b.Note, w+id+" (") {
				t.Errorf("explained gap at %s: note %q does not name %s%s", b.TS, b.Note, w, id)
			}
		}
	}
	if n := len(byKind[sandbox.DefectPending]); len(matchRefs(recon.Pending)) != n {
		t.Errorf("pending rows %d, want %d", len(matchRefs(recon.Pending)), n)
	}
}
