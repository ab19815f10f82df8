package ledger

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Record flags.
const (
	recCR            = 1 << iota // a credit (reversal) record
	recLinked                    // linked to some call
	recLinkedDebit               // linked to a call carrying a pool debit
	recOutside                   // outside the period: looked up for a call
	recLinkedPending             // linked to a pending call
)

// Where a record stands relative to the window (wrec.far).
const (
	inWindow   = iota // loaded, in memory (or deferred)
	farFuture         // after the window: not loaded yet (its marks wait in premarks)
	farPast           // before the window, finished: linked to a debit already
	farOutside        // outside the period
)

// wrec is a statement record as the check keeps it.
type wrec struct {
	id       int64
	account  string
	svc      string
	client   string
	reversal string
	product  string // productCode ("" when the statement gives none)
	status   string // status ("" when not read)
	amount   decimal.Decimal
	money    string // amount as recon.Money writes it
	ts       int64
	flags    uint8
	far      uint8
	until    int64 // deferred: finished once the calls pass this time
	// one backs the window's list of the records of a clientOrderId that
	// has this one alone (most of them): no slice allocated per record.
	one [1]*wrec
}

func (r *wrec) cr() bool          { return r.flags&recCR != 0 }
func (r *wrec) linked() bool      { return r.flags&recLinked != 0 }
func (r *wrec) linkedDebit() bool { return r.flags&recLinkedDebit != 0 }

// key names a record uniquely (account and svcOrderId).
func (r *wrec) key() string { return r.account + "\x00" + r.svc }

func isCR(mode string) bool { return strings.EqualFold(strings.TrimSpace(mode), "CR") }

// recordSpan is how far in time, in seconds, from the call at hand the
// check keeps the period's statement records in memory: a call's record
// is posted within seconds of its answer, so nearly every link is found
// there. A record whose counterpart lies further away is found by key;
// one that may still be linked by a later call stays in memory, deferred,
// until that call has passed.
const recordSpan = 15 * 60

// recordOut is where the record window hands the records on (the
// pipeline: to the duplicates, suggested-pairs, reversals and gap stages).
type recordOut interface {
	// debitRecord: a debit record with clientOrderId client entered the
	// window.
	debitRecord(client string) error
	// finished: record r left the window, its links known; rev is its
	// reversal record when the window holds it (else nil).
	finished(r, rev *wrec) error
}

// windowFinder is the record window's look-ups (Finder).
type windowFinder interface {
	LaterCalls(ctx context.Context, svcOrderID, clientOrderID, from string) (string, bool, error)
	OutsideCall(ctx context.Context, svcOrderID, clientOrderID string) (found, debit bool, err error)
}

// recWindow holds the period's statement records within span seconds of
// the call at hand, read from a stream in time order, indexed by
// svcOrderId and (debits) clientOrderId for linking.
//
// A record leaving the window is finished (its links are known) unless it
// may still be linked by a later call (it is not linked to a debit, and
// some later call names its svcOrderId or clientOrderId): then it stays,
// deferred, until that call has passed. A call whose record is not in
// memory looks it up by key: such a record is either after the window
// (its marks wait in premarks until it is read) or before it, finished and
// linked to a debit already (else it would have been deferred).
type recWindow struct {
	ctx            context.Context
	find           windowFinder
	out            recordOut
	span           int64           // recordSpan
	resolvedOrders map[string]bool // the load stage's: a record pending calls were resolved to waits for the end
	now            string          // the time of the call at hand (LaterCalls)
	next           func() (Record, error, bool)
	live           *liveness // stops reading when the check's context is done

	head     *wrec // the next record of the stream, not loaded yet
	done     bool  // the stream is exhausted
	loadedTo int64 // every record up to this time is loaded

	buf      []*wrec // loaded, in time order, from first on
	first    int
	bySvc    map[string]*wrec
	byClient map[string][]*wrec // debit records, in time order
	deferred []*wrec
	premarks map[string]uint8 // marks for records not loaded yet, by key

	records  int             // records finished
	credited decimal.Decimal // the CR records' amounts
}

