package evidence

import (
	"context"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// DayDigest is the digest of a day's records of one kind (dayDigest) with
// their totals per account, computed at the day's version (the store moves
// a day's version on whenever a sync writes a new or changed record of
// it): kept, it holds while the version does.
type DayDigest struct {
	Kind    recon.Kind
	Day     string
	Version int64
	SHA256  string
	Records int
	Totals  []StoredTotal // per account
}

// input is the day's manifest input.
func (d *DayDigest) input() Input {
	kind := InputStatementDay
	if d.Kind == recon.Orders {
		kind = InputOrdersDay
	}
	return Input{Kind: kind, Name: d.Day, SHA256: d.SHA256, Records: d.Records}
}

// dayInputs digests the days of kind k (sorted): with useKept, the digests
// kept that still hold; the others from the records (digestDays), and
// kept (useKept) for the next night.
func dayInputs(ctx context.Context, db Store, k recon.Kind, days []string, useKept bool) ([]DayDigest, error) {
	out, computed, err := readDays(ctx, db, k, days, useKept)
	if err != nil {
		return nil, err
	}
	if useKept && len(computed) > 0 {
		if err := db.SaveDayDigests(ctx, computed); err != nil {
			return nil, fmt.Errorf("keep %s digests: %w", k, err)
		}
	}
	return out, nil
}

// readDays digests the days of kind k (sorted) as dayInputs does, keeping
// nothing: the digests, and those of them computed from the records.
func readDays(ctx context.Context, db Store, k recon.Kind, days []string, useKept bool) (out, computed []DayDigest, err error) {
	if len(days) == 0 {
		return nil, nil, nil
	}
	have := map[string]DayDigest{}
	if useKept {
		if have, err = db.DayDigests(ctx, k, days[0], days[len(days)-1]); err != nil {
			return nil, nil, fmt.Errorf("%s digests kept: %w", k, err)
		}
	}
	var missing []string
	for _, d := range days {
		if _, ok := have[d]; !ok {
			missing = append(missing, d)
		}
	}
	if len(missing) > 0 {
		if computed, err = digestDays(ctx, db, k, missing); err != nil {
			return nil, nil, err
		}
		for _, d := range computed {
			have[d.Day] = d
		}
	}
	out = make([]DayDigest, len(days))
	for i, d := range days {
		out[i] = have[d]
	}
	return out, computed, nil
}

// digestDays digests days (sorted) of kind k from their records, at the
// versions the days have before they are read: one pass over the records,
// each day's lines hashed as they come (the store yields them in the
// lines' order), nothing of a day held. A day whose records came out of
// that order (a value with a control character sorts apart from its
// column) is read again, alone, and digested by sortedDigest.
func digestDays(ctx context.Context, db Store, k recon.Kind, days []string) ([]DayDigest, error) {
	versions, err := db.DayVersions(ctx, k, days[0], days[len(days)-1])
	if err != nil {
		return nil, fmt.Errorf("%s day versions: %w", k, err)
	}
	type dayState struct {
		dg  *dayDigest
		tot *sums
	}
	state := make(map[string]*dayState, len(days))
	for _, d := range days {
		state[d] = &dayState{dg: newDayDigest(k), tot: newSums()}
	}
	for r, err := range db.EvidenceRecords(ctx, k, days[0], days[len(days)-1]) {
		if err != nil {
			return nil, fmt.Errorf("%s records: %w", k, err)
		}
		s, ok := state[r.Day()]
		if !ok {
			continue // a day between the days asked for
		}
		s.dg.add(r)
		if err := countRecord(s.tot, r); err != nil {
			return nil, err
		}
	}
	out := make([]DayDigest, len(days))
	for i, d := range days {
		s := state[d]
		sum, n, ok := s.dg.sum()
		if !ok {
			if sum, n, err = sortedDigest(k, db.EvidenceRecords(ctx, k, d, d)); err != nil {
				return nil, fmt.Errorf("%s records of %s: %w", k, d, err)
			}
		}
		out[i] = DayDigest{Kind: k, Day: d, Version: versions[d], SHA256: sum, Records: n, Totals: storedTotals(k, s.tot)}
	}
	return out, nil
}

// countRecord counts a record in its account's totals.
func countRecord(tot *sums, r *recon.Record) error {
	if err := tot.add(r.Account+"\x00records", ""); err != nil {
		return err
	}
	if mode := r.Values[recon.FTxnMode]; mode == "DR" || mode == "CR" {
		if err := tot.add(r.Account+"\x00"+mode, r.Values[recon.FTxnChargedValue]); err != nil {
			return fmt.Errorf("%s record %s: %w", r.Kind, r.SvcOrderID, err)
		}
	}
	return nil
}

// storedTotals turns the counts of countRecord into totals per account.
func storedTotals(k recon.Kind, tot *sums) []StoredTotal {
	out := []StoredTotal{}
	idx := map[string]int{}
	for _, key := range tot.keys() {
		p := cut(key)
		i, ok := idx[p[0]]
		if !ok {
			i = len(out)
			idx[p[0]] = i
			out = append(out, StoredTotal{Kind: string(k), Account: p[0], Debits: CountSum{Amount: "0.00"}, Credits: CountSum{Amount: "0.00"}})
		}
		switch p[1] {
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

// mergeTotals adds the days' totals per kind and account.
func mergeTotals(days []DayDigest) ([]StoredTotal, error) {
	out := []StoredTotal{}
	idx := map[string]int{}
	add := func(a, b string) (string, error) {
		x, err1 := decimal.NewFromString(a)
		y, err2 := decimal.NewFromString(b)
		if err1 != nil || err2 != nil {
			return "", fmt.Errorf("stored totals: %q + %q", a, b)
		}
		return recon.Money(x.Add(y)), nil
	}
	var err error
	for _, d := range days {
		for _, t := range d.Totals {
			key := t.Kind + "\x00" + t.Account
			i, ok := idx[key]
			if !ok {
				idx[key] = len(out)
				out = append(out, t)
				continue
			}
			o := &out[i]
			o.Records += t.Records
			o.Debits.Count += t.Debits.Count
			o.Credits.Count += t.Credits.Count
			if o.Debits.Amount, err = add(o.Debits.Amount, t.Debits.Amount); err != nil {
				return nil, err
			}
			if o.Credits.Amount, err = add(o.Credits.Amount, t.Credits.Amount); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(out, func(a, b StoredTotal) int { return compareStrings(a.Kind+"\x00"+a.Account, b.Kind+"\x00"+b.Account) })
	return out, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
