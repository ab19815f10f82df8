package sandbox

import (
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// MaxRecordsPerPage is the largest page the sandbox serves; larger
// recordsPerPage values are capped (meta.recordsPerPage says so).
const MaxRecordsPerPage = 1000

// defaultBillersPerPage is the biller page size when none is asked for.
const defaultBillersPerPage = 50

type revealKey struct {
	orders bool
	dn     int
}

// dayCount is one day of a report range with its visible records.
type dayCount struct {
	dn     int
	n      int
	hidden bool // drift: some records are still hidden
}

// paging reads pagination.pageNumber and recordsPerPage.
func paging(f map[string]any, defPer int) (page, per int, capped bool, bad string) {
	page, per = 1, defPer
	if v := reqText(f, "pagination.pageNumber", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, false, "pagination.pageNumber: want a page number from 1, got " + strconv.Quote(v)
		}
		page = n
	}
	if v := reqText(f, "pagination.recordsPerPage", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, false, "pagination.recordsPerPage: want a positive number, got " + strconv.Quote(v)
		}
		per = n
	}
	if per > MaxRecordsPerPage {
		per, capped = MaxRecordsPerPage, true
	}
	return page, per, capped, ""
}

// driftHidden reports whether record position p of a day with n records is
// one of the records hidden until the day's first page was served.
func driftHidden(n, p int) bool {
	h := max(1, n/100)
	if n < 4 {
		return false
	}
	step := (n / 2) / h
	if step < 1 {
		step = 1
	}
	q := p - n/4
	return q >= 0 && q%step == 0 && q/step < h
}

// driftCount is how many records of a day with n records drift.
func driftCount(n int) int {
	if n < 4 {
		return 0
	}
	return max(1, n/100)
}

func (s *Sandbox) serveStatement(w http.ResponseWriter, req *request) {
	f := req.fields
	orders := req.op.Name == svcapi.OpCollectOrders
	if acct := reqText(f, "accountNumber", ""); acct != s.creds.Account {
		s.fail(w, http.StatusOK, codeError, "accountNumber "+acct+" is not linked to this client")
		return
	}
	page, per, capped, bad := paging(f, MaxRecordsPerPage)
	if bad != "" {
		s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: "+bad)
		return
	}
	from, _ := time.ParseInLocation(time.DateOnly, reqText(f, "filters.txnDateFrom", ""), recon.IST)
	to, _ := time.ParseInLocation(time.DateOnly, reqText(f, "filters.txnDateTo", ""), recon.IST)
	fromDN, toDN := dayNumber(from), dayNumber(to)
	if toDN < fromDN {
		s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: filters.txnDateFrom is after filters.txnDateTo")
		return
	}
	s.mu.Lock()
	drift := s.faults.PageDrift
	var days []dayCount
	if orders {
		for dn := max(fromDN, s.w.ordStart); dn <= min(toDN, s.w.endDN()); dn++ {
			dc := dayCount{dn: dn, n: s.w.opts.OrdersPerDay}
			if drift && !s.revealed[revealKey{true, dn}] {
				dc.n -= driftCount(dc.n)
				dc.hidden = true
			}
			days = append(days, dc)
		}
	} else {
		for dn := max(fromDN, s.w.startDN); dn <= min(toDN, s.w.startDN+s.w.days); dn++ {
			d := dn - s.w.startDN
			dc := dayCount{dn: dn, n: s.w.dayRecs[d] + len(s.live[dn])}
			if drift && d < s.w.days && !s.revealed[revealKey{false, dn}] {
				dc.n -= driftCount(s.w.dayRecs[d])
				dc.hidden = true
			}
			days = append(days, dc)
		}
		for dn, recs := range s.live {
			if dn >= fromDN && dn <= toDN && dn > s.w.startDN+s.w.days {
				days = append(days, dayCount{dn: dn, n: len(recs)})
			}
		}
		sort.Slice(days, func(i, j int) bool { return days[i].dn < days[j].dn })
	}
	if page == 1 && drift {
		for _, dc := range days {
			s.revealed[revealKey{orders, dc.dn}] = true
		}
	}
	s.mu.Unlock()

	total := 0
	for _, dc := range days {
		total += dc.n
	}
	b := make([]byte, 0, 1024+min(per, max(total, 1))*900)
	b = append(b, `{"meta":`...)
	b = appendMeta(b, total, page, per, capped)
	b = append(b, `,"records":[`...)
	first := true
	off := (page - 1) * per
	left := per
	for _, dc := range days {
		if left == 0 {
			break
		}
		if off >= dc.n {
			off -= dc.n
			continue
		}
		end := min(dc.n, off+left)
		if orders {
			b = s.appendOrders(b, dc, off, end, &first)
		} else {
			b = s.appendStatement(b, dc, off, end, &first)
		}
		left -= end - off
		off = 0
	}
	b = append(b, "]}"...)
	s.ok(w, "Statement fetched", b, "")
}

