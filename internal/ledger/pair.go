package ledger

import (
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// DefaultPairWindow is how far apart in time an unmatched call and an
// unmatched statement record may be to be suggested as a pair.
const DefaultPairWindow = 10 * time.Minute

// pairMargin is how much nearer than every other candidate the nearest
// must be to win: times a minute apart or less cannot tell two candidates
// apart (a call's response time and its record's txnDateTime differ by
// the service's own delay).
const pairMargin = time.Minute

// orphanCall is an unmatched call (callOnly) as the pairing sees it.
type orphanCall struct {
	id      int64 // calls.id, to name it
	ts      int64
	account string // the pool account ("" when it names none)
	amount  decimal.Decimal
	op      string // "" when the line did not name it (a bare envelope)
}

// orphanRec is an unmatched statement record (statementOnly).
type orphanRec struct {
	svc     string
	ts      int64
	account string
	amount  decimal.Decimal // txnChargedValue
	product string          // productCode, "" when none
}

// pairRule is what a suggested pair must satisfy.
type pairRule struct {
	window time.Duration
	// tol are the amount tolerances (zero: equal amounts only).
	tol Tolerances
	// products are the productCodes that matched rows of the period show
	// for each operation: an operation agrees with a productCode seen for
	// it, disagrees with another, and is not compared when none is seen.
	products map[string]map[string]bool
	// accounts are the accounts the period's statement records name: a
	// call's pool account is compared with the record's only when the
	// statement knows it.
	accounts map[string]bool
}

// pairNote is what the pairing says about one orphan: the index of
// its suggested counterpart and why (with >= 0), or why there is none
// although there were candidates (reason).
type pairNote struct {
	with       int
	suggestion string
	reason     string
}

// candStat sums up one orphan's candidates.
type candStat struct {
	n      int   // candidates
	best   int   // the nearest (when not tied)
	d1, d2 int64 // the nearest and second-nearest distances, seconds
	tie    int   // candidates at distance d1
}

func (s *candStat) add(j int, d int64) {
	s.n++
	switch {
	case s.n == 1 || d < s.d1:
		if s.n > 1 {
			s.d2 = s.d1
		}
		s.best, s.d1, s.tie = j, d, 1
	case d == s.d1:
		s.tie++
		s.d2 = d
	case s.n == 2 || d < s.d2:
		s.d2 = d
	}
}

// choice is the candidate this orphan would pair with, or -1: the only
// one, or the nearest when every other is more than pairMargin further.
func (s *candStat) choice() int {
	if s.n == 0 || (s.n > 1 && s.d2-s.d1 <= int64(pairMargin/time.Second)) {
		return -1
	}
	return s.best
}

// ambiguity says why an orphan with several candidates has no choice.
func (s *candStat) ambiguity(what string) string {
	if s.tie > 1 {
		return fmt.Sprintf("ambiguous, %d candidates (a tie: %d %s %s away)", s.n, s.tie, what, fmtSeconds(s.d1))
	}
	return fmt.Sprintf("ambiguous, %d candidates (the nearest %s and %s away, less than %s apart)",
		s.n, fmtSeconds(s.d1), fmtSeconds(s.d2), recon.ShortDuration(pairMargin))
}

// product says whether a call's operation and a record's productCode
// agree (ok false: they disagree, no pair), and how.
func (r *pairRule) product(op, code string) (ok bool, how string) {
	switch {
	case op == "":
		return true, "product not compared: the call names no operation"
	case code == "":
		return true, "product not compared: the record has no productCode"
	}
	seen := r.products[op]
	switch {
	case seen[code]:
		return true, fmt.Sprintf("product agrees (%s ↔ %s)", op, code)
	case len(seen) > 0:
		return false, ""
	}
	return true, fmt.Sprintf("product not compared: no matched call of %s in the period shows its productCode", op)
}

// sameAccount reports whether a call's pool account and a record's
// account may be the same.
func (r *pairRule) sameAccount(call, rec string) bool {
	return call == "" || rec == "" || call == rec || !r.accounts[call]
}

// suggestPairs pairs unmatched calls with unmatched statement records that
// are probably the same debit: equal amount (or within the rule's
// tolerance), the product agreeing where both sides carry one, the same
// pool account, at most rule.window apart. Among several candidates the
// nearest in time wins when every other is more than pairMargin further;
// a pair is suggested only when each side is the other's choice. It
// returns a note per call and per record, and how many pairs it suggests.
// It is pure: calls and records in any order.
func suggestPairs(calls []orphanCall, recs []orphanRec, rule pairRule) (callNotes, recNotes []pairNote, pairs int) {
	if rule.accounts == nil {
		rule.accounts = map[string]bool{}
		for _, r := range recs {
			rule.accounts[r.account] = true
		}
	}
	cs, rs := candidates(calls, recs, &rule)
	callNotes, recNotes = make([]pairNote, len(calls)), make([]pairNote, len(recs))
	for i := range callNotes {
		callNotes[i].with = -1
	}
	for j := range recNotes {
		recNotes[j].with = -1
	}
	for i := range calls {
		st := &cs[i]
		j := st.choice()
		switch {
		case st.n == 0:
		case j < 0:
			callNotes[i].reason = st.ambiguity("records")
		case rs[j].choice() < 0:
			callNotes[i].reason = fmt.Sprintf("ambiguous, %d candidates for statement record %s", rs[j].n, recs[j].svc)
		case rs[j].choice() != i:
			callNotes[i].reason = fmt.Sprintf("statement record %s is nearer to call %d", recs[j].svc, calls[rs[j].choice()].id)
		default:
			why := rule.explain(&calls[i], &recs[j])
			callNotes[i] = pairNote{with: j, suggestion: "statement record " + recs[j].svc + " — " + why}
			recNotes[j] = pairNote{with: i, suggestion: callName(&calls[i]) + " — " + why}
			pairs++
		}
	}
	for j := range recs {
		st := &rs[j]
		i := st.choice()
		switch {
		case st.n == 0 || recNotes[j].with >= 0:
		case i < 0:
			recNotes[j].reason = st.ambiguity("calls")
		case cs[i].choice() < 0:
			recNotes[j].reason = fmt.Sprintf("ambiguous, %d candidates for %s", cs[i].n, callName(&calls[i]))
		default:
			recNotes[j].reason = fmt.Sprintf("%s is nearer to statement record %s", callName(&calls[i]), recs[cs[i].choice()].svc)
		}
	}
	return callNotes, recNotes, pairs
}

// candidates sums up each call's and each record's candidates: the
// records (calls) within the rule's amount tolerance and time window whose
// product and pool account agree, with their distance in time.
func candidates(calls []orphanCall, recs []orphanRec, rule *pairRule) (cs, rs []candStat) {
	win := int64(rule.window / time.Second)
	byAmount := map[string][]int{} // records by amount, in time order
	for j := range recs {
		k := recs[j].amount.String()
		byAmount[k] = append(byAmount[k], j)
	}
	amounts := make([]decimal.Decimal, 0, len(byAmount)) // the amounts, ascending
	for _, js := range byAmount {
		sort.SliceStable(js, func(a, b int) bool { return recs[js[a]].ts < recs[js[b]].ts })
		amounts = append(amounts, recs[js[0]].amount)
	}
	sort.Slice(amounts, func(a, b int) bool { return amounts[a].LessThan(amounts[b]) })
	cs, rs = make([]candStat, len(calls)), make([]candStat, len(recs))
	for i := range calls {
		c := &calls[i]
		for _, js := range rule.amountsNear(c.amount, amounts, byAmount) {
			lo := sort.Search(len(js), func(a int) bool { return recs[js[a]].ts >= c.ts-win })
			for _, j := range js[lo:] {
				r := &recs[j]
				if r.ts > c.ts+win {
					break
				}
				if ok, _ := rule.product(c.op, r.product); !ok || !rule.sameAccount(c.account, r.account) {
					continue
				}
				d := max(r.ts-c.ts, c.ts-r.ts)
				cs[i].add(j, d)
				rs[j].add(i, d)
			}
		}
	}
	return cs, rs
}

// amountsNear returns the records (indexes, in time order, one list per
// amount) whose amount is within the rule's tolerance of a call's amount:
// those of the equal amount alone when the rule is exact.
func (r *pairRule) amountsNear(call decimal.Decimal, amounts []decimal.Decimal, byAmount map[string][]int) [][]int {
	if r.tol.exact() {
		if js := byAmount[call.String()]; len(js) > 0 {
			return [][]int{js}
		}
		return nil
	}
	tol := r.tol.allowed(call)
	lo, hi := call.Sub(tol), call.Add(tol)
	var out [][]int
	for a := sort.Search(len(amounts), func(a int) bool { return !amounts[a].LessThan(lo) }); a < len(amounts) && !amounts[a].GreaterThan(hi); a++ {
		out = append(out, byAmount[amounts[a].String()])
	}
	return out
}

// explain names the rule a pair satisfies, the time between its two sides
// and whether the product agreed.
func (r *pairRule) explain(c *orphanCall, rec *orphanRec) string {
	var when string
	switch d := rec.ts - c.ts; {
	case d == 0:
		when = "in the same second as the call"
	case d > 0:
		when = fmtSeconds(d) + " after the call"
	default:
		when = fmtSeconds(-d) + " before the call"
	}
	_, product := r.product(c.op, rec.product)
	return fmt.Sprintf("rule: %s, same pool account, within %s, nearest in time; the record is %s; %s",
		r.amountRule(c.amount, rec.amount), recon.ShortDuration(r.window), when, product)
}

// amountRule says how a pair's amounts agree: "equal amount 1.50", or,
// within the tolerance, by how much they differ.
func (r *pairRule) amountRule(call, rec decimal.Decimal) string {
	if call.Equal(rec) {
		return "equal amount " + recon.Money(call)
	}
	return fmt.Sprintf("%s (call %s, record %s: differs by %s)", r.tol.Describe(), recon.Money(call), recon.Money(rec),
		recon.Money(call.Sub(rec)))
}

func callName(c *orphanCall) string {
	if c.op == "" {
		return fmt.Sprintf("call %d", c.id)
	}
	return fmt.Sprintf("call %d %s", c.id, c.op)
}

func fmtSeconds(s int64) string { return recon.ShortDuration(time.Duration(s) * time.Second) }