func newRecWindow(ctx context.Context, find windowFinder, out recordOut, next func() (Record, error, bool)) *recWindow {
	return &recWindow{ctx: ctx, find: find, out: out, span: recordSpan, next: next, loadedTo: math.MinInt64,
		bySvc: map[string]*wrec{}, byClient: map[string][]*wrec{}, premarks: map[string]uint8{}}
}

// compact reads the fields of a record the check uses.
func compact(r *Record) (*wrec, error) {
	w := &wrec{id: r.ID, account: r.Account, svc: r.SvcOrderID, client: r.ClientOrderID, reversal: r.ReversalSvcOrderID,
		product: r.ProductCode, status: r.Status}
	var err error
	if w.ts, err = parseTS(r.TxnDateTime); err != nil {
		return nil, fmt.Errorf("record %s: %w", w.svc, err)
	}
	if w.amount, err = svcapi.ParseAmount(r.Amount); err != nil {
		return nil, fmt.Errorf("record %s: txnChargedValue: %w", w.svc, err)
	}
	w.money = moneyText(r.Amount, w.amount)
	if isCR(r.TxnMode) {
		w.flags |= recCR
	}
	return w, nil
}

// peek reads the stream's next record into head.
func (w *recWindow) peek() error {
	if w.head != nil || w.done {
		return nil
	}
	if err := w.live.check(); err != nil {
		return err
	}
	r, err, ok := w.next()
	switch {
	case !ok:
		w.done = true
		return nil
	case err != nil:
		return fmt.Errorf("read statement records: %w", err)
	}
	w.head, err = compact(&r)
	return err
}

// advance moves the window to the call at time t: the records up to
// t+span are loaded, those before t-span leave, and the deferred records
// whose last call has passed are finished.
func (w *recWindow) advance(t int64) error {
	for i := 0; i < len(w.deferred); {
		if r := w.deferred[i]; r.until < t {
			w.deferred = append(w.deferred[:i], w.deferred[i+1:]...)
			w.forget(r)
			if err := w.finish(r); err != nil {
				return err
			}
			continue
		}
		i++
	}
	hi, lo := t+w.span, t-w.span
	for {
		if err := w.peek(); err != nil {
			return err
		}
		if w.head == nil || w.head.ts > hi {
			break
		}
		r := w.head
		w.head = nil
		if err := w.load(r); err != nil {
			return err
		}
		if err := w.evict(lo, false); err != nil {
			return err
		}
	}
	w.loadedTo = max(w.loadedTo, hi)
	return w.evict(lo, false)
}

// load adds a record to the window.
func (w *recWindow) load(r *wrec) error {
	if len(w.premarks) > 0 {
		if m, ok := w.premarks[r.key()]; ok {
			r.flags |= m
			delete(w.premarks, r.key())
		}
	}
	if r.cr() {
		w.credited = w.credited.Add(r.amount)
	} else if r.client != "" {
		if list := w.byClient[r.client]; list != nil {
			w.byClient[r.client] = append(list, r)
		} else {
			r.one[0] = r
			w.byClient[r.client] = r.one[:1:1]
		}
		if err := w.out.debitRecord(r.client); err != nil {
			return err
		}
	}
	w.bySvc[r.svc] = r
	if w.first > 0 && w.first >= len(w.buf)/2 {
		n := copy(w.buf, w.buf[w.first:])
		clear(w.buf[n:])
		w.buf, w.first = w.buf[:n], 0
	}
	w.buf = append(w.buf, r)
	return nil
}

// evict lets the records before lo leave the window (all of them when
// all): each is finished, or deferred when a later call may still link it.
func (w *recWindow) evict(lo int64, all bool) error {
	for w.first < len(w.buf) && (all || w.buf[w.first].ts < lo) {
		r := w.buf[w.first]
		w.buf[w.first] = nil
		w.first++
		later, until, err := w.laterLink(r, all)
		if err != nil {
			return err
		}
		if later {
			r.until = until
			w.deferred = append(w.deferred, r)
			continue
		}
		w.forget(r)
		if err := w.finish(r); err != nil {
			return err
		}
	}
	return nil
}

