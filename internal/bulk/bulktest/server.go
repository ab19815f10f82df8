// Package bulktest is a small fake of the service for bulk tests: it answers
// every billable operation of the registry with a TXN envelope carrying a
// pool debit (shape A), counts the requests per externalRef, injects faults
// chosen deterministically per externalRef (dropped connection, TUP, failure)
// and answers the transaction-status look-up from what it executed. Like the
// service, it refuses a ref it already executed with DTX (debiting nothing);
// a ref that failed (IAN) may be sent again and fails again.
//
// It stands in for the sandbox where a test needs exact control of faults.
package bulktest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/svcrecon/svcrecon/internal/recon"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// Options choose the faults. Shares are 0..1 of the billable calls, decided
// by a hash of the externalRef (the same ref always gets the same fault).
type Options struct {
	Latency time.Duration // before every answer
	Drop    float64       // executed and debited, then the connection is closed unanswered
	Pending float64       // executed and debited, answered TUP
	Fail    float64       // answered IAN: failed, nothing debited
	// StillPending is the share of Pending calls that txnStatus still
	// reports as TUP.
	StillPending float64
	// Echo makes the fake a careless gateway: every answer's status (and
	// data.echo, and the transaction-status look-up's transactionStatus)
	// quotes back the client secret header and every value of the request.
	Echo bool
	// Before, when set, is called with the ref and body of each billable
	// request before it is executed (in the request's goroutine: it may
	// block, to hold the request).
	Before func(ref string, body map[string]any)
	// Lost, when set, is asked after Before about each billable request:
	// true drops it unexecuted and uncounted, as a request lost on its way
	// to the service would be (the client sees its connection closed).
	Lost func(ref string) bool
	// After, when set, is called with the ref of each billable request
	// when its handling ends: its outcome (executed, refused, lost) is
	// recorded by then.
	After func(ref string)
	// Price, when not zero, is the pool debit of every executed call
	// (otherwise Amount's, by ref).
	Price decimal.Decimal
	// DropEvery, when above zero, drops the answer of every DropEvery-th
	// executed call (in order of execution) as Drop does: executed and
	// debited, the connection closed unanswered.
	DropEvery int
	// Now, when set, is the fake's clock (time.Now otherwise): the day it
	// dates each transaction (which its txnStatus look-up is asked by) and
	// its answers' timestamps.
	Now func() time.Time
	// Tamper, when set, may change the TXN answer of an executed call
	// (env, its data a map) before it is written: a hostile service.
	Tamper func(ref string, env map[string]any)
	// NotFound is how the transaction-status look-up answers a ref the
	// fake never executed (on that day): NotFoundSNA (the default),
	// NotFoundERR or NotFoundOuter.
	NotFound string
}

// How the transaction-status look-up says a ref was never executed
// (Options.NotFound).
const (
	// NotFoundSNA: transactionStatusCode SNA, "no such transaction".
	NotFoundSNA = "SNA"
	// NotFoundERR: transactionStatusCode ERR, "Transaction not found".
	NotFoundERR = "ERR"
	// NotFoundOuter: the look-up itself answers statuscode ERR, "No such
	// transaction for this externalRef", without data.
	NotFoundOuter = "outer"
)

// Fault kinds, as returned by Server.Fault.
const (
	FaultNone    = ""
	FaultDrop    = "drop"
	FaultPending = "pending"
	FaultFail    = "fail"
)

type txn struct {
	failed  bool // answered IAN: nothing debited
	orderID string
	amount  decimal.Decimal
	day     string
	tup     bool
}

// Server is a running fake service.
type Server struct {
	opts    Options
	srv     *httptest.Server
	mu      sync.Mutex
	calls   map[string]int
	txns    map[string]txn
	balance decimal.Decimal
	debited decimal.Decimal
	total   int
	seq     int
}

// Credentials the fake expects (it does not check them).
const (
	ClientID     = "bulktest-client"
	ClientSecret = "bulktest-secret-never-logged"
	OutletID     = "OUTLET9"
	EndpointIP   = "203.0.113.9"
)

