package sandbox_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/sandbox"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// TestPlantedAsDocumented checks each planted defect against the package
// documentation: one of each kind, each on its own day, the documented
// deltas, and the records and call-log lines each kind is made of.
func TestPlantedAsDocumented(t *testing.T) {
	srv, cl := start(t, sandbox.Options{})
	calls, recs := history(t, srv, cl)
	_, to := srv.Period()

	callsByRef := map[string][]logCall{}
	for _, c := range calls {
		callsByRef[c.ref] = append(callsByRef[c.ref], c)
	}
	byID := map[string]svcapi.StatementRecord{}
	drByRef := map[string][]svcapi.StatementRecord{}
	for _, r := range recs {
		byID[string(r.SvcOrderID)] = r
		if r.TxnMode == "DR" {
			drByRef[string(r.ClientOrderID)] = append(drByRef[string(r.ClientOrderID)], r)
		}
	}

	wantKinds := []string{sandbox.DefectUnloggedDebit, sandbox.DefectAmountMismatch, sandbox.DefectDuplicateDebit,
		sandbox.DefectArithmetic, sandbox.DefectPending, sandbox.DefectCallOnly, sandbox.DefectGap, sandbox.DefectOrphanPair,
		sandbox.DefectReversalUnlinked, sandbox.DefectOnePaisa, sandbox.DefectSplitPosting, sandbox.DefectMidnight}
	planted := srv.Planted()
	if len(planted) != len(wantKinds) {
		t.Fatalf("planted %d defects %+v, want one of each of %v", len(planted), planted, wantKinds)
	}
	days := map[string]string{}
	for i, d := range planted {
		if d.Kind != wantKinds[i] {
			t.Errorf("defect %d is %s, want %s (time order)", i, d.Kind, wantKinds[i])
		}
		if i > 0 && d.At <= planted[i-1].At {
			t.Errorf("defects not in time order: %s at %s after %s", d.Kind, d.At, planted[i-1].At)
		}
		if _, err := time.ParseInLocation(recon.TimestampLayout, d.At, recon.IST); err != nil {
			t.Errorf("%s: At %q: %v", d.Kind, d.At, err)
		}
		if last := planted[len(planted)-1].At; i >= len(wantKinds)-4 && len(d.At) >= 10 && d.At[:10] != last[:10] {
			t.Errorf("%s on %s, want it on the period's last day", d.Kind, d.At)
		}
		if len(d.At) >= 10 && i < len(wantKinds)-3 { // the last four share the last day
			if other, ok := days[d.At[:10]]; ok {
				t.Errorf("%s and %s share the day %s", other, d.Kind, d.At[:10])
			}
			days[d.At[:10]] = d.Kind
		}
	}

	wantDelta := map[string]string{sandbox.DefectArithmetic: "10.00", sandbox.DefectGap: "25.50", sandbox.DefectAmountMismatch: "1.18",
		sandbox.DefectOnePaisa: "0.01"}
	// keyless are the debits whose line lost both keys, at a time.
	keyless := func(at string) []logCall {
		var out []logCall
		for _, c := range callsByRef[""] {
			if c.hasPool && c.orderID == "" && c.ts == at {
				out = append(out, c)
			}
		}
		return out
	}
	for _, d := range planted {
		want := decimal.Zero
		if s, ok := wantDelta[d.Kind]; ok {
			want = decimal.RequireFromString(s)
		}
		if !d.Delta.Equal(want) {
			t.Errorf("%s: Delta %s, want %s", d.Kind, d.Delta, want)
		}
		pooled := func() []logCall {
			var out []logCall
			for _, c := range callsByRef[d.ExternalRef] {
				if c.hasPool {
					out = append(out, c)
				}
			}
			return out
		}
		// unlogged checks the DR record of a debit no call-log line names.
		unlogged := func() svcapi.StatementRecord {
			r, ok := byID[d.SvcOrderID]
			if !ok || r.TxnMode != "DR" || string(r.ClientOrderID) != d.ExternalRef || string(r.TxnDateTime) != d.At {
				t.Errorf("%s: record %+v, want a DR record %s of %s at %s", d.Kind, r, d.SvcOrderID, d.ExternalRef, d.At)
			}
			if n := len(callsByRef[d.ExternalRef]); n != 0 {
				t.Errorf("%s: %d call-log lines carry %s, want none", d.Kind, n, d.ExternalRef)
			}
			return r
		}
		switch d.Kind {
		case sandbox.DefectUnloggedDebit:
			unlogged()
		case sandbox.DefectAmountMismatch:
			cs, r := pooled(), byID[d.SvcOrderID]
			if len(cs) != 1 || cs[0].orderID != d.SvcOrderID || !cs[0].pool.Amount.Sub(r.TxnChargedValue.Decimal).Equal(d.Delta) {
				t.Errorf("amountMismatch: calls %+v, record %+v; want call − statement = %s", cs, r, d.Delta)
			}
		case sandbox.DefectDuplicateDebit:
			cs, rs := pooled(), drByRef[d.ExternalRef]
			if len(cs) != 2 || len(rs) != 2 {
				t.Errorf("duplicateDebit: %d debiting calls, %d DR records with %s; want 2 and 2", len(cs), len(rs), d.ExternalRef)
			} else if string(rs[1].SvcOrderID) != d.SvcOrderID || cs[1].orderID != d.SvcOrderID || string(rs[1].TxnDateTime) != d.At {
				t.Errorf("duplicateDebit: second record %s at %s, second call %s; planted %s at %s",
					rs[1].SvcOrderID, rs[1].TxnDateTime, cs[1].orderID, d.SvcOrderID, d.At)
			}
		case sandbox.DefectArithmetic:
			cs := pooled()
			if len(cs) != 1 || !cs[0].pool.Delta().Equal(d.Delta) || cs[0].ts != d.At {
				t.Errorf("arithmetic: calls %+v; want one whose opening − amount − closing = %s at %s", cs, d.Delta, d.At)
			}
		case sandbox.DefectPending:
			cs := callsByRef[d.ExternalRef]
			if len(cs) != 1 || cs[0].code != svcapi.StatusPending || cs[0].hasPool {
				t.Errorf("pending: calls %+v; want one TUP line without pool", cs)
			}
			if r, ok := byID[d.SvcOrderID]; !ok || string(r.ClientOrderID) != d.ExternalRef || r.TxnMode != "DR" {
				t.Errorf("pending: record %s = %+v, want the DR record of %s", d.SvcOrderID, r, d.ExternalRef)
			}
		case sandbox.DefectCallOnly:
			cs := pooled()
			if len(cs) != 1 || cs[0].orderID != d.SvcOrderID {
				t.Errorf("callOnly: calls %+v; want one debit with orderid %s", cs, d.SvcOrderID)
			}
			if _, ok := byID[d.SvcOrderID]; ok || len(drByRef[d.ExternalRef]) != 0 {
				t.Errorf("callOnly: %s / %s is in the statement", d.SvcOrderID, d.ExternalRef)
			}
		case sandbox.DefectGap:
			cs := pooled()
			if len(cs) != 1 || cs[0].ts != d.At || cs[0].orderID != d.SvcOrderID {
				t.Errorf("gap: calls %+v; want the call %s at %s after the drop", cs, d.SvcOrderID, d.At)
			}
		case sandbox.DefectOrphanPair: // the record, and a debit whose line lost its keys
			r := unlogged()
			if orphans := keyless(d.At); len(orphans) != 1 || !orphans[0].pool.Amount.Equal(r.TxnChargedValue.Decimal) {
				t.Errorf("orphanPair: debits without externalRef %+v; want one, without orderid, at %s, of %s", orphans, d.At, r.TxnChargedValue.Decimal)
			}
		case sandbox.DefectOnePaisa: // as orphanPair, the record a paisa short
			r := unlogged()
			if cs := keyless(d.At); len(cs) != 1 || !cs[0].pool.Amount.Sub(r.TxnChargedValue.Decimal).Equal(d.Delta) {
				t.Errorf("onePaisa: debits without keys %+v at %s; want one of %s + %s", cs, d.At, r.TxnChargedValue.Decimal, d.Delta)
			}
		case sandbox.DefectSplitPosting: // one call, two records of its externalRef that sum to it
			cs, rs := pooled(), drByRef[d.ExternalRef]
			if len(cs) != 1 || cs[0].orderID != d.SvcOrderID || len(rs) != 2 || string(rs[0].SvcOrderID) != d.SvcOrderID ||
				!rs[0].TxnChargedValue.Decimal.Add(rs[1].TxnChargedValue.Decimal).Equal(cs[0].pool.Amount) {
				t.Errorf("splitPosting: calls %+v, records %+v; want one call %s and two records summing to it", cs, rs, d.SvcOrderID)
			}
		case sandbox.DefectMidnight: // the last call; its record after midnight
			cs := pooled()
			if len(cs) != 1 || cs[0].orderID != d.SvcOrderID || cs[0].ts != d.At || d.At[11:] != "23:58:30" {
				t.Errorf("midnight: calls %+v; want one, %s at %s (23:58:30)", cs, d.SvcOrderID, d.At)
			}
			if _, ok := byID[d.SvcOrderID]; ok {
				t.Errorf("midnight: the record %s lies in the period", d.SvcOrderID)
			}
			next := to.AddDate(0, 0, 1)
			var found *svcapi.StatementRecord
			for _, x := range walk(t, cl, srv.Credentials().Account, next, next, false, 1000) {
				if string(x.SvcOrderID) == d.SvcOrderID {
					found = &x
				}
			}
			wantAt := next.Format(time.DateOnly) + " 00:06:10"
			if found == nil || len(cs) != 1 || found.TxnMode != "DR" || string(found.TxnDateTime) != wantAt ||
				string(found.ClientOrderID) != d.ExternalRef || !found.TxnChargedValue.Decimal.Equal(cs[0].pool.Amount) {
				t.Errorf("midnight: record %+v; want DR %s of %s at %s", found, d.SvcOrderID, d.ExternalRef, wantAt)
			}
		case sandbox.DefectReversalUnlinked:
			r := byID[d.SvcOrderID]
			rev := string(r.ReversalSvcOrderID)
			if rev == "" {
				t.Fatalf("reversalUnlinked: record %s has no reversalSvcOrderId", d.SvcOrderID)
			}
			if _, ok := byID[rev]; ok {
				t.Errorf("reversalUnlinked: the reversal record %s lies in the period", rev)
			}
			next := to.AddDate(0, 0, 1)
			var found *svcapi.StatementRecord
			for _, x := range walk(t, cl, srv.Credentials().Account, next, next, false, 1000) {
				if string(x.SvcOrderID) == rev {
					found = &x
				}
			}
			wantAt := next.Format(time.DateOnly) + " 00:05:00"
			if found == nil || found.TxnMode != "CR" || string(found.TxnDateTime) != wantAt ||
				found.ClientOrderID != r.ClientOrderID || !found.TxnChargedValue.Decimal.Equal(r.TxnChargedValue.Decimal) {
				t.Errorf("reversalUnlinked: reversal record %+v; want CR %s of %s at %s for %s", found, rev, r.TxnChargedValue.Decimal, wantAt, r.ClientOrderID)
			}
		}
	}
}
