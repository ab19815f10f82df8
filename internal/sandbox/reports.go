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

// statementQuery is a parsed statement or collect-order page request.
type statementQuery struct {
	orders       bool
	page, per    int
	capped       bool
	fromDN, toDN int
}

func (s *Sandbox) serveStatement(w http.ResponseWriter, req *request) {
	q, bad := s.parseStatement(req)
	if bad != "" {
		s.fail(w, http.StatusOK, codeParam, "Required parameter invalid: "+bad)
		return
	}
	if q == nil {
		s.fail(w, http.StatusOK, codeError, "accountNumber "+reqText(req.fields, "accountNumber", "")+" is not linked to this client")
		return
	}
	days := s.dayCounts(q)
	total := 0
	for _, dc := range days {
		total += dc.n
	}
	s.okPage(w, "Statement fetched", func(b []byte) []byte {
		b = append(b, `{"meta":`...)
		b = appendMeta(b, total, q.page, q.per, q.capped)
		b = append(b, `,"records":[`...)
		b = s.appendPage(b, q, days)
		return append(b, "]}"...)
	})
}

// parseStatement reads a statement or collect-order request: nil for an
// account not linked to the client, bad for an invalid field.
func (s *Sandbox) parseStatement(req *request) (q *statementQuery, bad string) {
	f := req.fields
	if reqText(f, "accountNumber", "") != s.creds.Account {
		return nil, ""
	}
	q = &statementQuery{orders: req.op.Name == svcapi.OpCollectOrders}
	if q.page, q.per, q.capped, bad = paging(f, MaxRecordsPerPage); bad != "" {
		return nil, bad
	}
	from, _ := time.ParseInLocation(time.DateOnly, reqText(f, "filters.txnDateFrom", ""), recon.IST)
	to, _ := time.ParseInLocation(time.DateOnly, reqText(f, "filters.txnDateTo", ""), recon.IST)
	q.fromDN, q.toDN = dayNumber(from), dayNumber(to)
	if q.toDN < q.fromDN {
		return nil, "filters.txnDateFrom is after filters.txnDateTo"
	}
	return q, ""
}

// dayCounts lists the days of the query's range that hold records, with
// how many each shows now; a page 1 reveals the records drift hid.
func (s *Sandbox) dayCounts(q *statementQuery) []dayCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	drift := s.faults.PageDrift
	var days []dayCount
	if q.orders {
		for dn := max(q.fromDN, s.w.ordStart); dn <= min(q.toDN, s.w.endDN()); dn++ {
			dc := dayCount{dn: dn, n: s.w.opts.OrdersPerDay}
			if drift && !s.revealed[revealKey{true, dn}] {
				dc.n -= driftCount(dc.n)
				dc.hidden = true
			}
			days = append(days, dc)
		}
	} else {
		for dn := max(q.fromDN, s.w.startDN); dn <= min(q.toDN, s.w.startDN+s.w.days); dn++ {
			d := dn - s.w.startDN
			dc := dayCount{dn: dn, n: s.w.dayRecs[d] + len(s.live[dn])}
			if drift && d < s.w.days && !s.revealed[revealKey{false, dn}] {
				dc.n -= driftCount(s.w.dayRecs[d])
				dc.hidden = true
			}
			days = append(days, dc)
		}
		for dn, recs := range s.live {
			if dn >= q.fromDN && dn <= q.toDN && dn > s.w.startDN+s.w.days {
				days = append(days, dayCount{dn: dn, n: len(recs)})
			}
		}
		sort.Slice(days, func(i, j int) bool { return days[i].dn < days[j].dn })
	}
	if q.page == 1 && drift {
		for _, dc := range days {
			s.revealed[revealKey{q.orders, dc.dn}] = true
		}
	}
	return days
}

// appendPage writes the records of the query's page: the days' records
// one after the other, the page cut from them.
func (s *Sandbox) appendPage(b []byte, q *statementQuery, days []dayCount) []byte {
	first := true
	off := (q.page - 1) * q.per
	left := q.per
	for _, dc := range days {
		if left == 0 {
			break
		}
		if off >= dc.n {
			off -= dc.n
			continue
		}
		end := min(dc.n, off+left)
		if q.orders {
			b = s.appendOrders(b, dc, off, end, &first)
		} else {
			b = s.appendStatement(b, dc, off, end, &first)
		}
		left -= end - off
		off = 0
	}
	return b
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

// appendStatement writes the records [from, to) of a statement day as it
// shows now: its generated records (less those drift hides) merged by time
// with its live ones, a generated record first within a second. Only the
// records written are generated, and the few before them that live records
// may push onto the page.
func (s *Sandbox) appendStatement(b []byte, dc dayCount, from, to int, first *bool) []byte {
	s.mu.Lock()
	live := s.live[dc.dn]
	s.mu.Unlock()
	sep := func() {
		if !*first {
			b = append(b, ',')
		}
		*first = false
	}
	d := dc.dn - s.w.startDN
	nGen := 0
	if d >= 0 && d <= s.w.days {
		nGen = s.w.dayRecs[d]
		if dc.hidden {
			nGen -= driftCount(nGen)
		}
	}
	if nGen == 0 {
		for k := from; k < to; k++ {
			sep()
			b = appendStatementRecord(b, &live[k].stmtRec)
		}
		return b
	}
	// The merge resumes at generated record g0 (g0+li records in): no more
	// than len(live) records before from, and before it exactly the live
	// records of the leading run earlier than it in time.
	g0 := min(max(0, from-len(live)), nGen-1)
	run := s.w.records(d, g0, min(to, nGen), dc.hidden)
	gi, li := g0, 0
	if g0 > 0 {
		for li < len(live) && live[li].sec < run.sec(g0) {
			li++
		}
	}
	for k := gi + li; k < to; k++ {
		useGen := gi < nGen && (li >= len(live) || run.sec(gi) <= live[li].sec)
		if k >= from {
			sep()
			if useGen {
				r := run.record(s.w, gi)
				b = appendStatementRecord(b, &r)
			} else {
				b = appendStatementRecord(b, &live[li].stmtRec)
			}
		}
		if useGen {
			gi++
		} else {
			li++
		}
	}
	return b
}

// appendOrders writes the collect orders [from, to) of a day as it shows
// now (less those drift hides), generating only those.
func (s *Sandbox) appendOrders(b []byte, dc dayCount, from, to int, first *bool) []byte {
	n := s.w.opts.OrdersPerDay
	pos := visiblePositions(n, from, to, dc.hidden)
	os := s.w.orderRange(dc.dn, pos[0], pos[len(pos)-1]+1)
	ds := newDayStrings(dc.dn)
	for _, i := range pos {
		if !*first {
			b = append(b, ',')
		}
		*first = false
		b = s.w.appendOrderRecord(b, &ds, dc.dn, i, &os[i-pos[0]])
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