// Start starts a fake on a loopback port. Close it when done.
func Start(opts Options) *Server {
	s := &Server{opts: opts, calls: map[string]int{}, txns: map[string]txn{}, balance: decimal.RequireFromString("100000.00")}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the base URL.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() { s.srv.CloseClientConnections(); s.srv.Close() }

// Config is a client configuration for the fake.
func (s *Server) Config() svcapi.Config {
	return svcapi.Config{BaseURL: s.srv.URL, ClientID: ClientID, ClientSecret: ClientSecret, OutletID: OutletID,
		EndpointIP: EndpointIP, Timeout: 10 * time.Second}
}

// Environ is the SVC_* environment pointing a command at the fake.
func (s *Server) Environ() []string {
	return []string{"SVC_BASE_URL=" + s.srv.URL, "SVC_CLIENT_ID=" + ClientID, "SVC_CLIENT_SECRET=" + ClientSecret,
		"SVC_OUTLET_ID=" + OutletID, "SVC_ENDPOINT_IP=" + EndpointIP}
}

// CallCount is how many billable requests carried this externalRef.
func (s *Server) CallCount(ref string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[ref]
}

// Requests is the number of billable requests received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Debited is the sum of the pool debits of the executed calls.
func (s *Server) Debited() decimal.Decimal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.debited
}

// Amount is the pool debit of a call with this ref: 1.00 to 2.99, by hash.
func Amount(ref string) decimal.Decimal {
	return decimal.New(100+int64(hash(ref, "amount")%200), -2)
}

func hash(ref, salt string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(salt + "|" + ref))
	return h.Sum32()
}

func unit(ref, salt string) float64 { return float64(hash(ref, salt)%10000) / 10000 }

// Fault says which fault a call with this ref gets.
func (s *Server) Fault(ref string) string {
	u := unit(ref, "fault")
	switch {
	case u < s.opts.Drop:
		return FaultDrop
	case u < s.opts.Drop+s.opts.Pending:
		return FaultPending
	case u < s.opts.Drop+s.opts.Pending+s.opts.Fail:
		return FaultFail
	}
	return FaultNone
}

