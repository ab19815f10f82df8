package ledger

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// The differences stage (design: field-level differences): a call and the
// record it is linked to by key (orderid, externalRef) may still disagree.
// Each call's row with a record is compared as it is written, field by
// field: the amount (not for a group's part: the group sums), the status
// (a debit the statement says did not succeed), the time (further apart
// than the pair window) and the product. The product is judged at the
// end: an operation's product is the productCode more than half of its
// linked rows show; a row of it showing another code differs. Each
// difference is a row of its own, naming the field and both values.

// maxProductRows bounds the rows the product comparison keeps per
// operation and productCode until the end (the rest are counted).
const maxProductRows = 1_000

// differ is the differences stage.
type differ struct {
	window int64 // seconds: the pair window
	emit   func(Difference)
	// seen are, per operation, per productCode, the linked rows showing it
	// (the first maxProductRows) and how many.
	seen map[string]map[string]*productRows
}

type productRows struct {
	n    int
	rows []Difference
}

func newDiffer(window time.Duration, emit func(Difference)) *differ {
	return &differ{window: int64(window / time.Second), emit: emit, seen: map[string]map[string]*productRows{}}
}

// pair compares a call's row m with the record it is linked to (k.rec).
func (d *differ) pair(k *kcall, m *Match) {
	r := k.rec
	if r == nil || k.pending {
		return
	}
	base := Difference{CallID: k.id, SvcOrderID: r.svc, ExternalRef: m.ExternalRef, Operation: k.op, TS: m.TS}
	if m.Group == "" && k.money != r.money {
		d.emit(base.with(recon.DiffAmount, k.money, r.money, amountDelta(k.amount, r.amount), "call amount ≠ txnChargedValue"))
	}
	if r.status != "" && !strings.EqualFold(r.status, "SUCCESS") {
		d.emit(base.with(recon.DiffStatus, "TXN", r.status, "", "the call succeeded and debited; the statement's status is "+r.status))
	}
	if dt := r.ts - k.ts; max(dt, -dt) > d.window {
		d.emit(base.with(recon.DiffTime, m.TS, fmtTS(r.ts), signedSeconds(dt),
			"the record is further from the call than the pair window "+fmtSeconds(d.window)))
	}
	if k.op != "" && r.product != "" {
		d.see(k.op, r.product, base)
	}
}

// see notes a linked row of operation op showing productCode code.
func (d *differ) see(op, code string, base Difference) {
	codes := d.seen[op]
	if codes == nil {
		codes = map[string]*productRows{}
		d.seen[op] = codes
	}
	p := codes[code]
	if p == nil {
		p = &productRows{}
		codes[code] = p
	}
	p.n++
	if len(p.rows) < maxProductRows {
		base.StatementValue = code
		p.rows = append(p.rows, base)
	}
}

// end writes the product differences: the rows of an operation whose
// productCode is not the one more than half of its rows show.
func (d *differ) end() {
	for _, op := range slices.Sorted(maps.Keys(d.seen)) {
		codes := d.seen[op]
		total, lead := 0, ""
		for code, p := range codes {
			total += p.n
			if lead == "" || p.n > codes[lead].n || p.n == codes[lead].n && code < lead {
				lead = code
			}
		}
		if 2*codes[lead].n <= total {
			continue // no productCode is the operation's own
		}
		for _, code := range slices.Sorted(maps.Keys(codes)) {
			p := codes[code]
			if code == lead {
				continue
			}
			note := fmt.Sprintf("%d of %d rows of %s show %s", codes[lead].n, total, op, lead)
			if p.n > len(p.rows) {
				note += fmt.Sprintf("; %d rows show %s, the first %d listed", p.n, code, len(p.rows))
			}
			for _, row := range p.rows {
				d.emit(row.with(recon.DiffProduct, lead, code, "", note))
			}
		}
	}
}

// with is the difference of field on base's pair.
func (b Difference) with(field, call, statement, diff, note string) Difference {
	b.Field, b.CallValue, b.StatementValue, b.Difference, b.Note = field, call, statement, diff, note
	return b
}

// signedSeconds is a time difference as "+25m" (the record after the
// call) or "-3s".
func signedSeconds(s int64) string {
	if s < 0 {
		return "-" + fmtSeconds(-s)
	}
	return "+" + fmtSeconds(s)
}
