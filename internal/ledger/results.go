package ledger

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/store"
)

// summarize builds the run's summary and the report's lists.
func (f *findings) summarize(run store.CheckRun) *Report {
	p := f.calls
	s := recon.Summary{From: run.From, To: run.To, AsOf: run.AsOf,
		Calls: p.nCalls, CallsFailed: p.nFailed, CallsPending: p.nPending,
		Outcomes: map[string]recon.CountSum{}, Breaks: map[string]recon.BreakSum{}, Unsettled: map[string]recon.CountSum{},
		Pools: []recon.PoolSummary{}}
	debited := decimal.Zero
	for i := range p.calls {
		k := &p.calls[i]
		if k.pending || k.skip {
			continue
		}
		s.CallsWithDebit++
		debited = debited.Add(k.amount)
	}
	s.Debited, s.Credited = recon.Money(debited), recon.Money(f.book.credited)
	accts := make([]uint16, 0, len(p.chain.states))
	for a := range p.chain.states {
		accts = append(accts, a)
	}
	sort.Slice(accts, func(i, j int) bool { return f.accts.names[accts[i]] < f.accts.names[accts[j]] })
	for _, a := range accts {
		st := p.chain.states[a]
		s.Pools = append(s.Pools, recon.PoolSummary{Account: f.accts.names[a], Opening: recon.Money(st.opening),
			Closing: recon.Money(st.closing), Calls: st.calls, Debited: recon.Money(st.debited)})
	}
	rep := &Report{Breaks: f.breaks, Records: f.book.nPeriod}
	outSum := map[string]decimal.Decimal{}
	outN := map[string]int{}
	for _, m := range f.matches {
		outN[m.outcome]++
		outSum[m.outcome] = outSum[m.outcome].Add(f.rowAmount(m))
		if m.outcome != recon.Matched && m.outcome != recon.Reversed {
			rep.Exceptions = append(rep.Exceptions, f.matchOut(m))
		}
	}
	for _, o := range recon.Outcomes {
		s.Outcomes[o] = countSum(outN[o], outSum[o])
	}
	s.Pending = s.Outcomes[recon.Pending]
	s.SuggestedPairs = f.pairs
	brN := map[string]int{}
	brSum := map[string]decimal.Decimal{}
	for _, b := range f.breaks {
		brN[b.Kind]++
		brSum[b.Kind] = brSum[b.Kind].Add(b.Delta)
	}
	for _, k := range recon.BreakKinds {
		s.Breaks[k] = recon.BreakSum{Count: brN[k], Delta: recon.Money(brSum[k])}
	}
	revSum := decimal.Zero
	for _, rv := range f.reversals {
		s.Reversals.Count++
		revSum = revSum.Add(f.book.recs[rv.rec].amount)
		if !rv.found {
			s.Reversals.Unlinked++
		}
	}
	s.Reversals.Amount = recon.Money(revSum)
	unN := map[string]int{}
	unSum := map[string]decimal.Decimal{}
	for i := range f.unsettled {
		u := &f.unsettled[i]
		b := u.bucket()
		unN[b]++
		unSum[b] = unSum[b].Add(u.amount)
	}
	for _, b := range recon.BucketNames() {
		s.Unsettled[b] = countSum(unN[b], unSum[b])
	}
	rep.Summary = s
	return rep
}

func countSum(n int, d decimal.Decimal) recon.CountSum {
	return recon.CountSum{Count: n, Amount: recon.Money(d)}
}

// rowAmount is the amount a match row counts for: the call's debit, else
// the statement record's.
func (f *findings) rowAmount(m matchRow) decimal.Decimal {
	if m.call >= 0 && !f.calls.calls[m.call].pending {
		return f.calls.calls[m.call].amount
	}
	if m.rec >= 0 {
		return f.book.recs[m.rec].amount
	}
	return decimal.Zero
}

// matchOut is the report's (and the store's) form of a match row.
func (f *findings) matchOut(m matchRow) Match {
	out := Match{Outcome: m.outcome, TS: fmtTS(m.ts), Delta: m.delta, Note: m.note, SuggestedPair: m.pair}
	if m.call >= 0 {
		k := &f.calls.calls[m.call]
		out.CallID, out.ExternalRef, out.Operation = k.id, k.ref, k.op
		if !k.pending {
			out.CallAmount = recon.Money(k.amount)
		}
	}
	if m.rec >= 0 {
		r := &f.book.recs[m.rec]
		out.SvcOrderID, out.StatementAmount = r.svc, recon.Money(r.amount)
		if out.ExternalRef == "" {
			out.ExternalRef = r.client
		}
	}
	return out
}

// save writes the run and its rows in one transaction, superseding the
// earlier runs of the period.
func (c *checkRun) save(ctx context.Context, f *findings) (*Report, error) {
	rep := f.summarize(c.run)
	summary, err := json.Marshal(rep.Summary)
	if err != nil {
		return nil, err
	}
	res := store.CheckResults{Summary: summary, Finished: c.finished,
		Breaks: func(yield func(store.CheckBreak) bool) {
			for _, b := range f.breaks {
				if !yield(store.CheckBreak{PoolAccount: b.PoolAccount, Kind: b.Kind, CallID: b.CallID,
					PrevCallID: b.PrevCallID, TS: b.TS, ExternalRef: b.ExternalRef, Expected: recon.Money(b.Expected),
					Actual: recon.Money(b.Actual), Delta: recon.Money(b.Delta), ExplainedBy: b.ExplainedBy, Note: b.Note}) {
					return
				}
			}
		},
		Matches: func(yield func(store.CheckMatch) bool) {
			for _, m := range f.matches {
				if !yield(f.matchOut(m)) {
					return
				}
			}
		},
		Reversals: func(yield func(store.CheckReversal) bool) {
			for _, r := range f.reversals {
				rec := &f.book.recs[r.rec]
				row := store.CheckReversal{SvcOrderID: rec.svc, ReversalSvcOrderID: rec.reversal, TxnDateTime: fmtTS(rec.ts),
					Amount: recon.Money(rec.amount), Note: "reversal record not synced"}
				if r.found {
					row.Found, row.ReversalTxnDateTime, row.ReversalAmount, row.Note = true, r.revTS, recon.Money(r.revAmt), ""
				}
				if !yield(row) {
					return
				}
			}
		},
		Unsettled: func(yield func(store.CheckUnsettled) bool) {
			for _, u := range f.unsettled {
				if !yield(store.CheckUnsettled{SvcOrderID: u.svc, ClientOrderID: u.client, TxnDateTime: u.ts,
					Amount: recon.Money(u.amount), AgeDays: u.age, AgeBucket: u.bucket()}) {
					return
				}
			}
		},
	}
	if rep.RunID, err = c.db.SaveCheckRun(ctx, c.run, res); err != nil {
		return nil, err
	}
	return rep, nil
}