func opByPath(method, path string) *svcapi.Operation {
	for _, op := range svcapi.Operations() {
		if op.Path == path && op.Method == method {
			o, _ := svcapi.Lookup(op.Name)
			if o.Name == svcapi.OpCollectOrders {
				continue
			}
			return o
		}
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body := map[string]any{}
	if r.Body != nil {
		json.NewDecoder(r.Body).Decode(&body)
	}
	if s.opts.Latency > 0 {
		time.Sleep(s.opts.Latency)
	}
	now := time.Now()
	if s.opts.Now != nil {
		now = s.opts.Now()
	}
	now = now.In(recon.IST)
	env := map[string]any{"actcode": nil, "timestamp": now.Format(recon.TimestampLayout),
		"svc_uuid": fmt.Sprintf("U%d", now.UnixNano()), "environment": "SANDBOX", "orderid": nil}
	if r.URL.Path == "/reports/txnStatus" {
		s.txnStatus(w, r, body, env)
		return
	}
	op := opByPath(r.Method, r.URL.Path)
	if op == nil || !op.Billable {
		env["statuscode"], env["status"] = "ERR", "not served by bulktest"
		writeJSON(w, env)
		return
	}
	ref, _ := body["externalRef"].(string)
	if s.opts.After != nil {
		defer s.opts.After(ref)
	}
	if s.opts.Before != nil {
		s.opts.Before(ref, body)
	}
	if s.opts.Lost != nil && s.opts.Lost(ref) {
		panic(http.ErrAbortHandler)
	}
	echo := ""
	if s.opts.Echo {
		echo = " (echo: secret " + r.Header.Get(svcapi.HeaderClientSecret) + ", request " + quote(body) + ")"
	}
	fault := s.Fault(ref)
	s.mu.Lock()
	s.total++
	s.calls[ref]++
	if t, ok := s.txns[ref]; ok && !t.failed {
		s.mu.Unlock()
		env["statuscode"], env["status"] = "DTX", "duplicate externalRef"
		writeJSON(w, env)
		return
	}
	if fault == FaultFail {
		s.txns[ref] = txn{failed: true, day: now.Format(time.DateOnly)}
		s.mu.Unlock()
		env["statuscode"], env["status"] = "IAN", "invalid PAN"+echo
		writeJSON(w, env)
		return
	}
	s.seq++
	amount := Amount(ref)
	if !s.opts.Price.IsZero() {
		amount = s.opts.Price
	}
	if s.opts.DropEvery > 0 && s.seq%s.opts.DropEvery == 0 {
		fault = FaultDrop
	}
	opening := s.balance
	s.balance = s.balance.Sub(amount)
	s.debited = s.debited.Add(amount)
	t := txn{orderID: fmt.Sprintf("SVC%012d", s.seq), amount: amount, day: now.Format(time.DateOnly),
		tup: fault == FaultPending && unit(ref, "still") < s.opts.StillPending}
	s.txns[ref] = t
	closing := s.balance
	s.mu.Unlock()

	switch fault {
	case FaultDrop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case FaultPending:
		env["statuscode"], env["status"] = "TUP", "transaction under process"+echo
		env["data"] = map[string]any{"externalRef": ref}
		writeJSON(w, env)
		return
	}
	pan, _ := body["pan"].(string)
	env["statuscode"], env["status"], env["orderid"] = "TXN", "Transaction Successful"+echo, t.orderID
	env["data"] = map[string]any{
		"externalRef": ref, "poolReferenceId": "P" + t.orderID, "txnReferenceId": "T" + t.orderID,
		"pool": map[string]any{"account": "0409000123456", "openingBal": opening.StringFixed(2), "mode": "DR",
			"amount": amount.StringFixed(2), "closingBal": closing.StringFixed(2)},
		"panPlusDataV2": map[string]any{"panNumber": pan, "userFullName": "TEST USER",
			"userFullNameSplit": []string{"TEST", "", "USER"}, "maskedAadhaar": "XXXXXXXX1234",
			"aadhaarLinkedStatus": true, "panStatus": "VALID", "cardNumber": "4111111111111111"},
	}
	if echo != "" {
		env["data"].(map[string]any)["echo"] = echo
	}
	if s.opts.Tamper != nil {
		s.opts.Tamper(ref, env)
	}
	writeJSON(w, env)
}

// quote renders a request body as the text a careless gateway would quote.
func quote(body map[string]any) string {
	b, _ := json.Marshal(body)
	return string(b)
}

func (s *Server) txnStatus(w http.ResponseWriter, r *http.Request, body map[string]any, env map[string]any) {
	ref, _ := body["externalRef"].(string)
	day, _ := body["transactionDate"].(string)
	s.mu.Lock()
	t, ok := s.txns[ref]
	s.mu.Unlock()
	data := map[string]any{"externalRef": ref, "transactionDate": day}
	switch {
	case (!ok || t.day != day) && s.opts.NotFound == NotFoundOuter:
		env["statuscode"], env["status"] = "ERR", "No such transaction for this externalRef"
		writeJSON(w, env)
		return
	case (!ok || t.day != day) && s.opts.NotFound == NotFoundERR:
		data["transactionStatusCode"], data["transactionStatus"] = "ERR", "Transaction not found"
	case !ok || t.day != day:
		data["transactionStatusCode"], data["transactionStatus"] = svcapi.TxnNotFound, "no such transaction"
	case t.failed:
		data["transactionStatusCode"], data["transactionStatus"] = "IAN", "invalid PAN"
	case t.tup:
		data["transactionStatusCode"], data["transactionStatus"] = "TUP", "under process"
	default:
		data["transactionStatusCode"], data["transactionStatus"] = "TXN", "Success"
		data["orderid"] = t.orderID
		data["pool"] = map[string]any{"openingBal": t.amount.StringFixed(2), "amount": t.amount.StringFixed(2), "closingBal": "0.00"}
	}
	if s.opts.Echo {
		data["transactionStatus"] = fmt.Sprint(data["transactionStatus"]) + " (echo: secret " + r.Header.Get(svcapi.HeaderClientSecret) + ")"
	}
	env["statuscode"], env["status"], env["data"] = "TXN", "Transaction Successful", data
	writeJSON(w, env)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
