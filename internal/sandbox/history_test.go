package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// rawCall sends a request with the right headers (overridden by hdr; an
// empty value removes a header) and decodes the envelope.
func rawCall(tb testing.TB, srv *sandbox.Server, path, method string, body []byte, hdr map[string]string) *svcapi.Envelope {
	tb.Helper()
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	c := srv.Credentials()
	for k, v := range map[string]string{svcapi.HeaderAuthCode: "1", svcapi.HeaderClientID: c.ClientID,
		svcapi.HeaderClientSecret: c.ClientSecret, svcapi.HeaderEndpointIP: c.EndpointIP, svcapi.HeaderOutletID: c.OutletID} {
		req.Header.Set(k, v)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	env, err := svcapi.DecodeEnvelope(raw)
	if err != nil {
		tb.Fatalf("%s %s: %v: %s", method, path, err, raw)
	}
	return env
}

// walk fetches every record of a statement (or collect-order) range.
func walk(tb testing.TB, cl *svcapi.Client, acct string, from, to time.Time, orders bool, per int) []svcapi.StatementRecord {
	tb.Helper()
	var out []svcapi.StatementRecord
	for page := 1; ; page++ {
		req := svcapi.StatementRequest{BankProfileID: "7", AccountNumber: acct, ExternalRef: "W1",
			Pagination: svcapi.Pagination{PageNumber: itoa(page), RecordsPerPage: itoa(per)},
			Filters:    svcapi.StatementFilters{TxnDateFrom: from.Format(time.DateOnly), TxnDateTo: to.Format(time.DateOnly)}, IsOrder: orders}
		if orders {
			req.BankProfileID = "0"
		}
		p, err := cl.Statement(context.Background(), req)
		if err != nil {
			tb.Fatalf("statement page %d: %v", page, err)
		}
		out = append(out, p.Records...)
		if int(p.Meta.CurrentPage) >= int(p.Meta.TotalPages) {
			if int(p.Meta.TotalRecords) != len(out) {
				tb.Fatalf("walked %d records, meta.totalRecords %d", len(out), p.Meta.TotalRecords)
			}
			return out
		}
	}
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

// logCall is one line of the call log as the checker sees it.
type logCall struct {
	line    int
	ts      string
	ref     string
	orderID string
	code    string
	hasPool bool
	pool    svcapi.Pool
}

func readCallLog(tb testing.TB, r io.Reader) []logCall {
	tb.Helper()
	var out []logCall
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var line struct {
			At          string          `json:"at"`
			ExternalRef string          `json:"externalRef"`
			Response    json.RawMessage `json:"response"`
			Request     json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			tb.Fatalf("call log line %d: %v", n, err)
		}
		for _, secret := range []string{sandbox.DefaultCredentials.ClientSecret, "v-pidData", "v-hmac"} {
			if bytes.Contains(sc.Bytes(), []byte(secret)) {
				tb.Fatalf("call log line %d holds a secret", n)
			}
		}
		env, err := svcapi.DecodeEnvelope(line.Response)
		if err != nil {
			tb.Fatalf("call log line %d: %v", n, err)
		}
		c := logCall{line: n, ts: string(env.Timestamp), ref: line.ExternalRef, orderID: string(env.OrderID), code: string(env.StatusCode)}
		if env.OK() {
			p, err := svcapi.ExtractPool(env)
			if err != nil {
				tb.Fatalf("call log line %d: %v", n, err)
			}
			c.hasPool, c.pool = true, p
		}
		out = append(out, c)
	}
	return out
}

// history returns the sandbox's call log and the statement of its period.
func history(tb testing.TB, srv *sandbox.Server, cl *svcapi.Client) ([]logCall, []svcapi.StatementRecord) {
	tb.Helper()
	var log bytes.Buffer
	if err := srv.WriteCallLog(&log); err != nil {
		tb.Fatal(err)
	}
	from, to := srv.Period()
	return readCallLog(tb, &log), walk(tb, cl, srv.Credentials().Account, from, to, false, 1000)
}

// finding is one result of the independent checker.
type finding struct {
	kind  string // arithmetic, gap, explainedGap, or a matching outcome, or reversalNotFound
	ref   string
	id    string // svcOrderId (explained gaps: the explaining ids)
	delta string
}

// check is a small independent implementation of the reconciliation rules
// (recon-contract.md) over a call log and the statement of the period.
func check(calls []logCall, recs []svcapi.StatementRecord) []finding {
	var out []finding
	var pool []logCall
	poolOrder, poolRef := map[string]bool{}, map[string]int{}
	anyRef := map[string]bool{}
	for _, c := range calls {
		if c.code != "TXN" && c.code != "TUP" {
			continue // failed: ignored
		}
		anyRef[c.ref] = true
		if c.hasPool {
			pool = append(pool, c)
			poolOrder[c.orderID] = true
			if c.ref != "" { // lines that lost their keys share none
				poolRef[c.ref]++
			}
			if d := c.pool.Delta(); !d.IsZero() {
				out = append(out, finding{"arithmetic", c.ref, c.orderID, d.String()})
			}
		}
	}
	linked := func(r svcapi.StatementRecord) bool {
		return r.TxnMode == "DR" && (poolOrder[string(r.SvcOrderID)] || poolRef[string(r.ClientOrderID)] > 0)
	}
	sort.SliceStable(pool, func(i, j int) bool { return pool[i].ts < pool[j].ts })
	// Within one second, order so the chain links (greedy).
	for i := 1; i < len(pool); i++ {
		for j := i; j < len(pool) && pool[j].ts == pool[i].ts; j++ {
			if pool[j].pool.Opening.Equal(pool[i-1].pool.Closing) {
				pool[i], pool[j] = pool[j], pool[i]
				break
			}
		}
	}
	for i := 1; i < len(pool); i++ {
		p, c := pool[i-1], pool[i]
		delta := p.pool.Closing.Sub(c.pool.Opening)
		if delta.IsZero() {
			continue
		}
		sum := decimal.Zero
		var ids []string
		k := sort.Search(len(recs), func(k int) bool { return string(recs[k].TxnDateTime) >= p.ts })
		for _, r := range recs[k:] {
			if string(r.TxnDateTime) > c.ts {
				break
			}
			if !linked(r) {
				if r.TxnMode == "CR" {
					sum = sum.Sub(r.TxnChargedValue.Decimal)
				} else {
					sum = sum.Add(r.TxnChargedValue.Decimal)
				}
				ids = append(ids, string(r.SvcOrderID))
			}
		}
		kind := "gap"
		if sum.Equal(delta) {
			kind = "explainedGap"
		}
		out = append(out, finding{kind, c.ref, strings.Join(ids, ","), delta.String()})
	}
	byOrder, byRef := map[string]svcapi.StatementRecord{}, map[string][]svcapi.StatementRecord{}
	ids := map[string]bool{}
	for _, r := range recs {
		ids[string(r.SvcOrderID)] = true
		if r.TxnMode == "DR" {
			byOrder[string(r.SvcOrderID)] = r
			byRef[string(r.ClientOrderID)] = append(byRef[string(r.ClientOrderID)], r)
		}
	}
	for _, c := range calls {
		if c.code == "TUP" {
			out = append(out, finding{"pending", c.ref, "", ""})
		}
		if !c.hasPool {
			continue
		}
		r, ok := byOrder[c.orderID]
		if !ok && len(byRef[c.ref]) > 0 {
			r, ok = byRef[c.ref][0], true
		}
		switch {
		case poolRef[c.ref] == 1 && len(byRef[c.ref]) > 1 && sumOf(byRef[c.ref]).Equal(c.pool.Amount):
			out = append(out, finding{"group", c.ref, c.orderID, ""}) // a split posting
		case poolRef[c.ref] > 1 || len(byRef[c.ref]) > 1:
			out = append(out, finding{"duplicateDebit", c.ref, c.orderID, ""})
		case !ok:
			out = append(out, finding{"callOnly", c.ref, c.orderID, ""})
		case !r.TxnChargedValue.Decimal.Equal(c.pool.Amount):
			out = append(out, finding{"amountMismatch", c.ref, c.orderID, c.pool.Amount.Sub(r.TxnChargedValue.Decimal).String()})
		case r.ReversalSvcOrderID != "":
			out = append(out, finding{"reversed", c.ref, c.orderID, ""})
		default:
			out = append(out, finding{"matched", c.ref, c.orderID, ""})
		}
	}
	var orphanCalls []logCall
	for _, c := range calls {
		if c.hasPool && byOrder[c.orderID].SvcOrderID == "" && len(byRef[c.ref]) == 0 && poolRef[c.ref] <= 1 {
			orphanCalls = append(orphanCalls, c)
		}
	}
	for _, r := range recs {
		if r.TxnMode == "DR" && !poolOrder[string(r.SvcOrderID)] && !anyRef[string(r.ClientOrderID)] {
			out = append(out, finding{"statementOnly", string(r.ClientOrderID), string(r.SvcOrderID), ""})
			// A suggested pair: a call-only debit of the same amount
			// within ten minutes (and no other).
			var near []logCall
			for _, c := range orphanCalls {
				if c.pool.Amount.Equal(r.TxnChargedValue.Decimal) && within(c.ts, string(r.TxnDateTime), 10*time.Minute) {
					near = append(near, c)
				}
			}
			if len(near) == 1 {
				out = append(out, finding{"pair", string(r.ClientOrderID), string(r.SvcOrderID), ""})
			}
		}
		if r.ReversalSvcOrderID != "" && !ids[string(r.ReversalSvcOrderID)] {
			out = append(out, finding{"reversalNotFound", string(r.ClientOrderID), string(r.SvcOrderID), ""})
		}
	}
	return out
}

// sumOf is the records' txnChargedValue summed.
func sumOf(rs []svcapi.StatementRecord) decimal.Decimal {
	sum := decimal.Zero
	for _, r := range rs {
		sum = sum.Add(r.TxnChargedValue.Decimal)
	}
	return sum
}

// within reports whether two IST timestamps are at most d apart.
func within(a, b string, d time.Duration) bool {
	ta, err1 := time.Parse(recon.TimestampLayout, a)
	tb, err2 := time.Parse(recon.TimestampLayout, b)
	return err1 == nil && err2 == nil && ta.Sub(tb) <= d && tb.Sub(ta) <= d
}

// TestHistoryChain replays the generated call log and statement through the
// independent checker: exactly the planted defects and the linked reversals
// are found.
func TestHistoryChain(t *testing.T) {
	opts := []sandbox.Options{{}, {Seed: 7, Days: 12, CallsPerDay: 80}, {Seed: 3, NoDefects: true}}
	if os.Getenv("SANDBOX_SCALE") != "" {
		// Denser than the 1,000,000-record benchmark world: 75,000 a
		// day (about 10 s of CPU, so only on demand).
		opts = append(opts, sandbox.Options{Seed: 5, Days: 2, TotalRecords: 150_000})
	}
	for _, o := range opts {
		t.Run(fmtOpts(o), func(t *testing.T) {
			srv, cl := start(t, o)
			calls, recs := history(t, srv, cl)
			cnt := srv.Counts()
			if len(recs) != cnt.Statement || len(calls) != cnt.Calls {
				t.Errorf("walked %d records and %d call lines; Counts says %d and %d", len(recs), len(calls), cnt.Statement, cnt.Calls)
			}
			got := map[string][]finding{}
			for _, f := range check(calls, recs) {
				got[f.kind] = append(got[f.kind], f)
			}
			planted := map[string]sandbox.Defect{}
			for _, d := range srv.Planted() {
				planted[d.Kind] = d
			}
			if o.NoDefects && len(planted) > 0 {
				t.Fatalf("NoDefects planted %v", planted)
			}
			var credits []string
			for _, r := range recs {
				if r.TxnMode == "CR" {
					credits = append(credits, string(r.SvcOrderID))
				}
			}
			if len(credits) == 0 || len(credits) != cnt.Credits {
				t.Errorf("%d reversal credits in the history, Counts says %d", len(credits), cnt.Credits)
			}
			var withDebit, failed, pending int
			for _, c := range calls {
				switch {
				case c.hasPool:
					withDebit++
				case c.code == "TUP":
					pending++
				default:
					failed++
				}
			}
			if withDebit != cnt.CallsWithDebit || failed != cnt.CallsFailed || pending != cnt.CallsPending || failed == 0 {
				t.Errorf("call log: %d with debit, %d failed, %d pending; Counts says %d, %d, %d",
					withDebit, failed, pending, cnt.CallsWithDebit, cnt.CallsFailed, cnt.CallsPending)
			}
			// Expected findings, kind by kind.
			expect := func(kind string, n int) []finding {
				t.Helper()
				if len(got[kind]) != n {
					t.Errorf("%s: found %d %v, want %d", kind, len(got[kind]), got[kind], n)
					return nil
				}
				return got[kind]
			}
			n := func(kind string) int {
				if _, ok := planted[kind]; ok {
					return 1
				}
				return 0
			}
			if fs := expect("arithmetic", n(sandbox.DefectArithmetic)); len(fs) == 1 {
				d := planted[sandbox.DefectArithmetic]
				if fs[0].ref != d.ExternalRef || fs[0].delta != d.Delta.String() {
					t.Errorf("arithmetic %v, planted %+v", fs[0], d)
				}
			}
			if fs := expect("gap", n(sandbox.DefectGap)); len(fs) == 1 {
				d := planted[sandbox.DefectGap]
				if fs[0].ref != d.ExternalRef || fs[0].delta != d.Delta.String() {
					t.Errorf("gap %v, planted %+v", fs[0], d)
				}
			}
			explained := expect("explainedGap", len(credits)+n(sandbox.DefectUnloggedDebit)+n(sandbox.DefectPending))
			var pos []string
			for _, f := range explained {
				if strings.HasPrefix(f.delta, "-") {
					continue
				}
				pos = append(pos, f.id)
			}
			var wantPos []string
			for _, k := range []string{sandbox.DefectUnloggedDebit, sandbox.DefectPending} {
				if d, ok := planted[k]; ok {
					wantPos = append(wantPos, d.SvcOrderID)
				}
			}
			if strings.Join(pos, ";") != strings.Join(wantPos, ";") {
				t.Errorf("positive explained gaps explained by %v, want %v", pos, wantPos)
			}
			if fs := expect("amountMismatch", n(sandbox.DefectAmountMismatch)); len(fs) == 1 {
				d := planted[sandbox.DefectAmountMismatch]
				if fs[0].ref != d.ExternalRef || fs[0].delta != d.Delta.String() {
					t.Errorf("amountMismatch %v, planted %+v", fs[0], d)
				}
			}
			// plantedAs compares the findings of a kind (their field of
			// choice) with the planted defects of the kinds given.
			plantedAs := func(kind string, field func(finding) string, want []string, kinds ...string) {
				t.Helper()
				var got []string
				for _, f := range expect(kind, len(want)) {
					got = append(got, field(f))
				}
				sort.Strings(got)
				sort.Strings(want)
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s %q, want %q (planted %v)", kind, got, want, kinds)
				}
			}
			var want []string
			if d, ok := planted[sandbox.DefectCallOnly]; ok {
				want = append(want, d.ExternalRef)
			}
			for _, k := range []string{sandbox.DefectOrphanPair, sandbox.DefectOnePaisa} {
				if _, ok := planted[k]; ok {
					want = append(want, "") // the call lost its externalRef
				}
			}
			if d, ok := planted[sandbox.DefectMidnight]; ok {
				want = append(want, d.ExternalRef) // its record the next day (timing, for the check)
			}
			plantedAs("callOnly", func(f finding) string { return f.ref }, want, sandbox.DefectCallOnly, sandbox.DefectOrphanPair,
				sandbox.DefectOnePaisa, sandbox.DefectMidnight)
			if fs := expect("group", n(sandbox.DefectSplitPosting)); len(fs) == 1 && fs[0].id != planted[sandbox.DefectSplitPosting].SvcOrderID {
				t.Errorf("group %v, planted %+v", fs[0], planted[sandbox.DefectSplitPosting])
			}
			if fs := expect("pair", n(sandbox.DefectOrphanPair)); len(fs) == 1 && fs[0].id != planted[sandbox.DefectOrphanPair].SvcOrderID {
				t.Errorf("suggested pair %v, planted %+v", fs[0], planted[sandbox.DefectOrphanPair])
			}
			if fs := expect("duplicateDebit", 2*n(sandbox.DefectDuplicateDebit)); len(fs) == 2 {
				d := planted[sandbox.DefectDuplicateDebit]
				if fs[0].ref != d.ExternalRef || fs[1].ref != d.ExternalRef || fs[1].id != d.SvcOrderID {
					t.Errorf("duplicateDebit %v, planted %+v", fs, d)
				}
			}
			if fs := expect("pending", n(sandbox.DefectPending)); len(fs) == 1 && fs[0].ref != planted[sandbox.DefectPending].ExternalRef {
				t.Errorf("pending %v, planted %+v", fs[0], planted[sandbox.DefectPending])
			}
			want = nil
			for _, k := range []string{sandbox.DefectUnloggedDebit, sandbox.DefectOrphanPair, sandbox.DefectOnePaisa} {
				if d, ok := planted[k]; ok {
					want = append(want, d.SvcOrderID)
				}
			}
			plantedAs("statementOnly", func(f finding) string { return f.id }, want, sandbox.DefectUnloggedDebit, sandbox.DefectOrphanPair,
				sandbox.DefectOnePaisa)
			if fs := expect("reversalNotFound", n(sandbox.DefectReversalUnlinked)); len(fs) == 1 && fs[0].id != planted[sandbox.DefectReversalUnlinked].SvcOrderID {
				t.Errorf("reversalNotFound %v, planted %+v", fs[0], planted[sandbox.DefectReversalUnlinked])
			}
			expect("reversed", len(credits)+n(sandbox.DefectReversalUnlinked))
			matched := len(got["matched"])
			if matched < cnt.Statement*8/10 {
				t.Errorf("only %d calls matched of %d records", matched, cnt.Statement)
			}
			// Same-second pairs exist, and some are logged out of chain order.
			if o.Seed == 0 {
				sameSecond, swapped := 0, 0
				lineOf := map[string]int{}
				for _, c := range calls {
					if c.hasPool {
						lineOf[c.orderID] = c.line
					}
				}
				for i := 1; i < len(recs); i++ {
					a, b := recs[i-1], recs[i]
					if a.TxnDateTime == b.TxnDateTime && a.TxnMode == "DR" && b.TxnMode == "DR" && lineOf[string(a.SvcOrderID)] > 0 && lineOf[string(b.SvcOrderID)] > 0 {
						sameSecond++
						if lineOf[string(a.SvcOrderID)] > lineOf[string(b.SvcOrderID)] {
							swapped++
						}
					}
				}
				if sameSecond < 3 || swapped < 1 {
					t.Errorf("%d same-second pairs, %d logged in reverse; want at least 3 and 1", sameSecond, swapped)
				}
			}
		})
	}
}

