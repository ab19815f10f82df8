package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// WriteCallLog streams the client's call log of the history (JSONL, the
// design's format) to w: one line per billable call of the period, in the
// order the calls were made ("at"), with the planted defects. Requests and
// responses are redacted as the client would have written them. Lines are
// rendered on several goroutines and written in order.
func (s *Sandbox) WriteCallLog(w io.Writer) error {
	type chunk struct {
		dd    *dayData
		lines []logLine
		out   chan []byte
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	jobs := make(chan *chunk)
	queue := make(chan *chunk, 2*workers)
	done := make(chan struct{})
	defer close(done)
	var failed atomic.Pointer[error]
	for range workers {
		go func() {
			for c := range jobs {
				var b []byte
				for _, l := range c.lines {
					line, err := s.w.renderCall(c.dd, l, s.creds.Account)
					if err != nil {
						failed.CompareAndSwap(nil, &err)
						break
					}
					b = append(append(b, line...), '\n')
				}
				c.out <- b
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer close(queue)
		for d := 0; d < s.w.days; d++ {
			dd := s.w.genDay(d, s.w.dayOpen[d])
			lines := s.w.dayLines(dd)
			for len(lines) > 0 {
				n := min(len(lines), 1024)
				c := &chunk{dd: dd, lines: lines[:n], out: make(chan []byte, 1)}
				lines = lines[n:]
				select {
				case queue <- c:
				case <-done:
					return
				}
				select {
				case jobs <- c:
				case <-done:
					return
				}
			}
		}
	}()
	for c := range queue {
		b := <-c.out
		if p := failed.Load(); p != nil {
			return fmt.Errorf("write call log, day %s: %w", c.dd.ds.date, *p)
		}
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("write call log: %w", err)
		}
	}
	return nil
}

// logLine is one call line of a day before it is rendered.
type logLine struct {
	at     int64 // unix milliseconds of the request
	slot   int32
	failed bool // the failed attempt logged before the slot
}

// dayLines lists the call lines of a day in the order they were made.
func (w *world) dayLines(dd *dayData) []logLine {
	base := dayTime(dd.dn).UnixMilli()
	lines := make([]logLine, 0, dd.calls)
	for i := range dd.slots {
		s := &dd.slots[i]
		resp := base + int64(s.sec)*1000 + int64(s.ms)
		if s.kind.hasPoolCall() || s.kind == sPending {
			lines = append(lines, logLine{at: resp - int64(s.lat), slot: int32(i)})
		}
		if s.flags&flagFailedBefore != 0 {
			back := 2000 + int64(mix(w.seed, uint64(dd.dn), uint64(i), 5)%18000)
			lines = append(lines, logLine{at: resp - back, slot: int32(i), failed: true})
		}
	}
	sort.SliceStable(lines, func(a, b int) bool { return lines[a].at < lines[b].at })
	return lines
}

// renderCall renders one call line.
func (w *world) renderCall(dd *dayData, l logLine, account string) ([]byte, error) {
	s := &dd.slots[l.slot]
	prod := s.prod
	ref := w.ref(dd, s.refOf)
	h := mix(w.seed, uint64(dd.dn), uint64(l.slot), 0xca11)
	lat := int64(s.lat)
	if l.failed {
		ref = "RF" + dd.ds.compact + string(appendPad(nil, int64(l.slot), 8))
		if s.fail == failDTX {
			prev := &dd.slots[l.slot-1]
			ref, prod = w.ref(dd, prev.refOf), prev.prod
		}
		lat = 150 + int64(h%900)
	}
	op, _ := svcapi.Lookup(products[prod].op)
	at := time.UnixMilli(l.at).In(recon.IST)
	respAt := at.Add(time.Duration(lat) * time.Millisecond)
	stamp := respAt.Format(recon.TimestampLayout)
	uuid := uuidFrom(mix(w.seed, uint64(dd.dn), uint64(l.slot), 3, b2u(l.failed)), mix(w.seed, uint64(dd.dn), uint64(l.slot), 4))
	req := genRequest(prod, ref, h, s.extra, s.sub)
	var env []byte
	switch {
	case l.failed:
		fc := failCodes[s.fail]
		env = buildEnvelope(fc.code, fc.status, nil, "", stamp, uuid)
	case s.kind == sPending:
		env = buildEnvelope(svcapi.StatusPending, "Transaction under process", nil, "", stamp, uuid)
	default:
		orderID := w.orderID(dd, l.slot)
		if s.kind == sOrphan || s.kind == sPaisa {
			// A proxy rewrote the body: the line lost its keys, the
			// statement still has its debit.
			ref, orderID = "", ""
			req = genRequest(prod, ref, h, s.extra, s.sub)
		}
		t := &txn{prod: prod, ref: ref, orderID: orderID, open: s.open, close: s.close, amount: s.amount,
			extra: s.extra, sub: s.sub, noAccount: s.flags&flagNoAccount != 0, number: s.flags&flagNumber != 0,
			h: h, req: req, at: respAt, forLog: true}
		if s.kind == sMismatch {
			t.extra = 0
		}
		data, err := json.Marshal(payload(t, account))
		if err != nil {
			return nil, err
		}
		env = buildEnvelope(svcapi.StatusSuccess, "Transaction Successful", data, orderID, stamp, uuid)
	}
	rq, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	// genRequest and payload (forLog) already redact what svcapi.Redact
	// would: biometric secrets, card PIN and number.
	// The line svcapi.CallRecord would marshal, written directly (same field
	// order and formats) because the call log of a big history is long.
	b := make([]byte, 0, len(rq)+len(env)+256)
	b = append(b, `{"at":"`...)
	b = at.AppendFormat(b, svcapi.CallTimeLayout)
	b = append(b, `","operation":`...)
	b = appendStr(b, op.Name)
	b = append(b, `,"method":`...)
	b = appendStr(b, op.Method)
	b = append(b, `,"path":`...)
	b = appendStr(b, op.Path)
	b = append(b, `,"externalRef":`...)
	b = appendStr(b, ref)
	b = append(b, `,"request":`...)
	b = append(b, rq...)
	b = append(b, `,"httpStatus":200,"latencyMs":`...)
	b = strconv.AppendInt(b, lat, 10)
	b = append(b, `,"response":`...)
	b = append(b, env...)
	return append(b, `,"error":""}`...), nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
