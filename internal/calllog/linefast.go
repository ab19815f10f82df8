package calllog

import (
	"bytes"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/internal/jsonscan"
	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// The lean decoder: one pass over a call-log line that validates its JSON
// and picks out only the fields a calls row holds, with no map and no
// struct of the whole line. It reads the common line (a call record whose
// answer is an ordinary envelope) and gives up on anything else: a bare
// envelope, a transaction-status look-up (whose answer is kept), a key
// that differs from the expected one only in case, a repeated key, an
// escaped key or value where a value is read, a value of another type, an
// amount that is not a plain decimal, and every bad line. parseLine, the
// full decoder, then reads the line; the two agree on every line the lean
// one reads (FuzzFastLine checks it).

// fastLine reads a trimmed line into the fields a calls row keeps (and
// those that decide them: at, error); ok is false when it gives up.
func fastLine(line []byte, secrets []string) (r recon.Call, ok bool) {
	if len(line) == 0 || line[0] != '{' {
		return r, false
	}
	var s lineScan
	if !s.scan(line) || s.top[kStatusCode].Set() {
		return r, false // not JSON, or a bare envelope
	}
	if !fastFields(&r, line, &s.top) {
		return recon.Call{}, false
	}
	op, _ := svcapi.Lookup(r.Operation)
	var env fastEnv
	hasEnv := false
	if resp := s.top[kResponse]; resp.Set() && line[resp.From] == '{' {
		if !env.read(line, &s) || !fastEnvelope(&r, &env) {
			return recon.Call{}, false
		}
		hasEnv = true
	}
	if !hasEnv && r.Error == "" || r.TS == "" && !fastAt(&r) {
		return recon.Call{}, false
	}
	r.Outcome = fastOutcome(hasEnv, env.statusCode, op, r.Error)
	carries := op != nil && op.Billable || op == nil && !bytes.Contains(env.data, []byte(`"transactionStatusCode"`))
	if hasEnv && r.Outcome == recon.CallSuccess && carries && !fastPool(&r, &env, op) {
		return recon.Call{}, false
	}
	r.Hash = lineHash(line)
	redactCall(&r, secrets)
	return r, true
}

// lineScan is what one pass over a line finds: the places of the values
// the lean decoder reads, in the line itself, the record's (top), and
// those of the three objects within it that it reads: the record's answer
// (env), the answer's data and the data's pool.
type lineScan struct {
	top                   [nLineKeys]jsonscan.Span
	env                   [nEnvKeys]jsonscan.Span
	data                  [len(dataKeys)]jsonscan.Span
	pool                  [len(poolKeys)]jsonscan.Span
	line                  []byte
	inEnv, inData, inPool inner
}

// inner is what the one pass finds of an object within the record: that
// it read it (seen), and whether it holds a key the decoder refuses (odd),
// which matters only when the object is read.
type inner struct{ seen, odd bool }

// scan scans the line once, validating it whole; false when it is not one
// JSON object, or its record holds a key the decoder refuses.
func (s *lineScan) scan(line []byte) bool {
	s.line = line
	end, odd, ok := jsonscan.ScanNested(line, 0, 0, lineKeys[:], s.top[:], s.record)
	return ok && !odd && end == len(line)
}

// record, envelope and data read, in the one pass, the object value of
// the key of theirs the decoder reads within: the record's answer, the
// answer's data, the data's pool.
func (s *lineScan) record(k, i, depth int) (int, bool) {
	return s.within(k == kResponse, i, depth, envKeys[:], s.env[:], &s.inEnv, s.envelope)
}

func (s *lineScan) envelope(k, i, depth int) (int, bool) {
	return s.within(k == eData, i, depth, dataKeys[:], s.data[:], &s.inData, s.dataPool)
}

func (s *lineScan) dataPool(k, i, depth int) (int, bool) {
	return s.within(k == 0, i, depth, poolKeys[:], s.pool[:], &s.inPool, nil) // "pool"
}

// within scans the object at line[i] (nesting depth depth): with keys into
// spans, its own inner objects with next, and what it found into in, when
// it is the one read (read); skipped otherwise.
func (s *lineScan) within(read bool, i, depth int, keys []string, spans []jsonscan.Span, in *inner, next jsonscan.Nested) (int, bool) {
	if !read {
		return jsonscan.SkipValue(s.line, i, depth-1)
	}
	end, odd, ok := jsonscan.ScanNested(s.line, i, depth, keys, spans, next)
	in.seen, in.odd = true, odd
	return end, ok
}

// fastFields reads the record's texts into r. Only the fields a calls row
// keeps, or that decide them, are read (method and path never fail; a bad
// httpStatus or latencyMs makes a bad line). false: the lean decoder gives
// up (also on a transaction-status look-up, whose answer is kept, and on a
// record with nothing in it).
func fastFields(r *recon.Call, line []byte, top *[nLineKeys]jsonscan.Span) bool {
	for _, f := range [...]struct {
		k   int
		dst *string
	}{{kAt, &r.At}, {kOperation, &r.Operation}, {kExternalRef, &r.ExternalRef}, {kError, &r.Error}} {
		v, ok := jsonscan.Text(line, top[f.k])
		if !ok {
			return false
		}
		*f.dst = v
	}
	_, ok1 := jsonscan.Int(line, top[kHTTPStatus])
	_, ok2 := jsonscan.Int(line, top[kLatencyMs])
	if !ok1 || !ok2 || r.Operation == svcapi.OpTxnStatus {
		return false
	}
	return r.Operation != "" || r.At != "" || top[kResponse].Set() || r.Error != ""
}

// fastEnvelope copies what the calls row keeps of the envelope: its
// statuscode and orderid, data.externalRef when the record named none, and
// its timestamp (r.TS stays empty without one).
func fastEnvelope(r *recon.Call, env *fastEnv) bool {
	r.StatusCode, r.OrderID = env.statusCode, env.orderID
	if r.ExternalRef == "" {
		ref, ok := env.dataExternalRef()
		if !ok {
			return false
		}
		r.ExternalRef = ref
	}
	ts := strings.TrimSpace(env.timestamp)
	if ts == "" {
		return true
	}
	t, err := time.ParseInLocation(recon.TimestampLayout, ts, recon.IST)
	if err != nil {
		return false
	}
	if r.TS = ts; !canonicalTS(ts) {
		r.TS = t.Format(recon.TimestampLayout)
	}
	return true
}

// fastAt sets r.TS from "at", for a call without a response timestamp.
func fastAt(r *recon.Call) bool {
	if strings.TrimSpace(r.At) == "" {
		return false
	}
	t, err := svcapi.ParseTime(r.At)
	if err != nil {
		return false
	}
	r.TS = t.In(recon.IST).Format(recon.TimestampLayout)
	return true
}

// fastOutcome is outcome for the lean decoder: statusCode is the
// envelope's, when the call has one.
func fastOutcome(hasEnv bool, statusCode string, op *svcapi.Operation, errText string) recon.CallOutcome {
	switch {
	case hasEnv && statusCode == svcapi.StatusSuccess:
		return recon.CallSuccess
	case hasEnv && statusCode == svcapi.StatusPending:
		return recon.CallPending
	case !hasEnv && errText != "" && (op == nil || op.Billable):
		return recon.CallPending
	}
	return recon.CallFailed
}

// fastPool reads the pool debit of a successful answer into r.Pool; false
// when the lean decoder gives up, or there is none where op answers with
// one ("envelope without pool": the full decoder says so), or a value no
// pool can have (checkPool).
func fastPool(r *recon.Call, env *fastEnv, op *svcapi.Operation) bool {
	p, found, ok := env.pool()
	switch {
	case !ok:
		return false
	case !found:
		return op == nil || op.Pool == svcapi.PoolNone
	}
	r.Pool = p
	return checkPool(svcapi.PoolShape(p.Shape), p) == nil
}

// canonicalTS reports whether s is written YYYY-MM-DD HH:MM:SS with every
// digit (as the service writes it, and as a parsed time formats back).
func canonicalTS(s string) bool {
	if len(s) != 19 {
		return false
	}
	for i := 0; i < 19; i++ {
		switch i {
		case 4, 7:
			if s[i] != '-' {
				return false
			}
		case 10:
			if s[i] != ' ' {
				return false
			}
		case 13, 16:
			if s[i] != ':' {
				return false
			}
		default:
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
	}
	return true
}

// The keys of a call-log record the lean decoder reads.
const (
	kAt = iota
	kOperation
	kMethod
	kPath
	kExternalRef
	kRequest
	kHTTPStatus
	kLatencyMs
	kResponse
	kError
	kStatusCode
	nLineKeys
)

var lineKeys = [nLineKeys]string{"at", "operation", "method", "path", "externalRef", "request", "httpStatus",
	"latencyMs", "response", "error", "statuscode"}

// The keys of an envelope (svcapi.Envelope's fields).
const (
	eStatusCode = iota
	eActCode
	eStatus
	eData
	eTimestamp
	eSvcUUID
	eOrderID
	eEnvironment
	eInternalCode
	nEnvKeys
)

var envKeys = [nEnvKeys]string{"statuscode", "actcode", "status", "data", "timestamp", "svc_uuid", "orderid",
	"environment", "internalCode"}

// The keys of an envelope's data the pool is read from, and of a pool.
var dataKeys = [...]string{"pool", "openingBalance", "payableValue", "closingBalance", "externalRef"}

var poolKeys = [...]string{"account", "referenceId", "mode", "openingBal", "amount", "closingBal", "openingBalance",
	"paymentAmount", "closingBalance", "payableValue"}

// fastEnv is the part of an envelope a calls row holds.
type fastEnv struct {
	statusCode, timestamp, orderID string
	data                           []byte // nil: absent or null
	s                              *lineScan
}

// read takes the envelope from the line's scan (its answer was an object:
// s.inEnv.seen).
func (e *fastEnv) read(line []byte, s *lineScan) bool {
	if !s.inEnv.seen || s.inEnv.odd {
		return false
	}
	e.s = s
	for _, f := range [...]struct {
		k   int
		dst *string
	}{{eStatusCode, &e.statusCode}, {eTimestamp, &e.timestamp}, {eOrderID, &e.orderID}} {
		v, ok := jsonscan.Text(line, s.env[f.k])
		if !ok {
			return false
		}
		*f.dst = v
	}
	if e.statusCode == "" {
		return false // no envelope: the full decoder says so
	}
	if strings.EqualFold(e.orderID, "null") {
		e.orderID = ""
	}
	if d := s.env[eData]; d.Set() && string(line[d.From:d.To]) != "null" {
		e.data = line[d.From:d.To]
	}
	return true
}

// dataExternalRef is data.externalRef, or "".
func (e *fastEnv) dataExternalRef() (string, bool) {
	if len(e.data) == 0 || e.data[0] != '{' || !bytes.Contains(e.data, []byte(`"externalRef"`)) {
		return "", true
	}
	if !e.s.inData.seen || e.s.inData.odd {
		return "", false
	}
	return jsonscan.Text(e.s.line, e.s.data[4])
}

// pool reads the pool debit of a successful answer (svcapi.ExtractPool):
// found false when there is none; ok false when the lean decoder gives up.
func (e *fastEnv) pool() (p recon.PoolEntry, found, ok bool) {
	if len(e.data) == 0 || e.data[0] != '{' {
		return p, false, true
	}
	s, line := e.s, e.s.line
	if !s.inData.seen || s.inData.odd {
		return p, false, false
	}
	d := &s.data
	if pl := d[0]; pl.Set() && string(line[pl.From:pl.To]) != "null" {
		if line[pl.From] != '{' || !s.inPool.seen || s.inPool.odd {
			return p, false, false
		}
		return poolEntry(line, &s.pool)
	}
	var a [3]string
	for i := range a {
		var ok bool
		if a[i], ok = jsonscan.Amount(line, d[i+1]); !ok {
			return p, false, false
		}
	}
	if a[0] == "" && a[2] == "" {
		return p, false, true
	}
	p.Shape, p.Mode = string(svcapi.PoolData), "DR"
	ok = setAmounts(&p, a[0], a[1], a[2])
	return p, ok, ok
}

// poolEntry reads a pool object, whose values' places in line are v.
func poolEntry(line []byte, v *[len(poolKeys)]jsonscan.Span) (p recon.PoolEntry, found, ok bool) {
	var a [len(poolKeys)]string
	for i := range poolKeys {
		var ok bool
		if i < 3 {
			a[i], ok = jsonscan.Text(line, v[i])
		} else {
			a[i], ok = jsonscan.Amount(line, v[i])
		}
		if !ok {
			return p, false, false
		}
	}
	p.Account, p.Mode = a[0], a[2]
	switch {
	case a[3] != "" || a[5] != "":
		p.Shape = string(svcapi.PoolA)
		ok = setAmounts(&p, a[3], a[4], a[5])
	case (a[6] != "" || a[8] != "") && a[7] == "" && a[9] != "":
		p.Shape = string(svcapi.PoolData)
		ok = setAmounts(&p, a[6], a[9], a[8])
	case a[6] != "" || a[8] != "":
		p.Shape = string(svcapi.PoolB)
		ok = setAmounts(&p, a[6], a[7], a[8])
	default:
		ok = false
	}
	return p, ok, ok
}

// setAmounts sets the entry's balances from decimal texts as recon.Money
// writes them; false when one is missing or not a decimal.
func setAmounts(p *recon.PoolEntry, opening, amount, closing string) bool {
	for _, f := range [3]struct {
		text string
		dst  *string
	}{{opening, &p.Opening}, {amount, &p.Amount}, {closing, &p.Closing}} {
		m, ok := money(f.text)
		if !ok {
			return false
		}
		*f.dst = m
	}
	return true
}

// money is recon.Money of a decimal text: a plain one is padded in place
// (recon.PlainMoney), any other goes through decimal.Decimal. false when
// the text is empty or no decimal.
func money(s string) (string, bool) {
	if m, ok := recon.PlainMoney(s); ok {
		return m, true
	}
	d, err := svcapi.ParseAmount(s)
	if err != nil {
		return "", false
	}
	return recon.Money(d), true
}
