package ledger

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// accounts numbers the pool accounts a check meets, in order of meeting.
type accounts struct {
	names []string
	idx   map[string]uint16
}

func newAccounts() *accounts { return &accounts{idx: map[string]uint16{}} }

// id returns the number of account name, numbering it when it is new.
func (a *accounts) id(name string) uint16 {
	if i, ok := a.idx[name]; ok {
		return i
	}
	a.names = append(a.names, name)
	i := uint16(len(a.names) - 1)
	a.idx[name] = i
	return i
}

// Record flags.
const (
	recCR            = 1 << iota // a credit (reversal) record
	recLinked                    // linked to some call
	recLinkedDebit               // linked to a call carrying a pool debit
	recOutside                   // outside the period: looked up for a call
	recLinkedPending             // linked to a pending call
)

// srec is a statement record, compactly.
type srec struct {
	svc      string
	client   string
	reversal string
	product  string          // productCode ("" when the statement gives none)
	amount   decimal.Decimal // txnChargedValue
	ts       int64
	acct     uint16
	flags    uint8
	next     int32 // next DR record with the same clientOrderId, -1
}

// book holds the statement records a check reads, indexed for matching:
// the period's records in time order (recs[:nPeriod]), then the records
// outside the period that calls of the period were linked to.
type book struct {
	accts      *accounts
	recs       []srec
	nPeriod    int
	bySvc      map[string]int32
	byClient   map[string]int32 // first DR record of a clientOrderId
	lastClient map[string]int32
	credited   decimal.Decimal   // the period's CR records
	products   map[string]string // interned product codes
}

func newBook(accts *accounts) *book {
	return &book{accts: accts, bySvc: map[string]int32{}, byClient: map[string]int32{}, lastClient: map[string]int32{},
		products: map[string]string{}}
}

// compact reads the fields of a record the check uses.
func (b *book) compact(r *recon.Record) (srec, error) {
	s := srec{svc: r.SvcOrderID, client: r.Get(recon.FClientOrderID), reversal: r.Get(recon.FReversalSvcOrderID), next: -1}
	if p := r.Get(recon.FProductCode); p != "" {
		if q, ok := b.products[p]; ok {
			s.product = q
		} else {
			b.products[p], s.product = p, p
		}
	}
	var err error
	if s.ts, err = parseTS(r.Get(recon.FTxnDateTime)); err != nil {
		return s, fmt.Errorf("record %s: %w", s.svc, err)
	}
	if s.amount, err = svcapi.ParseAmount(r.Get(recon.FTxnChargedValue)); err != nil {
		return s, fmt.Errorf("record %s: txnChargedValue: %w", s.svc, err)
	}
	return s, nil
}

// addPeriod adds the period's next record (in txnDateTime, svcOrderId order).
func (b *book) addPeriod(r *recon.Record) error {
	s, err := b.compact(r)
	if err != nil {
		return err
	}
	s.acct = b.accts.id(r.Account)
	i := int32(len(b.recs))
	if isCR(r.Get(recon.FTxnMode)) {
		s.flags |= recCR
		b.credited = b.credited.Add(s.amount)
	} else if s.client != "" {
		if last, ok := b.lastClient[s.client]; ok {
			b.recs[last].next = i
		} else {
			b.byClient[s.client] = i
		}
		b.lastClient[s.client] = i
	}
	b.recs = append(b.recs, s)
	b.bySvc[s.svc] = i
	b.nPeriod = len(b.recs)
	return nil
}

// addOutside adds a record from outside the period that a call links to,
// and returns its index (the period's own when it is one of them after all).
func (b *book) addOutside(r *recon.Record) (int32, error) {
	if i, ok := b.bySvc[r.SvcOrderID]; ok {
		return i, nil // in the period after all (a CR mode spelled oddly is not)
	}
	s, err := b.compact(r)
	if err != nil {
		return -1, err
	}
	s.flags = recOutside
	b.recs = append(b.recs, s)
	i := int32(len(b.recs) - 1)
	b.bySvc[s.svc] = i
	return i, nil
}

// period returns the period's records, in time order.
func (b *book) period() []srec { return b.recs[:b.nPeriod] }

func isCR(mode string) bool { return strings.EqualFold(strings.TrimSpace(mode), "CR") }

// link returns the DR record a call links to: by orderid, else by
// externalRef = clientOrderId (the first such record not yet linked to a
// debit), or -1.
func (b *book) link(orderID, ref string) int32 {
	if orderID != "" {
		if i, ok := b.bySvc[orderID]; ok && b.recs[i].flags&recCR == 0 {
			return i
		}
	}
	if ref != "" {
		first, ok := b.byClient[ref]
		if !ok {
			return -1
		}
		for i := first; i >= 0; i = b.recs[i].next {
			if b.recs[i].flags&recLinkedDebit == 0 {
				return i
			}
		}
		return first
	}
	return -1
}

// mark records that record i is linked to a call: a debit when debit, a
// pending call when pending.
func (b *book) mark(i int32, debit, pending bool) {
	if i < 0 {
		return
	}
	b.recs[i].flags |= recLinked
	if debit {
		b.recs[i].flags |= recLinkedDebit
	}
	if pending {
		b.recs[i].flags |= recLinkedPending
	}
}
