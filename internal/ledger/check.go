package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/store"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// CheckOptions say which period to reconcile. From and To are IST days
// (their time of day is ignored); AsOf defaults to To; Now (default
// time.Now) only stamps the run's start.
type CheckOptions struct {
	From, To, AsOf time.Time
	Now            func() time.Time
	Log            *slog.Logger
}

// Check reconciles a period (design: reconciliation; recon-contract.md):
// the arithmetic of every pool object, the chain of balances per pool
// account, calls matched to statement records, reversals and unsettled
// orders. Calls of read-only operations (svcrecon's own statement and list
// pages, transaction-status look-ups) are no transactions of the pool and
// are left out. It stores the results as a new run in one transaction,
// replacing the results of earlier runs of the same period, and returns
// its report.
// The error is for a bad period or a database failure; findings are in the
// report.
func Check(ctx context.Context, db *store.DB, o CheckOptions) (*Report, error) {
	if o.From.IsZero() || o.To.IsZero() {
		return nil, errors.New("check: the period needs a from and a to date")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.AsOf.IsZero() {
		o.AsOf = o.To
	}
	c := &checker{
		db: db, log: o.Log,
		from: day(o.From), to: day(o.To), asOf: day(o.AsOf),
		started: o.Now(), t0: time.Now(),
		bySvc: map[string]int32{}, byClient: map[string]int32{},
		acctIdx: map[string]uint16{},
	}
	if c.to < c.from {
		return nil, fmt.Errorf("check: to %s is before from %s", c.to, c.from)
	}
	if err := c.compute(ctx); err != nil {
		c.recordFailure(ctx)
		return nil, fmt.Errorf("check %s..%s: %w", c.from, c.to, err)
	}
	rep, err := c.store(ctx)
	if err != nil {
		c.recordFailure(ctx)
		return nil, fmt.Errorf("check %s..%s: store results: %w", c.from, c.to, err)
	}
	o.Log.Info("reconciliation checked", "run", rep.RunID, "from", c.from, "to", c.to,
		"calls", rep.Summary.Calls, "breaks", len(rep.Breaks), "findings", rep.HasFindings(),
		"seconds", time.Since(c.t0).Seconds())
	return rep, nil
}

func day(t time.Time) string {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return t.Format(time.DateOnly) // a date given as UTC midnight means that date
	}
	return t.In(svcapi.IST).Format(time.DateOnly)
}

// Record flags.
const (
	recCR          = 1 << iota // a credit (reversal) record
	recLinked                  // linked to some call
	recLinkedDebit             // linked to a call carrying a pool debit
	recOutside                 // outside the period: looked up for a call
)

// srec is a statement record, compactly.
type srec struct {
	svc      string
	client   string
	amount   string
	reversal string
	ts       int64
	acct     uint16
	flags    uint8
	next     int32 // next DR record with the same clientOrderId, -1
}

// kcall is a call the results need: one carrying a pool debit, or pending.
type kcall struct {
	id      int64
	ts      int64
	ref     string
	orderID string
	op      string
	amount  string // pool amount; "" for pending calls
	rec     int32  // linked record, -1
	acct    uint16
	pending bool
	skip    bool // the same debit logged twice (same orderid, same second)
}

type chainItem struct {
	call                     int32
	opening, amount, closing decimal.Decimal
}

type chainState struct {
	have             bool
	prev             int32
	prevClosing      decimal.Decimal
	opening, closing decimal.Decimal
	calls            int
	debited          decimal.Decimal
}

type gapCand struct {
	acct      uint16
	prev, cur int32
	from, to  int64
	expected  decimal.Decimal
	actual    decimal.Decimal
	delta     decimal.Decimal
}

type matchRow struct {
	outcome string
	call    int32 // -1 for none
	rec     int32 // -1 for none
	ts      int64
	delta   string
	note    string
}

type reversalRow struct {
	rec    int32
	found  bool
	revTS  string
	revAmt string
}