// laterLink says whether a later call may still link record r, and until
// when: a record linked to a debit (or a credit) keeps its outcome
// whatever comes, others wait for the later calls that name them.
func (w *recWindow) laterLink(r *wrec, callsDone bool) (bool, int64, error) {
	if callsDone || r.cr() || r.linkedDebit() {
		return false, 0, nil
	}
	if w.resolvedOrders[r.svc] {
		return true, math.MaxInt64, nil // a pending call resolved to it: wait for the end
	}
	last, found, err := w.find.LaterCalls(w.ctx, r.svc, r.client, w.now)
	if err != nil || !found {
		return false, 0, err
	}
	t, err := parseTS(last)
	if err != nil {
		return true, math.MaxInt64, nil
	}
	return true, t, nil
}

// forget removes a finished record from the indexes.
func (w *recWindow) forget(r *wrec) {
	if w.bySvc[r.svc] == r {
		delete(w.bySvc, r.svc)
	}
	if r.client == "" || r.cr() {
		return
	}
	list := w.byClient[r.client]
	for i, o := range list {
		if o == r {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(w.byClient, r.client)
	} else {
		w.byClient[r.client] = list
	}
}

// drain ends the window after the last call: every record left is read,
// and every record finished.
func (w *recWindow) drain() error {
	for {
		if err := w.peek(); err != nil {
			return err
		}
		if w.head == nil {
			break
		}
		r := w.head
		w.head = nil
		if err := w.load(r); err != nil {
			return err
		}
		if err := w.evict(0, true); err != nil {
			return err
		}
	}
	if err := w.evict(0, true); err != nil {
		return err
	}
	for len(w.deferred) > 0 {
		r := w.deferred[0]
		w.deferred = w.deferred[1:]
		w.forget(r)
		if err := w.finish(r); err != nil {
			return err
		}
	}
	w.loadedTo = math.MaxInt64
	return nil
}

// deferredIn reports whether a deferred record lies in [from, to].
func (w *recWindow) deferredIn(from, to int64) bool {
	for _, r := range w.deferred {
		if r.ts >= from && r.ts <= to {
			return true
		}
	}
	return false
}

// settled reports whether every record of [from, to] has finished.
func (w *recWindow) settled(from, to int64) bool { return to < w.frontier() && !w.deferredIn(from, to) }

// frontier is the time before which every record is finished or deferred.
func (w *recWindow) frontier() int64 {
	if w.first < len(w.buf) {
		return w.buf[w.first].ts
	}
	if w.head != nil {
		return w.head.ts
	}
	if w.done {
		return math.MaxInt64
	}
	return w.loadedTo
}

// far returns the record rec found by key: the window's own when it holds
// it, else a record standing for it (after the window: with the marks
// waiting for it; before it: finished, linked to a debit).
func (w *recWindow) far(rec *Record) (*wrec, error) {
	if r, ok := w.bySvc[rec.SvcOrderID]; ok && r.id == rec.ID {
		return r, nil
	}
	for _, r := range w.deferred {
		if r.id == rec.ID {
			return r, nil
		}
	}
	r, err := compact(rec)
	if err != nil {
		return nil, err
	}
	if r.ts > w.loadedTo {
		r.far = farFuture
		r.flags |= w.premarks[r.key()]
	} else {
		r.far = farPast
		r.flags |= recLinked | recLinkedDebit
	}
	return r, nil
}

// mark records that record r is linked to a call: a debit when debit, a
// pending call when pending.
func (w *recWindow) mark(r *wrec, debit, pending bool) {
	if r == nil {
		return
	}
	f := uint8(recLinked)
	if debit {
		f |= recLinkedDebit
	}
	if pending {
		f |= recLinkedPending
	}
	r.flags |= f
	if r.far == farFuture {
		w.premarks[r.key()] |= f
	}
}

// finish is the end of a record's time in the window: its links are
// known. A debit no call links is looked for among the calls outside the
// period; then the record is handed on.
func (w *recWindow) finish(r *wrec) error {
	w.records++
	if !r.cr() && !r.linked() {
		found, debit, err := w.find.OutsideCall(w.ctx, r.svc, r.client)
		if err != nil {
			return err
		}
		if found {
			r.flags |= recLinked
			if debit {
				r.flags |= recLinkedDebit
			}
		}
	}
	var rev *wrec
	if r.reversal != "" {
		rev = w.bySvc[r.reversal]
	}
	return w.out.finished(r, rev)
}