// appendMeta writes the page meta; on every third page the numbers are
// strings (the spec's number-or-string mixing).
func appendMeta(b []byte, total, page, per int, capped bool) []byte {
	pages := (total + per - 1) / per
	on, fromRec, toRec := 0, 0, 0
	if page <= pages {
		fromRec = (page-1)*per + 1
		toRec = min(total, page*per)
		on = toRec - fromRec + 1
	}
	asText := page%3 == 2
	num := func(b []byte, k string, v int) []byte {
		b = appendKey(b, k)
		if asText {
			b = append(b, '"')
			b = strconv.AppendInt(b, int64(v), 10)
			return append(b, '"')
		}
		return strconv.AppendInt(b, int64(v), 10)
	}
	for i, f := range []struct {
		k string
		v int
	}{{"totalPages", pages}, {"currentPage", page}, {"totalRecords", total}, {"recordsOnCurrentPage", on},
		{"recordFrom", fromRec}, {"recordTo", toRec}, {"recordsPerPage", per}} {
		if i == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = num(b, f.k, f.v)
	}
	if capped {
		b = append(b, `,"notice":"recordsPerPage capped at 1000"`...)
	}
	return append(b, '}')
}

// appendStatement writes visible records [from, to) of a statement day.
func (s *Sandbox) appendStatement(b []byte, dc dayCount, from, to int, first *bool) []byte {
	d := dc.dn - s.w.startDN
	var dd *dayData
	if d >= 0 && d <= s.w.days {
		dd = s.w.day(d)
	}
	s.mu.Lock()
	live := s.live[dc.dn]
	s.mu.Unlock()
	sep := func() {
		if !*first {
			b = append(b, ',')
		}
		*first = false
	}
	if dd != nil && !dc.hidden && len(live) == 0 {
		for k := from; k < to; k++ {
			r := s.w.slotRecord(dd, dd.recs[k])
			sep()
			b = appendStatementRecord(b, &r)
		}
		return b
	}
	// Merge the generated records still visible with the live ones.
	var gen []int32
	if dd != nil {
		gen = dd.recs
		if dc.hidden {
			gen = make([]int32, 0, len(dd.recs))
			for p, si := range dd.recs {
				if !driftHidden(len(dd.recs), p) {
					gen = append(gen, si)
				}
			}
		}
	}
	gi, li := 0, 0
	for k := 0; k < to; k++ {
		useGen := gi < len(gen) && (li >= len(live) || dd.slots[gen[gi]].sec <= live[li].sec)
		if k < from {
			if useGen {
				gi++
			} else {
				li++
			}
			continue
		}
		sep()
		if useGen {
			r := s.w.slotRecord(dd, gen[gi])
			b = appendStatementRecord(b, &r)
			gi++
		} else {
			b = appendStatementRecord(b, &live[li].stmtRec)
			li++
		}
	}
	return b
}

// appendOrders writes visible collect orders [from, to) of a day.
func (s *Sandbox) appendOrders(b []byte, dc dayCount, from, to int, first *bool) []byte {
	os := s.w.genOrders(dc.dn)
	ds := newDayStrings(dc.dn)
	k := 0
	for i := range os {
		if dc.hidden && driftHidden(len(os), i) {
			continue
		}
		if k >= from && k < to {
			if !*first {
				b = append(b, ',')
			}
			*first = false
			b = s.w.appendOrderRecord(b, &ds, dc.dn, i, &os[i])
		}
		k++
	}
	return b
}

func (s *Sandbox) serveBillers(w http.ResponseWriter, req *request) {
	f := req.fields
	page, per, capped, bad := paging(f, defaultBillersPerPage)
	if bad != "" {
		s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: "+bad)
		return
	}
	after := -1 << 31
	if v := reqText(f, "filters.updatedAfterDate", ""); v != "" {
		t, err := time.ParseInLocation(time.DateOnly, v, recon.IST)
		if err != nil {
			s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: filters.updatedAfterDate: want YYYY-MM-DD, got "+strconv.Quote(v))
			return
		}
		after = dayNumber(t)
	}
	cat := reqText(f, "filters.categoryKey", "")
	var sel []*biller
	for i := range s.w.billers {
		x := &s.w.billers[i]
		if x.updatedDN > after && (cat == "" || x.catKey == cat) {
			sel = append(sel, x)
		}
	}
	b := make([]byte, 0, 1024+per*300)
	b = append(b, `{"meta":`...)
	b = appendMeta(b, len(sel), page, per, capped)
	b = append(b, `,"records":[`...)
	for k := (page - 1) * per; k < min(len(sel), page*per); k++ {
		if k > (page-1)*per {
			b = append(b, ',')
		}
		b = s.w.appendBiller(b, sel[k])
	}
	b = append(b, "]}"...)
	s.ok(w, "Billers fetched", b, "")
}
