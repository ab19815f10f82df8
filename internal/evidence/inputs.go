package evidence

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// inputs are a run's inputs and what the database holds of them.
type inputs struct {
	list   []Input
	stored []StoredTotal
}

// gatherInputs lists the inputs of the period from..to: every call-log
// file whose calls reach into it, the calls kept in the database, every
// statement day of the period and the collect-order days orderDays; and
// the stored totals of those days. useKept takes the digests kept of the
// days no sync wrote since (verify does not). statement are the statement
// days' digests when they were read already (Prefetch); nil reads them.
func gatherInputs(ctx context.Context, db Store, from, to string, orderDays []string, useKept bool,
	statement []DayDigest) (*inputs, error) {
	in := &inputs{}
	srcs, err := db.EvidenceCallSources(ctx, from, to)
	if err != nil {
		return nil, fmt.Errorf("call-log files: %w", err)
	}
	for _, s := range srcs {
		in.list = append(in.list, Input{Kind: InputCallLog, Name: s.Name, SHA256: s.SHA256, Bytes: s.Bytes, Lines: s.Lines, Path: s.Path})
	}
	kept, err := db.EvidenceKeptCalls(ctx, from, to)
	if err != nil {
		return nil, fmt.Errorf("calls kept in the database: %w", err)
	}
	for _, k := range kept {
		in.list = append(in.list, Input{Kind: InputCallLog, Name: k.Source, SHA256: linesDigest(k.Hashes), Lines: len(k.Hashes)})
	}
	days, err := periodDays(from, to)
	if err != nil {
		return nil, err
	}
	var all []DayDigest
	for _, kd := range []struct {
		k    recon.Kind
		days []string
	}{{recon.Statement, days}, {recon.Orders, orderDays}} {
		ds := statement
		if kd.k != recon.Statement || ds == nil {
			if ds, err = dayInputs(ctx, db, kd.k, kd.days, useKept); err != nil {
				return nil, err
			}
		}
		for _, d := range ds {
			in.list = append(in.list, d.input())
		}
		all = append(all, ds...)
	}
	if in.stored, err = mergeTotals(all); err != nil {
		return nil, err
	}
	return in, nil
}

// importedTotals counts the period's calls per pool account, reading
// them (EvidenceCalls).
func importedTotals(ctx context.Context, db Store, from, to string) ([]ImportedTotal, error) {
	n := newCallCount()
	for c, err := range db.EvidenceCalls(ctx, from, to) {
		if err != nil {
			return nil, fmt.Errorf("calls: %w", err)
		}
		if err := n.add(c); err != nil {
			return nil, err
		}
	}
	return n.totals(), nil
}

// callCount is the imported totals of calls as they are counted, by pool
// account: calls, and the debits (success with a pool object) with the
// sum of their pool amounts. The account of the last call is kept at hand
// (a check's calls are of one or two accounts).
type callCount struct {
	accts map[string]*acctCount
	last  *acctCount
}

type acctCount struct {
	account       string
	calls, debits int
	sum           recon.Sum
}

func newCallCount() *callCount { return &callCount{accts: map[string]*acctCount{}} }

// add counts one call; the error is for an amount that is no decimal.
func (n *callCount) add(c CallAmount) error {
	a := n.last
	if a == nil || a.account != c.PoolAccount {
		if a = n.accts[c.PoolAccount]; a == nil {
			a = &acctCount{account: c.PoolAccount}
			n.accts[c.PoolAccount] = a
		}
		n.last = a
	}
	a.calls++
	if !c.Debit {
		return nil
	}
	a.debits++
	if c.Amount == "" {
		return nil
	}
	if err := a.sum.AddText(c.Amount); err != nil {
		return fmt.Errorf("%s: amount %q is not a decimal", c.PoolAccount, c.Amount)
	}
	return nil
}

// totals are the imported totals counted, by pool account.
func (n *callCount) totals() []ImportedTotal {
	out := []ImportedTotal{}
	for _, p := range slices.Sorted(maps.Keys(n.accts)) {
		a := n.accts[p]
		out = append(out, ImportedTotal{PoolAccount: p, Calls: a.calls,
			Debited: CountSum{Count: a.debits, Amount: recon.Money(a.sum.Decimal())}})
	}
	return out
}

// periodDays lists the days from..to (YYYY-MM-DD, inclusive).
func periodDays(from, to string) ([]string, error) {
	f, err := time.Parse(recon.DateLayout, from)
	if err != nil {
		return nil, fmt.Errorf("period from %q: %w", from, err)
	}
	t, err := time.Parse(recon.DateLayout, to)
	if err != nil {
		return nil, fmt.Errorf("period to %q: %w", to, err)
	}
	var out []string
	for d := f; !d.After(t); d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format(recon.DateLayout))
	}
	return out, nil
}

// daysBetween is to − from in days (YYYY-MM-DD); 0 when either does not parse.
func daysBetween(from, to string) int {
	f, err1 := time.Parse(recon.DateLayout, from)
	t, err2 := time.Parse(recon.DateLayout, to)
	if err1 != nil || err2 != nil {
		return 0
	}
	return int(t.Sub(f).Hours() / 24)
}

// orderDaysOf are the collect-order days a run read: the days of its
// period and the days of its unsettled orders.
func orderDaysOf(period []string, unsettled []string) []string {
	out := append([]string(nil), period...)
	for _, d := range unsettled {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// sameInputs compares the inputs a manifest holds with the inputs now:
// what differs, one line each (none: the same).
func sameInputs(was, now []Input) []string {
	// A call-log file is told by its content too: the same name read
	// again with other bytes is another input.
	key := func(i Input) string {
		if i.Kind == InputCallLog {
			return i.Kind + " " + i.Name + " " + i.SHA256
		}
		return i.Kind + " " + i.Name
	}
	old := map[string]Input{}
	for _, i := range was {
		old[key(i)] = i
	}
	var out []string
	for _, i := range now {
		o, ok := old[key(i)]
		delete(old, key(i))
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %s is new", i.Kind, inputName(i)))
		case o.SHA256 != i.SHA256:
			out = append(out, fmt.Sprintf("%s %s changed", i.Kind, i.Name))
		}
	}
	for _, i := range was {
		if _, gone := old[key(i)]; gone {
			out = append(out, fmt.Sprintf("%s %s is gone", i.Kind, inputName(i)))
		}
	}
	return out
}

// inputName names an input in a sentence: a call-log file with the start
// of its SHA-256.
func inputName(i Input) string {
	if i.Kind == InputCallLog && len(i.SHA256) >= 12 {
		return i.Name + " (sha256 " + i.SHA256[:12] + "…)"
	}
	return i.Name
}