type unsettledRow struct {
	svc, client, ts, amount string
	age                     int
}

type checker struct {
	db              *store.DB
	log             *slog.Logger
	from, to, asOf  string
	started         time.Time
	t0              time.Time
	accounts        []string
	acctIdx         map[string]uint16
	recs            []srec
	nPeriod         int // recs[:nPeriod] are the period's records, by time
	bySvc           map[string]int32
	byClient        map[string]int32 // first DR record of a clientOrderId
	calls           []kcall
	chains          map[uint16]*chainState
	defaultAcct     uint16
	gaps            []gapCand
	breaks          []Break
	matches         []matchRow
	reversals       []reversalRow
	unsettled       []unsettledRow
	nCalls, nFailed int
	nPending        int
	credited        decimal.Decimal
	dupRefs         map[string]bool
}

func (c *checker) acct(name string) uint16 {
	if i, ok := c.acctIdx[name]; ok {
		return i
	}
	c.accounts = append(c.accounts, name)
	i := uint16(len(c.accounts) - 1)
	c.acctIdx[name] = i
	return i
}

func (c *checker) compute(ctx context.Context) error {
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"load statement records", c.loadRecords},
		{"read calls", c.readCalls},
		{"link records outside the period", c.linkOutside},
		{"explain gaps", c.explainGaps},
		{"match", c.match},
		{"reversals", c.checkReversals},
		{"unsettled orders", c.loadUnsettled},
	}
	for _, s := range steps {
		t := time.Now()
		if err := s.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		c.log.Debug("check step done", "step", s.name, "seconds", time.Since(t).Seconds())
	}
	return nil
}

// loadRecords reads the period's statement records.
func (c *checker) loadRecords(ctx context.Context) error {
	rows, err := c.db.QueryContext(ctx, `SELECT account, svc_order_id, client_order_id, txn_date_time, txn_mode,
		txn_charged_value, reversal_svc_order_id FROM records
		WHERE kind = 'statement' AND txn_date_time >= ? AND txn_date_time <= ?
		ORDER BY txn_date_time, svc_order_id`, c.from+" 00:00:00", c.to+" 23:59:59")
	if err != nil {
		return err
	}
	defer rows.Close()
	lastClient := map[string]int32{}
	for rows.Next() {
		var acct, mode, ts string
		var r srec
		if err := rows.Scan(&acct, &r.svc, &r.client, &ts, &mode, &r.amount, &r.reversal); err != nil {
			return err
		}
		r.acct = c.acct(acct)
		if r.ts, err = parseTS(ts); err != nil {
			return fmt.Errorf("record %s: %w", r.svc, err)
		}
		amt, err := svcapi.ParseAmount(r.amount)
		if err != nil {
			return fmt.Errorf("record %s: txnChargedValue: %w", r.svc, err)
		}
		r.next = -1
		i := int32(len(c.recs))
		if isCR(mode) {
			r.flags |= recCR
			c.credited = c.credited.Add(amt)
		} else if r.client != "" {
			if last, ok := lastClient[r.client]; ok {
				c.recs[last].next = i
			} else {
				c.byClient[r.client] = i
			}
			lastClient[r.client] = i
		}
		c.recs = append(c.recs, r)
		c.bySvc[r.svc] = i
	}
	c.nPeriod = len(c.recs)
	return rows.Err()
}

func isCR(mode string) bool { return strings.EqualFold(strings.TrimSpace(mode), "CR") }

// link returns the DR record a call links to: by orderid, else by
// externalRef = clientOrderId (the first such record not yet linked to a
// debit), or -1.
func (c *checker) link(orderID, ref string) int32 {
	if orderID != "" {
		if i, ok := c.bySvc[orderID]; ok && c.recs[i].flags&recCR == 0 {
			return i
		}
	}
	if ref != "" {
		first, ok := c.byClient[ref]
		if !ok {
			return -1
		}
		for i := first; i >= 0; i = c.recs[i].next {
			if c.recs[i].flags&recLinkedDebit == 0 {
				return i
			}
		}
		return first
	}
	return -1
}

