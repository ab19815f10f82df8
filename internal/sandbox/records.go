package sandbox

// stmtRec is one plain-statement record ready to be written.
type stmtRec struct {
	date       string
	sec        int32
	orderID    string
	ref        string
	txnID      string
	prod       uint8
	credit     bool
	charged    int64
	orderValue int64
	fee        int64
	closing    int64
	reversal   string
	number     bool // orderValue and convenienceFee as JSON numbers
	narration  string
	subCode    string // the subProductCode when not the product's: a transfer's mode
}

// liveRec is a statement record made by a live call.
type liveRec struct {
	stmtRec
	seq int
}

// recordRun is the generated records [from, from+len(slots)) a client sees
// of a day (less those drift hides): the slots that carry them.
type recordRun struct {
	dd    *dayData
	from  int
	slots []int32
}

// records generates the visible generated records [from, to) of day d
// (0..days), hidden telling whether drift hides some.
func (w *world) records(d, from, to int, hidden bool) *recordRun {
	run := &recordRun{from: from, slots: make([]int32, 0, to-from)}
	if d == w.days { // the post day: one record at most
		run.dd = w.genDay(d, w.dayOpen[d])
		run.slots = append(run.slots, run.dd.recs[from:to]...)
		return run
	}
	ix := &w.index[d]
	pos := visiblePositions(w.dayRecs[d], from, to, hidden)
	// Record position p is slot p plus the slots without a record up to it.
	slot, nr, p := int32(pos[0]), 0, pos[0]
	for nr < len(ix.noRecord) && ix.noRecord[nr] <= slot {
		slot++
		nr++
	}
	for _, want := range pos {
		for ; p < want; p++ {
			slot++
			for nr < len(ix.noRecord) && ix.noRecord[nr] == slot {
				slot++
				nr++
			}
		}
		run.slots = append(run.slots, slot)
	}
	run.dd = w.slotRange(d, run.slots[0], run.slots[len(run.slots)-1]+1)
	return run
}

// sec is the second of visible record v of the run.
func (r *recordRun) sec(v int) int32 { return r.dd.slot(r.slots[v-r.from]).sec }

// record renders visible record v of the run.
func (r *recordRun) record(w *world, v int) stmtRec { return w.slotRecord(r.dd, r.slots[v-r.from]) }

// slotRecord renders slot i of a generated day as a statement record.
func (w *world) slotRecord(dd *dayData, i int32) stmtRec {
	s := dd.slot(i)
	p := &products[s.prod]
	r := stmtRec{date: dd.ds.date, sec: s.sec, orderID: w.orderID(dd, i), prod: s.prod,
		charged: s.amount, orderValue: s.amount, closing: s.close, number: s.flags&flagNumber != 0,
		txnID: w.txnID(dd.dn, i), narration: p.subCode}
	if s.kind == sCR {
		r.credit = true
		r.narration = "REVERSAL"
		if dd.d == w.days {
			r.ref = w.postRef
		} else {
			r.ref = w.ref(dd, s.refOf)
		}
	} else {
		r.ref = w.ref(dd, s.refOf)
	}
	if s.kind == sMidnightRec {
		r.orderID, r.ref = w.mid.svc, w.mid.ref
	}
	switch s.prod {
	case prodFundTransfer:
		r.orderValue = s.extra
		r.fee = s.amount - s.extra
		r.subCode = transferModes[s.sub]
	case prodBrandOrder:
		r.orderValue = s.extra
	}
	switch s.kind {
	case sMismatch:
		r.charged, r.orderValue = s.extra, s.extra
	case sPaisa:
		r.charged, r.orderValue = r.charged-paisaDelta, r.orderValue-paisaDelta
	case sSplit:
		r.charged, r.orderValue = s.amount-splitPartOf(s.amount), s.amount-splitPartOf(s.amount)
	}
	if s.flags&flagReversed != 0 {
		if s.link < 0 {
			r.reversal = w.orderID(&dayData{ds: newDayStrings(w.startDN + w.days)}, 0)
		} else {
			r.reversal = w.orderID(dd, s.link)
		}
	}
	return r
}

func (w *world) txnID(dn int, i int32) string {
	b := make([]byte, 0, 16)
	b = append(b, "TX"...)
	return string(appendPad(b, int64(mix(w.seed, uint64(dn), uint64(i), 7)%1_000_000_000_000), 12))
}

// appendStatementRecord writes r as a plain-statement record.
func appendStatementRecord(b []byte, r *stmtRec) []byte {
	p := &products[r.prod]
	b = append(b, `{"status":"SUCCESS","txnDateTime":"`...)
	b = appendTimestamp(b, r.date, r.sec)
	b = append(b, `","svcOrderId":`...)
	b = appendStr(b, r.orderID)
	b = append(b, `,"clientOrderId":`...)
	b = appendStr(b, r.ref)
	b = append(b, `,"transactionId":`...)
	b = appendStr(b, r.txnID)
	b = append(b, `,"productCode":`...)
	b = appendStr(b, p.code)
	b = append(b, `,"productName":`...)
	b = appendStr(b, p.name)
	b = append(b, `,"subProductCode":`...)
	if r.subCode != "" {
		b = appendStr(b, r.subCode)
	} else {
		b = appendStr(b, p.subCode)
	}
	b = append(b, `,"subProductName":`...)
	if p.subName == "" {
		b = append(b, "null"...)
	} else {
		b = appendStr(b, p.subName)
	}
	if r.credit {
		b = append(b, `,"txnMode":"CR","txnChargedValue":`...)
	} else {
		b = append(b, `,"txnMode":"DR","txnChargedValue":`...)
	}
	b = appendAmounts(b, r.charged, r.orderValue, r.fee, r.number)
	b = append(b, `"narrationValue0":`...)
	b = appendStr(b, r.narration)
	b = append(b, `,"narrationValue1":`...)
	b = appendStr(b, r.ref)
	b = append(b, `,"narrationValue2":"","narrationValue3":"","narrationValue4":"","narrationValue5":"","narrationValue6":"","narrationValue7":"","narrationValue8":"","narrationValue9":"","responseCode":"00","responseMsg":"Transaction Successful","reversalSvcOrderId":`...)
	b = appendStr(b, r.reversal)
	b = append(b, `,"closingBalance":`...)
	b = appendAmount(b, r.closing, false)
	return append(b, '}')
}
