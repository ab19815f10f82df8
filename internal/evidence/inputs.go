package evidence

import (
	"context"
	"fmt"
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
// the stored totals of those days.
func gatherInputs(ctx context.Context, db Store, from, to string, orderDays []string) (*inputs, error) {
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
	tot := newSums()
	if err := in.days(ctx, db, recon.Statement, days, tot); err != nil {
		return nil, err
	}
	if err := in.days(ctx, db, recon.Orders, orderDays, tot); err != nil {
		return nil, err
	}
	in.stored = storedTotals(tot)
	return in, nil
}

// days adds the day inputs of kind k for days (sorted), reading the
// records from the first to the last, by day: one day's lines are held at
// a time. It counts the records in tot.
func (in *inputs) days(ctx context.Context, db Store, k recon.Kind, days []string, tot *sums) error {
	if len(days) == 0 {
		return nil
	}
	kind := InputStatementDay
	if k == recon.Orders {
		kind = InputOrdersDay
	}
	sums := map[string]Input{}
	var cur *dayDigest
	day := ""
	finish := func() {
		if cur != nil {
			sum, n := cur.sum()
			sums[day] = Input{Kind: kind, Name: day, SHA256: sum, Records: n}
		}
	}
	for r, err := range db.EvidenceRecords(ctx, k, days[0], days[len(days)-1]) {
		if err != nil {
			return fmt.Errorf("%s records: %w", k, err)
		}
		if r.Day() != day {
			finish()
			day, cur = r.Day(), nil
			if _, ok := slices.BinarySearch(days, day); ok {
				cur = newDayDigest(k)
			}
		}
		if cur == nil {
			continue
		}
		cur.add(r)
		if err := countRecord(tot, k, r); err != nil {
			return err
		}
	}
	finish()
	for _, d := range days {
		in.list = append(in.list, dayInput(sums, d, kind, k))
	}
	return nil
}

// dayInput is the input of day d: its digest, or that of a day without
// records.
func dayInput(sums map[string]Input, d, kind string, k recon.Kind) Input {
	if in, ok := sums[d]; ok {
		return in
	}
	sum, _ := newDayDigest(k).sum()
	return Input{Kind: kind, Name: d, SHA256: sum}
}

// countRecord counts a record in the stored totals of its kind and account.
func countRecord(tot *sums, k recon.Kind, r *recon.Record) error {
	key := string(k) + "\x00" + r.Account
	mode := r.Values[recon.FTxnMode]
	if err := tot.add(key+"\x00records", ""); err != nil {
		return err
	}
	if mode == "DR" || mode == "CR" {
		if err := tot.add(key+"\x00"+mode, r.Values[recon.FTxnChargedValue]); err != nil {
			return fmt.Errorf("%s record %s: %w", k, r.SvcOrderID, err)
		}
	}
	return nil
}

// storedTotals turns the counts of countRecord into StoredTotals.
func storedTotals(tot *sums) []StoredTotal {
	out := []StoredTotal{}
	idx := map[string]int{}
	for _, key := range tot.keys() {
		p := cut(key)
		ka := p[0] + "\x00" + p[1]
		i, ok := idx[ka]
		if !ok {
			i = len(out)
			idx[ka] = i
			out = append(out, StoredTotal{Kind: p[0], Account: p[1], Debits: CountSum{Amount: "0.00"}, Credits: CountSum{Amount: "0.00"}})
		}
		switch p[2] {
		case "records":
			out[i].Records = tot.count[key]
		case "DR":
			out[i].Debits = tot.get(key)
		case "CR":
			out[i].Credits = tot.get(key)
		}
	}
	return out
}

// importedTotals counts the period's calls per pool account.
func importedTotals(ctx context.Context, db Store, from, to string) ([]ImportedTotal, error) {
	calls, debits := newSums(), newSums()
	for c, err := range db.EvidenceCalls(ctx, from, to) {
		if err != nil {
			return nil, fmt.Errorf("calls: %w", err)
		}
		calls.count[c.PoolAccount]++
		if c.Debit {
			if err := debits.add(c.PoolAccount, c.Amount); err != nil {
				return nil, err
			}
		}
	}
	out := []ImportedTotal{}
	for _, p := range calls.keys() {
		out = append(out, ImportedTotal{PoolAccount: p, Calls: calls.count[p], Debited: debits.get(p)})
	}
	return out, nil
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