// namedAccounts finds the pool accounts the period's calls name.
func (c *checker) namedAccounts(ctx context.Context, lo, hi string) error {
	rows, err := c.db.QueryContext(ctx, `SELECT DISTINCT pool_account FROM calls
		WHERE ts >= ? AND ts <= ? AND pool_shape <> '' AND pool_account <> ''`, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	var named []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return err
		}
		named = append(named, a)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	c.defaultAcct = c.acct("")
	if len(named) == 1 {
		c.defaultAcct = c.acct(named[0])
	}
	return nil
}

// notReadOnly is an SQL condition on calls: the call is not of a read-only
// operation (statement and collect-order pages, the biller and bank lists,
// transaction-status look-ups: svcrecon's own sync and recheck calls). Those
// are no transactions of the pool: they are neither counted nor matched.
var notReadOnly = func() string {
	var names []string
	for _, op := range svcapi.Operations() {
		if op.ReadOnly() {
			names = append(names, "'"+op.Name+"'")
		}
	}
	if len(names) == 0 {
		return "1"
	}
	return "operation NOT IN (" + strings.Join(names, ", ") + ")"
}()

// readCalls streams the period's calls in time order: it links them to
// records, checks each pool object's arithmetic and follows the chain.
func (c *checker) readCalls(ctx context.Context) error {
	lo, hi := c.from+" 00:00:00", c.to+" 23:59:59"
	if err := c.namedAccounts(ctx, lo, hi); err != nil {
		return err
	}
	c.chains = map[uint16]*chainState{}
	resolved, err := c.resolvePending(ctx, lo, hi)
	if err != nil {
		return err
	}
	rows, err := c.db.QueryContext(ctx, `SELECT id, ts, operation, external_ref, orderid, outcome,
		pool_account, pool_shape, pool_opening, pool_amount, pool_closing
		FROM calls WHERE ts >= ? AND ts <= ? AND `+notReadOnly+` ORDER BY ts, id`, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	var group []chainItem
	var groupTS int64 = -1
	ops := map[string]string{}
	for rows.Next() {
		var id int64
		var ts, op, ref, orderID, outcome, acct, shape, opening, amount, closing string
		if err := rows.Scan(&id, &ts, &op, &ref, &orderID, &outcome, &acct, &shape, &opening, &amount, &closing); err != nil {
			return err
		}
		t, err := parseTS(ts)
		if err != nil {
			return fmt.Errorf("call %d: %w", id, err)
		}
		if t != groupTS {
			c.flushGroup(group)
			group, groupTS = group[:0], t
		}
		if r, ok := resolved[id]; ok && outcome == OutcomePending {
			outcome = r.state // resolve.go: what became of it
			if r.pool != nil {
				shape, acct = string(r.pool.Shape), r.pool.Account
				opening, amount, closing = r.pool.Opening.String(), r.pool.Amount.String(), r.pool.Closing.String()
				if r.orderID != "" {
					orderID = r.orderID
				}
			}
		}
		c.nCalls++
		debit := shape != "" && outcome == OutcomeSuccess
		switch {
		case outcome == OutcomeFailed:
			c.nFailed++
		case outcome == OutcomePending:
			c.nPending++
		}
		ri := c.link(orderID, ref)
		if ri >= 0 {
			c.recs[ri].flags |= recLinked
			if debit {
				c.recs[ri].flags |= recLinkedDebit
			}
		}
		if !debit && outcome != OutcomePending {
			continue
		}
		if o, ok := ops[op]; ok {
			op = o
		} else {
			ops[op] = op
		}
		k := kcall{id: id, ts: t, ref: ref, orderID: orderID, op: op, rec: ri, pending: !debit}
		if debit {
			var p [3]decimal.Decimal
			for i, s := range []string{opening, amount, closing} {
				if p[i], err = svcapi.ParseAmount(s); err != nil {
					return fmt.Errorf("call %d: pool: %w", id, err)
				}
			}
			k.amount = Money(p[1])
			if acct == "" {
				k.acct = c.defaultAcct
			} else {
				k.acct = c.acct(acct)
			}
			if exp := p[0].Sub(p[1]); !exp.Equal(p[2]) {
				c.breaks = append(c.breaks, Break{PoolAccount: c.accounts[k.acct], Kind: BreakArithmetic,
					CallID: id, TS: ts, ExternalRef: ref, Expected: exp, Actual: p[2], Delta: exp.Sub(p[2]),
					Note: fmt.Sprintf("opening %s − amount %s ≠ closing %s", Money(p[0]), Money(p[1]), Money(p[2]))})
			}
			group = append(group, chainItem{call: int32(len(c.calls)), opening: p[0], amount: p[1], closing: p[2]})
		}
		c.calls = append(c.calls, k)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	c.flushGroup(group)
	return nil
}

// flushGroup chains the debits of one second, per pool account, ordered so
// that the chain links: greedily the lowest call id whose opening is the
// running closing; when none is, the call whose opening is no other
// remaining call's closing (the head of the second's own chain), else the
// lowest call id.
func (c *checker) flushGroup(group []chainItem) {
	if len(group) == 0 {
		return
	}
	// The same debit logged twice (svcrecon's own record and a client's line).
	items := group[:0:0]
	for i, it := range group {
		k := &c.calls[it.call]
		dup := false
		for _, prev := range group[:i] {
			p := &c.calls[prev.call]
			if k.orderID != "" && !p.skip && p.orderID == k.orderID && p.acct == k.acct {
				dup = true
				break
			}
		}
		if dup {
			k.skip = true
			c.nCalls--
			continue
		}
		items = append(items, it)
	}
	if len(items) == 1 {
		a := c.calls[items[0].call].acct
		st := c.chains[a]
		if st == nil {
			st = &chainState{}
			c.chains[a] = st
		}
		c.chainLink(a, st, items[0])
		return
	}
	byAcct := map[uint16][]chainItem{}
	var order []uint16
	for _, it := range items {
		a := c.calls[it.call].acct
		if _, ok := byAcct[a]; !ok {
			order = append(order, a)
		}
		byAcct[a] = append(byAcct[a], it)
	}
	for _, a := range order {
		st := c.chains[a]
		if st == nil {
			st = &chainState{}
			c.chains[a] = st
		}
		rest := byAcct[a]
		for len(rest) > 0 {
			pick := -1
			if st.have {
				for i, it := range rest {
					if it.opening.Equal(st.prevClosing) {
						pick = i
						break
					}
				}
			}
			if pick < 0 {
				// Nothing links (a gap before this second): start with
				// the call that no other call of the second leads to.
				pick = chainHead(rest)
			}
			it := rest[pick]
			rest = append(rest[:pick:pick], rest[pick+1:]...)
			c.chainLink(a, st, it)
		}
	}
}

// chainHead picks the first call of a chain inside one second: the one
// whose opening is no other call's closing (lowest id on a tie).
func chainHead(items []chainItem) int {
	for i, it := range items {
		head := true
		for j, o := range items {
			if i != j && o.closing.Equal(it.opening) {
				head = false
				break
			}
		}
		if head {
			return i
		}
	}
	return 0
}

func (c *checker) chainLink(a uint16, st *chainState, it chainItem) {
	k := &c.calls[it.call]
	if !st.have {
		st.have, st.opening = true, it.opening
	} else if d := st.prevClosing.Sub(it.opening); !d.IsZero() {
		p := &c.calls[st.prev]
		c.gaps = append(c.gaps, gapCand{acct: a, prev: st.prev, cur: it.call, from: p.ts, to: k.ts,
			expected: st.prevClosing, actual: it.opening, delta: d})
	}
	st.prev, st.prevClosing, st.closing = it.call, it.closing, it.closing
	st.calls++
	st.debited = st.debited.Add(it.amount)
}

// linkOutside looks beyond the period: a call whose record lies outside it,
// and a period record whose call lies outside it.
func (c *checker) linkOutside(ctx context.Context) error {
	bySvc, err := c.db.PrepareContext(ctx, `SELECT svc_order_id, client_order_id, txn_date_time, txn_charged_value,
		reversal_svc_order_id FROM records WHERE svc_order_id = ? AND kind = 'statement' AND upper(txn_mode) <> 'CR' LIMIT 1`)
	if err != nil {
		return err
	}
	defer bySvc.Close()
	byClient, err := c.db.PrepareContext(ctx, `SELECT svc_order_id, client_order_id, txn_date_time, txn_charged_value,
		reversal_svc_order_id FROM records WHERE client_order_id = ? AND kind = 'statement' AND upper(txn_mode) <> 'CR'
		ORDER BY txn_date_time LIMIT 1`)
	if err != nil {
		return err
	}
	defer byClient.Close()
	lookup := func(st *sql.Stmt, key string) (int32, error) {
		var r srec
		var ts string
		err := st.QueryRowContext(ctx, key).Scan(&r.svc, &r.client, &ts, &r.amount, &r.reversal)
		if errors.Is(err, sql.ErrNoRows) {
			return -1, nil
		}
		if err != nil {
			return -1, err
		}
		if i, ok := c.bySvc[r.svc]; ok {
			return i, nil // in the period after all (a CR mode spelled oddly is not)
		}
		if r.ts, err = parseTS(ts); err != nil {
			return -1, fmt.Errorf("record %s: %w", r.svc, err)
		}
		r.flags, r.next = recOutside, -1
		c.recs = append(c.recs, r)
		i := int32(len(c.recs) - 1)
		c.bySvc[r.svc] = i
		return i, nil
	}
	for ci := range c.calls {
		k := &c.calls[ci]
		if k.rec >= 0 || k.skip {
			continue
		}
		i := int32(-1)
		if k.orderID != "" {
			if i, err = lookup(bySvc, k.orderID); err != nil {
				return err
			}
		}
		if i < 0 && k.ref != "" {
			if i, err = lookup(byClient, k.ref); err != nil {
				return err
			}
		}
		if i >= 0 {
			k.rec = i
			c.recs[i].flags |= recLinked
			if !k.pending {
				c.recs[i].flags |= recLinkedDebit
			}
		}
	}
	// Period records no call of the period links to: a call outside it may.
	q, err := c.db.PrepareContext(ctx, `SELECT max(pool_shape <> '' AND outcome = 'success') FROM calls
		WHERE (orderid = ?1 OR (?2 <> '' AND external_ref = ?2)) AND (ts < ?3 OR ts > ?4) AND `+notReadOnly)
	if err != nil {
		return err
	}
	defer q.Close()
	for i := 0; i < c.nPeriod; i++ {
		r := &c.recs[i]
		if r.flags&(recCR|recLinked) != 0 {
			continue
		}
		var debit sql.NullInt64
		if err := q.QueryRowContext(ctx, r.svc, r.client, c.from+" 00:00:00", c.to+" 23:59:59").Scan(&debit); err != nil {
			return err
		}
		if debit.Valid {
			r.flags |= recLinked
			if debit.Int64 == 1 {
				r.flags |= recLinkedDebit
			}
		}
	}
	return nil
}

// explainGaps turns each chain gap into a break: explainedGap when the
// statement records of its interval not linked to a debit sum to its delta.
func (c *checker) explainGaps(context.Context) error {
	recs := c.recs[:c.nPeriod]
	hasAcct := map[uint16]bool{}
	for i := range recs {
		hasAcct[recs[i].acct] = true
	}
	for _, g := range c.gaps {
		lo := sort.Search(len(recs), func(i int) bool { return recs[i].ts >= g.from })
		name := c.accounts[g.acct]
		restrict := hasAcct[g.acct] && name != ""
		sum := decimal.Zero
		var ids []string
		for i := lo; i < len(recs) && recs[i].ts <= g.to; i++ {
			r := &recs[i]
			if r.flags&recLinkedDebit != 0 || (restrict && r.acct != g.acct) {
				continue
			}
			amt, _ := svcapi.ParseAmount(r.amount)
			if r.flags&recCR != 0 {
				sum = sum.Sub(amt)
			} else {
				sum = sum.Add(amt)
			}
			ids = append(ids, r.svc)
		}
		p, k := &c.calls[g.prev], &c.calls[g.cur]
		b := Break{PoolAccount: name, Kind: BreakGap, CallID: k.id, PrevCallID: p.id, TS: fmtTS(k.ts),
			ExternalRef: k.ref, Expected: g.expected, Actual: g.actual, Delta: g.delta}
		switch {
		case len(ids) > 0 && sum.Equal(g.delta):
			b.Kind, b.ExplainedBy = BreakExplainedGap, ids
			b.Note = fmt.Sprintf("explained by %d statement record(s) with no logged debit", len(ids))
		case len(ids) > 0:
			b.Note = fmt.Sprintf("statement records with no logged debit in the interval sum to %s, not %s",
				Money(sum), Money(g.delta))
		default:
			b.Note = "no statement record explains it"
		}
		c.breaks = append(c.breaks, b)
	}
	slices.SortStableFunc(c.breaks, func(a, b Break) int {
		return cmp.Or(strings.Compare(a.TS, b.TS), cmp.Compare(a.CallID, b.CallID))
	})
	return nil
}

// match gives every debit, pending call and unlinked DR record its outcome.
func (c *checker) match(context.Context) error {
	// Duplicate debits: an externalRef with two debits (calls with distinct
	// orderids, or DR records).
	c.dupRefs = map[string]bool{}
	firstOrder := map[string]string{}
	for i := range c.calls {
		k := &c.calls[i]
		if k.pending || k.skip || k.ref == "" {
			continue
		}
		if o, ok := firstOrder[k.ref]; !ok {
			firstOrder[k.ref] = k.orderID
		} else if o != k.orderID {
			c.dupRefs[k.ref] = true
		}
	}
	firstOrder = nil
	for ref, i := range c.byClient {
		if c.recs[i].next >= 0 {
			c.dupRefs[ref] = true
		}
	}
	for i := range c.calls {
		k := &c.calls[i]
		if k.skip {
			continue
		}
		m := matchRow{call: int32(i), rec: k.rec, ts: k.ts}
		var r *srec
		if k.rec >= 0 {
			r = &c.recs[k.rec]
		}
		switch {
		case k.pending:
			m.outcome = Pending
			if r == nil {
				m.note = "no statement record: look the outcome up with txnStatus"
			} else {
				m.note = "the statement shows the debit"
			}
		case c.dupRefs[k.ref]:
			m.outcome = DuplicateDebit
			m.note = "externalRef debited more than once"
			if r != nil {
				m.delta = amountDelta(k.amount, r.amount)
			}
		case r == nil:
			m.outcome = CallOnly
			m.note = "no statement record for this debit"
		case r.reversal != "":
			m.outcome = Reversed
			m.note = "reversed by " + r.reversal
		default:
			if d := amountDelta(k.amount, r.amount); d != "" {
				m.outcome, m.delta = AmountMismatch, d
				m.note = "call amount ≠ txnChargedValue"
			} else {
				m.outcome = Matched
			}
		}
		c.matches = append(c.matches, m)
	}
	for i := 0; i < c.nPeriod; i++ {
		r := &c.recs[i]
		if r.flags&(recCR|recLinked) != 0 {
			continue
		}
		m := matchRow{outcome: StatementOnly, call: -1, rec: int32(i), ts: r.ts, note: "no call logged for this debit"}
		if r.client != "" && c.dupRefs[r.client] {
			m.outcome, m.note = DuplicateDebit, "externalRef debited more than once; no call logged for this debit"
		}
		c.matches = append(c.matches, m)
	}
	slices.SortStableFunc(c.matches, func(a, b matchRow) int { return cmp.Compare(a.ts, b.ts) })
	return nil
}

// amountDelta returns call − statement, or "" when they are equal.
func amountDelta(call, stmt string) string {
	a, err1 := svcapi.ParseAmount(call)
	b, err2 := svcapi.ParseAmount(stmt)
	if err1 != nil || err2 != nil {
		return "?"
	}
	if a.Equal(b) {
		return ""
	}
	return Money(a.Sub(b))
}

// checkReversals links every reversed record of the period to its reversal.
func (c *checker) checkReversals(ctx context.Context) error {
	q, err := c.db.PrepareContext(ctx, `SELECT txn_date_time, txn_charged_value FROM records
		WHERE svc_order_id = ? AND kind = 'statement' LIMIT 1`)
	if err != nil {
		return err
	}
	defer q.Close()
	for i := 0; i < c.nPeriod; i++ {
		r := &c.recs[i]
		if r.reversal == "" {
			continue
		}
		rv := reversalRow{rec: int32(i)}
		if j, ok := c.bySvc[r.reversal]; ok {
			rv.found, rv.revTS, rv.revAmt = true, fmtTS(c.recs[j].ts), c.recs[j].amount
		} else {
			err := q.QueryRowContext(ctx, r.reversal).Scan(&rv.revTS, &rv.revAmt)
			switch {
			case errors.Is(err, sql.ErrNoRows):
			case err != nil:
				return err
			default:
				rv.found = true
			}
		}
		c.reversals = append(c.reversals, rv)
	}
	return nil
}

// loadUnsettled reads the collect orders up to the period's end that have
// no settlement, aged against the as-of date.
func (c *checker) loadUnsettled(ctx context.Context) error {
	asOf, err := time.Parse(time.DateOnly, c.asOf)
	if err != nil {
		return err
	}
	rows, err := c.db.QueryContext(ctx, `SELECT svc_order_id, client_order_id, txn_date_time, txn_date, txn_charged_value
		FROM records WHERE kind = 'orders' AND txn_date <= ? AND settlement_svc_order_id = ''
		ORDER BY txn_date_time, svc_order_id`, c.to)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var u unsettledRow
		var d string
		if err := rows.Scan(&u.svc, &u.client, &u.ts, &d, &u.amount); err != nil {
			return err
		}
		td, err := time.Parse(time.DateOnly, d)
		if err != nil {
			return fmt.Errorf("order %s: txn_date %q: %w", u.svc, d, err)
		}
		if _, err := svcapi.ParseAmount(u.amount); err != nil {
			return fmt.Errorf("order %s: txnChargedValue: %w", u.svc, err)
		}
		u.age = max(0, int(asOf.Sub(td).Hours()/24))
		c.unsettled = append(c.unsettled, u)
	}
	return rows.Err()
}

// parseTS reads 'YYYY-MM-DD HH:MM:SS' as seconds (of a clock without zone:
// only order and differences matter).
func parseTS(s string) (int64, error) {
	if len(s) == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':' {
		n := func(i, j int) (int, bool) {
			v := 0
			for _, ch := range s[i:j] {
				if ch < '0' || ch > '9' {
					return 0, false
				}
				v = v*10 + int(ch-'0')
			}
			return v, true
		}
		y, ok1 := n(0, 4)
		mo, ok2 := n(5, 7)
		d, ok3 := n(8, 10)
		h, ok4 := n(11, 13)
		mi, ok5 := n(14, 16)
		se, ok6 := n(17, 19)
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 {
			return time.Date(y, time.Month(mo), d, h, mi, se, 0, time.UTC).Unix(), nil
		}
	}
	return 0, fmt.Errorf("timestamp %q: want YYYY-MM-DD HH:MM:SS", s)
}

func fmtTS(v int64) string { return time.Unix(v, 0).UTC().Format(svcapi.TimestampLayout) }