func fmtOpts(o sandbox.Options) string {
	if o.Seed == 0 {
		return "default"
	}
	b, _ := json.Marshal(struct {
		Seed, Days, CallsPerDay, TotalRecords int64
		NoDefects                             bool
	}{o.Seed, int64(o.Days), int64(o.CallsPerDay), int64(o.TotalRecords), o.NoDefects})
	return string(b)
}

// TestUnsettledBuckets: unsettled collect orders fall in every aging bucket
// relative to the period's last day.
func TestUnsettledBuckets(t *testing.T) {
	srv, cl := start(t, sandbox.Options{})
	from, to := srv.OrdersPeriod()
	pfrom, _ := srv.Period()
	recs := walk(t, cl, srv.Credentials().Account, from, to, true, 137)
	if len(recs) != srv.Counts().OrdersAll {
		t.Errorf("walked %d orders, Counts().OrdersAll = %d", len(recs), srv.Counts().OrdersAll)
	}
	inPeriod := 0
	buckets := map[string]int{}
	for _, r := range recs {
		tm, err := r.Time()
		if err != nil {
			t.Fatal(err)
		}
		if !tm.Before(pfrom) {
			inPeriod++
		}
		if r.SettlementSvcOrderID != "" {
			continue
		}
		age := int(to.Sub(time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, recon.IST)).Hours() / 24)
		buckets[recon.BucketOf(age)]++
	}
	for k, v := range srv.Counts().Unsettled {
		if buckets[k] != v {
			t.Errorf("bucket %s: walked %d unsettled, Counts says %d", k, buckets[k], v)
		}
	}
	if inPeriod != srv.Counts().Orders {
		t.Errorf("%d orders in the period, Counts().Orders = %d", inPeriod, srv.Counts().Orders)
	}
	for _, b := range []string{"0-1", "2-3", "4-7", "8-30", ">30"} {
		if buckets[b] == 0 {
			t.Errorf("no unsettled orders in bucket %s (%v)", b, buckets)
		}
	}
}

// TestCallLogRedacted: the generated call log is already what svcapi.Redact
// leaves, and every line decodes as a svcapi.CallRecord.
func TestCallLogRedacted(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{Seed: 2, Days: 10, End: end})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sb.WriteCallLog(&buf); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		var rec svcapi.CallRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		seen[rec.Operation] = true
		for _, part := range []json.RawMessage{rec.Request, rec.Response} {
			var a, b any
			json.Unmarshal(part, &a)
			json.Unmarshal(svcapi.Redact(part), &b)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("line %d (%s): not redacted:\n%s\n%s", n, rec.Operation, ja, jb)
			}
		}
	}
	for _, op := range []string{svcapi.OpBrandOrder, svcapi.OpBalanceInquiry, svcapi.OpCreditReport, svcapi.OpCorporateEmpCheck} {
		if !seen[op] {
			t.Errorf("no %s call in the history", op)
		}
	}
}
